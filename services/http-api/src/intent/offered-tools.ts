import {
  DeliberateError,
  defaultOfferedTools,
  endlessRefs,
  type FieldIssue,
  schemaExpansion,
  unsafePatterns,
} from "@deliberate/contracts";
import { z } from "zod";
import type { OfferedToolInput } from "@deliberate/contracts";
import "./pattern-safety.ts";

/** The name the decision uses for "no tool: the run is done". */
export const finishChoice = "finish";

/** An offered tool, ready for the decision: its argument schema compiled to a validator. */
export interface OfferedTool {
  name: string;
  description: string;
  /** The JSON Schema as given (shown to the model); undefined when none was given. */
  inputSchema: Record<string, unknown> | undefined;
  /** Validates arguments in code; undefined when no schema was given (any object passes). */
  validator: z.ZodType | undefined;
}

/**
 * Checks and compiles the offered tools: unique names, `finish` reserved, and
 * each input_schema an object schema that can be enforced in code.
 * @throws DeliberateError INVALID_INPUT naming `tools.<n>.<field>`.
 */
export function compileOfferedTools(tools: readonly OfferedToolInput[] | null | undefined): readonly OfferedTool[] {
  if (tools === null || tools === undefined) {
    compiledDefault ??= compile(defaultOfferedTools);
    return compiledDefault;
  }
  const given = tools;
  // Agents send the same tool list on every step: compile each distinct list once.
  const key = JSON.stringify(given);
  const cached = compiledCache.get(key);
  if (cached) {
    compiledCache.delete(key);
    compiledCache.set(key, cached);
    return cached;
  }
  const compiled = compile(given);
  compiledCache.set(key, compiled);
  if (compiledCache.size > compiledCacheSize) compiledCache.delete(compiledCache.keys().next().value as string);
  return compiled;
}

/** The default tools, compiled on first use. */
let compiledDefault: readonly OfferedTool[] | undefined;

/** Most recently used compiled tool lists (validators are immutable, so sharing them is safe). */
const compiledCache = new Map<string, readonly OfferedTool[]>();
const compiledCacheSize = 256;

function compile(given: readonly OfferedToolInput[]): OfferedTool[] {
  const issues: FieldIssue[] = [];
  const seen = new Set<string>();
  const compiled: OfferedTool[] = [];
  given.forEach((tool, index) => {
    const field = `tools.${index}`;
    if (tool.name === finishChoice) {
      issues.push({
        field: `${field}.name`,
        message: `'${finishChoice}' is reserved for ending the run; rename the tool`,
      });
      return;
    }
    if (seen.has(tool.name)) {
      issues.push({ field: `${field}.name`, message: `'${tool.name}' is offered twice` });
      return;
    }
    seen.add(tool.name);
    const schema = tool.input_schema ?? undefined;
    let validator: z.ZodType | undefined;
    if (schema !== undefined) {
      const type = schema["type"];
      if (type !== undefined && type !== "object") {
        issues.push({
          field: `${field}.input_schema`,
          message: `must describe an object (type "object"), got type ${JSON.stringify(type)}`,
        });
        return;
      }
      const unsafe = [...unsafePatterns(schema), ...endlessRefs(schema)];
      if (unsafe.length === 0) unsafe.push(...schemaExpansion(schema));
      if (unsafe.length > 0) {
        issues.push(
          ...unsafe.map((issue) => ({
            field: [`${field}.input_schema`, ...issue.path].join("."),
            message: issue.message,
          })),
        );
        return;
      }
      try {
        validator = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
      } catch (error) {
        issues.push({
          field: `${field}.input_schema`,
          message: `cannot be enforced: ${error instanceof Error ? error.message : String(error)}`,
        });
        return;
      }
    }
    compiled.push({ name: tool.name, description: tool.description ?? "", inputSchema: schema, validator });
  });
  if (issues.length > 0) {
    throw new DeliberateError({
      code: "INVALID_INPUT",
      message: `Invalid tools: ${issues.map((issue) => `${issue.field}: ${issue.message}`).join("; ")}`,
      issues,
      hint: "Offer each tool once with a JSON Schema object for its arguments (JSON Schema 2020-12 without if/then/else, remote $ref, or patterns with backreferences, lookarounds or nested {n,m} repetitions).",
    });
  }
  return compiled;
}

/** Problems of `args` against the tool's schema, each named `tool_args.<path>`; empty when valid. */
export function checkToolArguments(tool: OfferedTool, args: unknown): FieldIssue[] {
  if (typeof args !== "object" || args === null || Array.isArray(args)) {
    return [{ field: "tool_args", message: "must be an object" }];
  }
  if (!tool.validator) return [];
  const result = tool.validator.safeParse(args);
  if (result.success) return [];
  return result.error.issues.map((issue) => ({
    field: ["tool_args", ...issue.path.map(String)].join("."),
    message: issue.message,
  }));
}
