import { DeliberateError } from "@deliberate/base";
import { describe, expect, it } from "vitest";
import { toToolErrorResult } from "./tool-result.ts";

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
