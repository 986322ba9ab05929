import { brokenJson, fieldsWithWrongValues, wrongValueFor } from "@deliberate/contracts/testing";
import fc from "fast-check";

/** A tool as `tools/list` publishes it (name and input schema are all the fuzzer needs). */
export interface ListedTool {
  name: string;
  inputSchema: { properties?: Record<string, Record<string, unknown>> };
}

/** What a generated message is, and so which answer it must get. */
export type FuzzKind =
  | "malformed-json"
  | "bad-envelope"
  | "not-an-object"
  | "bad-arguments"
  | "bad-params"
  | "unknown-method"
  | "too-deep"
  | "unknown-resource";

/** One bad message: its text, and the id its answer carries (null when the id cannot be read). */
export interface FuzzMessage {
  kind: FuzzKind;
  text: string;
  id: number | null;
}

/** `{"a":{"a":…}}` nested `depth` deep, as text (JSON.stringify itself would overflow). */
export function nestedJson(depth: number): string {
  return `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
}

/**
 * Generates `count` bad JSON-RPC messages from `seed` (same seed, same
 * messages): malformed JSON, broken envelopes, non-objects, tool calls whose
 * arguments have a field of the wrong type (plus random extra keys), bad
 * tools/call params, unknown methods, over-deep nesting and unknown
 * resources. Ids start at `firstId`; every message that has a readable id
 * is a request, so every message must be answered.
 */
export function generateBadMessages(options: {
  seed: number;
  count: number;
  firstId: number;
  tools: ListedTool[];
  allowBatches?: boolean;
}): FuzzMessage[] {
  const tools = options.tools.filter((tool) => fieldsWithWrongValues(tool.inputSchema.properties).length > 0);
  const junk = fc.dictionary(
    fc.string({ minLength: 1, maxLength: 8 }).filter((key) => key !== "__proto__"),
    fc.jsonValue({ maxDepth: 3 }),
    { maxKeys: 3 },
  );
  const arbitrary = fc.oneof(
    {
      weight: 2,
      arbitrary: fc.tuple(
        fc.constant("malformed-json" as const),
        fc.oneof(
          fc.string({ maxLength: 40 }),
          fc.jsonValue().map((value) => JSON.stringify(value)),
          fc.constant('{"jsonrpc":"2.0","id":1,"method":"tools/list"'),
        ),
        fc.nat(),
      ),
    },
    {
      weight: 2,
      arbitrary: fc.tuple(fc.constant("bad-envelope" as const), fc.nat({ max: 5 }), fc.jsonValue({ maxDepth: 2 })),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(
        fc.constant("not-an-object" as const),
        options.allowBatches === false
          ? fc.oneof(fc.integer(), fc.string(), fc.constant(null), fc.boolean())
          : fc.oneof(
              fc.integer(),
              fc.string(),
              fc.constant(null),
              fc.boolean(),
              fc.array(fc.integer(), { maxLength: 3 }),
            ),
        fc.nat(),
      ),
    },
    { weight: 6, arbitrary: fc.tuple(fc.constant("bad-arguments" as const), fc.nat(), fc.nat(), junk) },
    {
      weight: 1,
      arbitrary: fc.tuple(fc.constant("bad-params" as const), fc.nat({ max: 3 }), fc.jsonValue({ maxDepth: 2 })),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(
        fc.constant("unknown-method" as const),
        fc.stringMatching(/^[a-z]{1,10}\/[a-z]{1,10}$/),
        fc.nat(),
      ),
    },
    { weight: 1, arbitrary: fc.tuple(fc.constant("too-deep" as const), fc.integer({ min: 65, max: 4000 }), fc.nat()) },
    {
      weight: 1,
      arbitrary: fc.tuple(fc.constant("unknown-resource" as const), fc.string({ maxLength: 30 }), fc.nat()),
    },
  );
  const samples = fc.sample(arbitrary, { seed: options.seed, numRuns: options.count });
  return samples.map((sample, index): FuzzMessage => {
    const id = options.firstId + index;
    const request = (method: string, params?: unknown) =>
      JSON.stringify({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) });
    switch (sample[0]) {
      case "malformed-json":
        // One message is one line, and not blank (a blank line is no message): brokenJson keeps both.
        return { kind: "malformed-json", text: brokenJson(sample[1], sample[2]), id: null };
      case "bad-envelope": {
        const [, variant, value] = sample;
        const base: Record<string, unknown> = { jsonrpc: "2.0", id, method: "tools/list" };
        if (variant === 0) base["jsonrpc"] = value === "2.0" ? "1.0" : value;
        else if (variant === 1) base["method"] = typeof value === "string" ? 42 : value;
        else if (variant === 2)
          base["params"] = value !== null && typeof value === "object" && !Array.isArray(value) ? [value] : value;
        else if (variant === 3) base["unexpected_member"] = value;
        else if (variant === 4) delete base["jsonrpc"];
        else
          return {
            kind: "bad-envelope",
            text: JSON.stringify({ jsonrpc: "2.0", id: { nested: id }, method: "tools/list" }),
            id: null,
          };
        return { kind: "bad-envelope", text: JSON.stringify(base), id };
      }
      case "not-an-object":
        return { kind: "not-an-object", text: JSON.stringify(sample[1]), id: null };
      case "bad-arguments": {
        const [, toolPick, valuePick, extra] = sample;
        const tool = tools[toolPick % tools.length] as ListedTool;
        const properties = fieldsWithWrongValues(tool.inputSchema.properties);
        const field = properties[valuePick % properties.length] as string;
        const schema = tool.inputSchema.properties?.[field] ?? {};
        const extraKeys = Object.fromEntries(
          Object.entries(extra).filter(([key]) => !(key in (tool.inputSchema.properties ?? {}))),
        );
        return {
          kind: "bad-arguments",
          text: request("tools/call", {
            name: tool.name,
            arguments: { ...extraKeys, [field]: wrongValueFor(schema, valuePick) },
          }),
          id,
        };
      }
      case "bad-params": {
        const [, variant, value] = sample;
        const params = [
          { name: typeof value === "string" ? 7 : value },
          { name: tools[0]?.name, arguments: Array.isArray(value) ? value : [value] },
          { arguments: {} },
          { name: "constructor", arguments: {} },
        ][variant];
        return { kind: "bad-params", text: request("tools/call", params), id };
      }
      case "unknown-method":
        return { kind: "unknown-method", text: request(`x-${sample[1]}`), id };
      case "too-deep":
        return {
          kind: "too-deep",
          text: `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"reasoning_linear","arguments":{"content":"x","metadata":${nestedJson(sample[1])}}}}`,
          id,
        };
      case "unknown-resource":
        return {
          kind: "unknown-resource",
          text: request("resources/read", {
            uri: `deliberate://sessions/missing-${encodeURIComponent(sample[1])}-${sample[2]}`,
          }),
          id,
        };
    }
  });
}

/** A JSON-RPC answer as the fuzz checks it. */
export interface JsonRpcAnswer {
  id?: unknown;
  result?: { isError?: boolean; content?: Array<{ text?: string }> };
  error?: { code: number; message: string; data?: { issues?: Array<{ field?: string }>; uri?: string } };
}

/**
 * The field an answer names, or undefined when it names none: `data.issues`
 * of a refused message, the `issues` of a tool's INVALID_INPUT body, the
 * param path in the SDK's params errors, the URI of a missing resource, the
 * method of an unknown method.
 */
export function namedField(answer: JsonRpcAnswer): string | undefined {
  if (answer.error) {
    const { code, message, data } = answer.error;
    const issue = data?.issues?.find((item) => typeof item.field === "string" && item.field !== "");
    if (issue?.field) return issue.field;
    if (typeof data?.uri === "string") return "uri";
    if (code === -32601) return "method";
    const paramPath = /"path":\s*\[\s*"params",\s*"(\w+)"/.exec(message);
    if (paramPath) return `params.${paramPath[1]}`;
    if (/^Tool \S+ not found/.test(message)) return "name";
    return undefined;
  }
  if (answer.result?.isError) {
    try {
      const body = JSON.parse(answer.result.content?.[0]?.text ?? "{}") as {
        code?: string;
        issues?: Array<{ field?: string }>;
      };
      return body.issues?.find((item) => typeof item.field === "string" && item.field !== "")?.field;
    } catch {
      return undefined;
    }
  }
  return undefined;
}
