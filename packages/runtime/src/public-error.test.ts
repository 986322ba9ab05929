import { DeliberateError } from "@deliberate/base";
import { describe, expect, it } from "vitest";
import { toPublicError } from "./public-error.ts";

describe("toPublicError", () => {
  it("shows a public DeliberateError as it is", () => {
    const error = new DeliberateError({
      code: "INVALID_INPUT",
      message: "bad",
      issues: [{ field: "query", message: "is required" }],
      hint: "send query",
    });
    const { body, errorId } = toPublicError(error);
    expect(errorId).toBeUndefined();
    expect(body).toEqual(error.toJSON());
  });

  it("hides the text of INTERNAL, STORAGE and foreign failures behind an error id", () => {
    for (const fault of [
      new Error("SELECT * FROM secrets failed"),
      new DeliberateError({ code: "STORAGE", message: "disk path /var/x" }),
      "a thrown string",
    ]) {
      const { body, errorId } = toPublicError(fault);
      expect(errorId).toMatch(/^err_[0-9a-f]{16}$/);
      expect(body.error_id).toBe(errorId);
      expect(body.message).toContain(errorId as string);
      expect(JSON.stringify(body)).not.toMatch(/secrets|\/var\/x|thrown string/);
      expect(body.retryable).toBe(false);
    }
  });

  it("says when to retry a retryable STORAGE failure (the database is away)", () => {
    const { body } = toPublicError(
      new DeliberateError({ code: "STORAGE", message: "connection refused", retryable: true }),
    );
    expect(body).toMatchObject({ code: "STORAGE", retryable: true, retry_after_seconds: expect.any(Number) });
    expect(body.message).toContain("unavailable for the moment");
  });
});
