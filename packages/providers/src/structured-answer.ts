import { DeliberateError, type FieldIssue } from "@deliberate/base";
import { z } from "zod";
import { extractJson, type JsonCandidate } from "./extract-json.ts";
import { fromStrictAnswer } from "./strict-answer.ts";
import { isRecordSchema, type StrictSchemaResult, toStrictSchema } from "./strict-schema.ts";

/** How a structured answer is requested on the wire: a name, a description and a JSON schema. */
export interface AnswerFormat {
  /** Wire-safe name (`^[a-zA-Z0-9_-]{1,64}$`): the Anthropic tool name and the OpenAI json_schema name. */
  name: string;
  description: string | undefined;
  /**
   * JSON schema of the answer as the model is given it: always an object at
   * the root without anyOf / oneOf / allOf there (see `wrapped`); the strict
   * form (`toStrictSchema`) when `strict` is true.
   */
  jsonSchema: Record<string, unknown>;
  /**
   * True when the schema's root is not a plain object (another type, or
   * anyOf / oneOf / allOf at the root, which tool input schemas and strict
   * formats refuse): the wire schema is then `{ value: <schema> }` and the
   * answer is unwrapped before validation.
   */
  wrapped: boolean;
  /** True when `jsonSchema` is the strict form, so the provider may ask for constrained decoding. */
  strict: boolean;
  /** Why the schema has no strict form, when `strict` is false. */
  strictProblems: string[];
  /** The object-rooted schema before the strict transform (answers are mapped back along it). */
  looseJsonSchema: Record<string, unknown>;
}

/** The outcome of checking one answer against its schema. */
export type AnswerCheck<T> = { ok: true; value: T } | { ok: false; issues: FieldIssue[] };

const defaultAnswerName = "answer";
const jsonSchemaCache = new WeakMap<z.ZodType, Record<string, unknown>>();

/** Makes `name` acceptable as a tool / json_schema name, keeping it readable. */
export function toWireName(name: string | undefined): string {
  const cleaned = (name ?? "")
    .replace(/[^a-zA-Z0-9_-]+/g, "_")
    .replace(/^_+|_+$/g, "")
    .slice(0, 64);
  return cleaned.length > 0 ? cleaned : defaultAnswerName;
}

/** Converts a zod schema into the JSON schema the model is asked to follow (cached per schema). */
export function toAnswerJsonSchema(schema: z.ZodType): Record<string, unknown> {
  const cached = jsonSchemaCache.get(schema);
  if (cached) return cached;
  let converted: Record<string, unknown>;
  try {
    converted = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
  } catch (error) {
    throw new DeliberateError({
      code: "INTERNAL",
      message: `The answer schema cannot be expressed as JSON schema: ${error instanceof Error ? error.message : String(error)}`,
      cause: error,
    });
  }
  const { $schema: _ignored, ...withoutDialect } = converted;
  jsonSchemaCache.set(schema, withoutDialect);
  return withoutDialect;
}

/** Schemas whose strict form is cached, and the schema names already reported as not fitting. */
const strictCache = new WeakMap<Record<string, unknown>, StrictSchemaResult>();
const reportedLoose = new Set<string>();

/**
 * Builds the wire description of a structured answer from the call's
 * options: the object-rooted schema and, when it fits, its strict form
 * (`strict: true`). A schema that has no strict form is reported once per
 * name through `warn` (default: a line on stderr), and sent as it is.
 */
export function describeAnswerFormat(options: {
  schema: z.ZodType;
  schemaName?: string | undefined;
  schemaDescription?: string | undefined;
  warn?: ((message: string) => void) | undefined;
}): AnswerFormat {
  const jsonSchema = toAnswerJsonSchema(options.schema);
  // Strict decoding and tool input schemas want a plain object at the root: anything else (records included) goes under `value`.
  const wrapped =
    jsonSchema["type"] !== "object" ||
    "anyOf" in jsonSchema ||
    "oneOf" in jsonSchema ||
    "allOf" in jsonSchema ||
    isRecordSchema(jsonSchema);
  const loose: Record<string, unknown> = wrapped
    ? {
        type: "object",
        properties: { value: withoutDefinitions(jsonSchema) },
        required: ["value"],
        additionalProperties: false,
        ...definitionsOf(jsonSchema),
      }
    : jsonSchema;
  let strict = strictCache.get(jsonSchema);
  if (!strict) {
    strict = toStrictSchema(loose);
    strictCache.set(jsonSchema, strict);
  }
  const name = toWireName(options.schemaName);
  if (!strict.fits && !reportedLoose.has(name)) {
    reportedLoose.add(name);
    const message = `The answer schema "${name}" has no strict form (${strict.reasons.join("; ")}): it is sent without constrained decoding and checked after the answer.`;
    (options.warn ?? ((text: string) => process.stderr.write(`${JSON.stringify({ level: "warn", message: text })}\n`)))(
      message,
    );
  }
  return {
    name,
    description: options.schemaDescription,
    jsonSchema: strict.fits ? strict.schema : loose,
    wrapped,
    strict: strict.fits,
    strictProblems: strict.fits ? [] : strict.reasons,
    looseJsonSchema: loose,
  };
}

/** `$defs` / `definitions` stay at the root when the schema is wrapped (references start at the root). */
function definitionsOf(schema: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(schema).filter(([key]) => key === "$defs" || key === "definitions"));
}

function withoutDefinitions(schema: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(schema).filter(([key]) => key !== "$defs" && key !== "definitions"));
}

/** How a candidate answer is read before validation: unwrapped, and mapped back from the strict form along `looseJsonSchema`. */
export interface AnswerReading {
  wrapped: boolean;
  looseJsonSchema?: Record<string, unknown> | undefined;
}

/** Validates a candidate answer, mapping it back from the strict form and unwrapping it first when the format was wrapped. */
export function checkAnswer<T>(
  schema: z.ZodType<T>,
  candidate: JsonCandidate,
  reading: boolean | AnswerReading,
): AnswerCheck<T> {
  if (!candidate.ok) return { ok: false, issues: [{ field: "(answer)", message: candidate.problem }] };
  const { wrapped, looseJsonSchema } =
    typeof reading === "boolean" ? { wrapped: reading, looseJsonSchema: undefined } : reading;
  let value = looseJsonSchema ? fromStrictAnswer(candidate.value, looseJsonSchema) : candidate.value;
  if (wrapped && typeof value === "object" && value !== null && !Array.isArray(value) && "value" in value) {
    value = (value as { value: unknown }).value;
  }
  const result = schema.safeParse(value);
  if (result.success) return { ok: true, value: result.data };
  return {
    ok: false,
    issues: result.error.issues.map((issue) => ({
      field: issue.path.length > 0 ? issue.path.map(String).join(".") : "(answer)",
      message: issue.message,
    })),
  };
}

/**
 * Finds the JSON in a model's text answer (plain, fenced or inside prose) and
 * validates it with `schema`. For answers that arrive outside a provider, e.g.
 * completions submitted by a host agent.
 */
export function parseStructuredAnswer<T>(text: string, schema: z.ZodType<T>): AnswerCheck<T> {
  return checkAnswer(schema, extractJson(text), false);
}

/** `field: message; field: message` for error messages and repair prompts. */
export function formatIssues(issues: FieldIssue[]): string {
  return issues.map((issue) => `${issue.field}: ${issue.message}`).join("; ");
}
