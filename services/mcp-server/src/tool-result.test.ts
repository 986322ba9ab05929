import { DeliberateError } from "@deliberate/base";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { structuredJsonOf, toolResultOf, toToolErrorResult, toToolResult } from "./tool-result.ts";

describe("a successful call's result", () => {
  it("is the same from toolResultOf (its JSON made by the caller) as from toToolResult, _meta included (property)", () => {
    const output = fc.oneof(
      fc.dictionary(fc.string(), fc.jsonValue()),
      fc.record({ agent_instructions: fc.oneof(fc.string(), fc.integer()), session_id: fc.string() }),
    );
    fc.assert(
      fc.property(output, (value) => {
        const made = toToolResult(value);
        const reused = toolResultOf(value, JSON.stringify(value));
        expect(reused).toEqual(made);
        expect(JSON.stringify(reused)).toBe(JSON.stringify(made));
        // Only a result without _meta is one whose text is its structured content's JSON.
        expect(structuredJsonOf(made)).toBe(made._meta === undefined ? JSON.stringify(value) : undefined);
        expect(structuredJsonOf(reused)).toBeUndefined();
      }),
    );
  });
});

describe("tool error results while the database is away", () => {
  it("say STORAGE, retryable, and when to retry, without the driver's message", () => {
    const dropped = Object.assign(new Error("terminating connection due to administrator command"), { code: "57P01" });
    for (const fault of [
      dropped,
      new DeliberateError({ code: "STORAGE", message: "pool", retryable: true, cause: dropped }),
    ]) {
      const { result, body, unexpected } = toToolErrorResult(fault);
      expect(result.isError).toBe(true);
      expect(body).toMatchObject({ code: "STORAGE", retryable: true, retry_after_seconds: 2 });
      expect(body.message).toContain(body.error_id);
      expect(JSON.stringify(result.content)).not.toContain("administrator");
      expect(unexpected).toBe(true);
    }
    expect(toToolErrorResult(Object.assign(new Error("duplicate key"), { code: "23505" })).body).toMatchObject({
      code: "INTERNAL",
      retryable: false,
    });
  });
});
