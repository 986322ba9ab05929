import fc from "fast-check";
import { parseJSONRPCMessage } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import { maxJsonDepth } from "@deliberate/contracts";
import { mayNestTooDeep, readJsonRpcLine, readJsonRpcValue } from "./json-rpc-message.ts";

/** What the SDK makes of a value: its parsed message, or undefined when it refuses it. */
function sdkParse(value: unknown): unknown {
  try {
    return parseJSONRPCMessage(value);
  } catch {
    return undefined;
  }
}

const json = fc.jsonValue({ maxDepth: 3 });
const meta = fc.oneof(
  json,
  fc.record({ progressToken: fc.oneof(fc.string(), fc.integer(), json) }, { requiredKeys: [] }),
);
const message = fc.record(
  {
    jsonrpc: fc.constantFrom("2.0", "2.0", "2.0", "1.0"),
    id: fc.oneof(
      fc.string(),
      fc.integer(),
      fc.maxSafeInteger(),
      fc.constant(2 ** 60),
      fc.constant(-(2 ** 60)),
      fc.double(),
      fc.constant(null),
    ),
    method: fc.oneof(
      fc.constantFrom("tools/call", "tools/list", "initialize", "notifications/cancelled", "ping", ""),
      fc.string(),
    ),
    params: fc.oneof(
      fc.dictionary(fc.string(), json, { maxKeys: 4 }),
      fc.record({ name: fc.string(), arguments: json }),
      fc.record({ name: fc.string(), _meta: meta }),
      json,
    ),
  },
  { requiredKeys: ["jsonrpc"] },
);

describe("readJsonRpcValue", () => {
  it("accepts a request or notification only when the SDK's parse does, with the same content", () => {
    fc.assert(
      fc.property(message, (value) => {
        // Through JSON, as a line arrives.
        const parsed = JSON.parse(JSON.stringify(value)) as unknown;
        const read = readJsonRpcValue(parsed);
        if ("message" in read) expect(read.message).toEqual(sdkParse(parsed));
      }),
      { numRuns: 3000 },
    );
  });

  it("still refuses what the SDK refuses once the envelope is well formed: unsafe integer ids, bad _meta", () => {
    for (const value of [
      { jsonrpc: "2.0", id: 2 ** 60, method: "tools/call", params: {} },
      { jsonrpc: "2.0", id: 1, method: "tools/call", params: { _meta: 5 } },
      { jsonrpc: "2.0", id: 1, method: "tools/call", params: { _meta: { progressToken: {} } } },
    ]) {
      expect(sdkParse(value)).toBeUndefined();
      expect(readJsonRpcValue(value)).toMatchObject({ error: { code: -32600 } });
    }
    // JSON.parse makes "__proto__" an own key; the SDK's copy drops it (a fuzz find).
    const withProto = JSON.parse('{"jsonrpc":"2.0","method":"tools/call","params":{"__proto__":{}}}') as unknown;
    expect(readJsonRpcValue(withProto)).toEqual({ message: sdkParse(withProto) });
    expect(readJsonRpcValue(withProto)).toEqual({ message: { jsonrpc: "2.0", method: "tools/call", params: {} } });
    const plain = {
      jsonrpc: "2.0",
      id: 7,
      method: "tools/call",
      params: { name: "reasoning_checkpoint", arguments: { operation: "list" } },
    };
    expect(readJsonRpcValue(plain)).toEqual({ message: sdkParse(plain) });
  });

  it("refuses a tools/call whose name or arguments have the wrong type as invalid params naming the field (the SDK answered with its schema dump)", () => {
    const cases: Array<[unknown, string]> = [
      [{ name: "reasoning_linear", arguments: "x" }, "arguments"],
      [{ name: "reasoning_linear", arguments: [1] }, "arguments"],
      [{ name: "reasoning_linear", arguments: null }, "arguments"],
      [{ name: 5, arguments: {} }, "name"],
      [{ arguments: {} }, "name"],
    ];
    for (const [params, field] of cases) {
      const value = { jsonrpc: "2.0", id: 3, method: "tools/call", params };
      const read = readJsonRpcValue(value);
      expect(read, JSON.stringify(params)).toMatchObject({ error: { code: -32602, id: 3, issues: [{ field }] } });
      expect("error" in read && read.error.message).toContain(field);
      expect("error" in read && read.error.message).not.toContain("\n");
    }
    expect(readJsonRpcValue({ jsonrpc: "2.0", id: 5, method: "tools/call" })).toMatchObject({
      error: { code: -32602, id: 5, issues: [{ field: "params" }] },
    });
    const plain = { jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "reasoning_linear" } };
    expect(readJsonRpcValue(plain)).toEqual({ message: sdkParse(plain) });
  });
});

/** A value nested `levels` deep: objects and arrays in turn, a string with brackets at the bottom. */
function nested(levels: number, leaf: unknown = "{[}]"): unknown {
  let value = leaf;
  for (let level = 0; level < levels; level += 1) value = level % 2 === 0 ? { inner: value } : [value];
  return value;
}

describe("readJsonRpcLine: the depth walk skipped for lines that cannot nest too deep", () => {
  it("answers every line as the full walk does (property)", () => {
    const depth = fc.integer({ min: 0, max: maxJsonDepth + 6 });
    const bracketText = fc.stringMatching(/^[[\]{}a"\\]{0,90}$/);
    fc.assert(
      fc.property(depth, fc.oneof(json, bracketText), fc.boolean(), (levels, leaf, asArguments) => {
        const params = asArguments
          ? { name: "reasoning_checkpoint", arguments: { deep: nested(levels, leaf) } }
          : { deep: nested(levels, leaf) };
        const line = JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/call", params });
        expect(readJsonRpcLine(line)).toEqual(readJsonRpcValue(JSON.parse(line), true));
      }),
      { numRuns: 2000 },
    );
  });

  it("refuses one level past the limit and accepts the limit, brackets inside strings or not", () => {
    // The envelope, params and arguments are three levels.
    const line = (levels: number, leaf: unknown) =>
      JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "t", arguments: { value: nested(levels, leaf) } },
      });
    const shallowWithBrackets = line(1, "[".repeat(maxJsonDepth * 2));
    expect(mayNestTooDeep(shallowWithBrackets)).toBe(true);
    expect(readJsonRpcLine(shallowWithBrackets)).toHaveProperty("message");
    expect(readJsonRpcLine(line(maxJsonDepth - 3, 1))).toHaveProperty("message");
    expect(readJsonRpcLine(line(maxJsonDepth - 2, 1))).toMatchObject({ error: { code: -32600, id: 1 } });
    expect(mayNestTooDeep('{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}')).toBe(false);
  });
});
