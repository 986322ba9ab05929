import { DeliberateError, type FieldIssue } from "@deliberate/base";
import { z } from "zod";
import { extractJson, type JsonCandidate } from "./extract-json.ts";

/** How a structured answer is requested on the wire: a name, a description and a JSON schema. */
export interface AnswerFormat {
  /** Wire-safe name (`^[a-zA-Z0-9_-]{1,64}$`): the Anthropic tool name and the OpenAI json_schema name. */
  name: string;
  description: string | undefined;
  /** JSON schema of the answer; always an object at the root (see `wrapped`). */
  jsonSchema: Record<string, unknown>;
  /**
   * True when the schema's root is not an object: the wire schema is then
   * `{ value: <schema> }` (tools and json_schema need an object root) and the
   * answer is unwrapped before validation.
   */
  wrapped: boolean;
}

/** The outcome of checking one answer against its schema. */
export type AnswerCheck<T> = { ok: true; value: T } | { ok: false; issues: FieldIssue[] };

const defaultAnswerName = "answer";
const jsonSchemaCache = new WeakMap<z.ZodType, Record<string, unknown>>();

/** Makes `name` acceptable as a tool / json_schema name, keeping it readable. */
export function toWireName(name: string | undefined): string {
  const cleaned = (name ?? "").replace(/[^a-zA-Z0-9_-]+/g, "_").replace(/^_+|_+$/g, "").slice(0, 64);
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

/** Builds the wire description of a structured answer from the call's options. */
export function describeAnswerFormat(options: {
  schema: z.ZodType;
  schemaName?: string | undefined;
  schemaDescription?: string | undefined;
}): AnswerFormat {
  const jsonSchema = toAnswerJsonSchema(options.schema);
  const wrapped = jsonSchema["type"] !== "object";
  return {
    name: toWireName(options.schemaName),
    description: options.schemaDescription,
    jsonSchema: wrapped
      ? { type: "object", properties: { value: jsonSchema }, required: ["value"], additionalProperties: false }
      : jsonSchema,
    wrapped,
  };
}

/** Validates a candidate answer, unwrapping it first when the format was wrapped. */
export function checkAnswer<T>(schema: z.ZodType<T>, candidate: JsonCandidate, wrapped: boolean): AnswerCheck<T> {
  if (!candidate.ok) return { ok: false, issues: [{ field: "(answer)", message: candidate.problem }] };
  let value = candidate.value;
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
