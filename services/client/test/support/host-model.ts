import type { CompleteFunction, PendingPrompt } from "../../src/index.ts";

// The host's "model" in tests: scripted answers by prompt name, else the smallest object the
// prompt's JSON Schema accepts. It answers exactly what a server's needs_completion step asks.

type JsonSchema = Record<string, unknown>;

function resolve(schema: JsonSchema, root: JsonSchema): JsonSchema {
  const reference = schema["$ref"];
  if (typeof reference !== "string" || !reference.startsWith("#/")) return schema;
  let target: unknown = root;
  for (const part of reference.slice(2).split("/")) target = (target as Record<string, unknown>)[part];
  return resolve(target as JsonSchema, root);
}

/** The smallest value valid against `schema` (objects with every property, arrays at their minimum length). */
export function exampleFor(schema: JsonSchema, root: JsonSchema = schema, path = "value"): unknown {
  const resolved = resolve(schema, root);
  if ("const" in resolved) return resolved["const"];
  if (Array.isArray(resolved["enum"])) return resolved["enum"][0];
  for (const key of ["anyOf", "oneOf", "allOf"] as const) {
    const options = resolved[key];
    if (Array.isArray(options) && options.length > 0) {
      const usable = (options as JsonSchema[]).find((option) => resolve(option, root)["type"] !== "null") ?? options[0];
      return exampleFor(usable as JsonSchema, root, path);
    }
  }
  const type = Array.isArray(resolved["type"])
    ? (resolved["type"] as string[]).find((candidate) => candidate !== "null")
    : resolved["type"];
  switch (type) {
    case "object": {
      const properties = (resolved["properties"] ?? {}) as Record<string, JsonSchema>;
      return Object.fromEntries(
        Object.entries(properties).map(([name, property]) => [name, exampleFor(property, root, `${path}.${name}`)]),
      );
    }
    case "array": {
      const count = Math.max(1, Number(resolved["minItems"] ?? 1));
      return Array.from({ length: count }, (_, index) =>
        exampleFor((resolved["items"] ?? {}) as JsonSchema, root, `${path}.${index}`),
      );
    }
    case "string": {
      const minimum = Number(resolved["minLength"] ?? 1);
      const text = `${path} text`;
      return text.length >= minimum ? text : text.padEnd(minimum, ".");
    }
    case "integer":
    case "number": {
      const minimum = typeof resolved["minimum"] === "number" ? resolved["minimum"] : undefined;
      const maximum = typeof resolved["maximum"] === "number" ? resolved["maximum"] : undefined;
      if (minimum !== undefined && maximum !== undefined)
        return type === "integer" ? Math.ceil((minimum + maximum) / 2) : (minimum + maximum) / 2;
      return minimum ?? (maximum !== undefined ? Math.min(0, maximum) : 1);
    }
    case "boolean":
      return true;
    case "null":
      return null;
    default:
      return {};
  }
}

export type ScriptedAnswer = unknown | ((prompt: PendingPrompt) => unknown);

/**
 * A `complete` answering by prompt name from `script` (a value, or a
 * function of the prompt), else with the schema's example. Records every prompt it answered.
 */
export function scriptedHost(
  script: Record<string, ScriptedAnswer> = {},
): CompleteFunction & { prompts: PendingPrompt[] } {
  const prompts: PendingPrompt[] = [];
  const complete = (prompt: PendingPrompt) => {
    prompts.push(prompt);
    if (prompt.name in script) {
      const answer = script[prompt.name];
      return typeof answer === "function" ? (answer as (prompt: PendingPrompt) => unknown)(prompt) : answer;
    }
    return exampleFor(prompt.schema);
  };
  return Object.assign(complete, { prompts });
}

/** Answers of the reasoning module's prompts used in the tests. */
export const reasoningAnswers: Record<string, ScriptedAnswer> = {
  linear_continuation: {
    content: "The constraint rules out option B.",
    confidence: 0.8,
    next_step: "Check option A against the budget.",
  },
};
