import { DeliberateError, errorCodeSchema } from "@deliberate/contracts";
import { describe, expect, it } from "vitest";
import { HttpError, httpErrorCodeSchema, httpStatusByCode, toErrorResponse } from "./errors.ts";
import { errorStatusDescriptions } from "./openapi/openapi-document.ts";

describe("error mapping", () => {
  it("maps every error code to a documented status", () => {
    for (const code of [...errorCodeSchema.options, ...httpErrorCodeSchema.options]) {
      const status = httpStatusByCode[code];
      expect(status, code).toBeGreaterThanOrEqual(400);
      expect(errorStatusDescriptions[status], `${code} -> ${status}`).toBeDefined();
    }
    expect(httpStatusByCode).toMatchObject({
      INVALID_INPUT: 400,
      NOT_FOUND: 404,
      CONFLICT: 409,
      LIMIT_EXCEEDED: 422,
      PROVIDER_NOT_CONFIGURED: 503,
      PROVIDER_UNAVAILABLE: 502,
      PROVIDER_TIMEOUT: 504,
      CANCELLED: 499,
      UNAUTHORIZED: 401,
      PAYLOAD_TOO_LARGE: 413,
      RATE_LIMITED: 429,
    });
  });

  it("builds the JSON body from DeliberateError, HttpError and unknown errors without leaking internals", () => {
    const invalid = toErrorResponse(new DeliberateError({ code: "INVALID_INPUT", message: "bad", issues: [{ field: "a", message: "m" }], hint: "fix a" }), "req_1");
    expect(invalid).toEqual({
      status: 400,
      headers: {},
      body: { status: "error", error: { code: "INVALID_INPUT", message: "bad", issues: [{ field: "a", message: "m" }], hint: "fix a", retryable: false }, request_id: "req_1" },
    });
    const limited = toErrorResponse(new HttpError({ code: "RATE_LIMITED", message: "slow down", headers: { "Retry-After": "3" }, retryable: true }));
    expect(limited.status).toBe(429);
    expect(limited.headers).toEqual({ "Retry-After": "3" });
    const unknown = toErrorResponse(new Error("SELECT * FROM secrets failed"));
    expect(unknown.status).toBe(500);
    expect(JSON.stringify(unknown.body)).not.toContain("secrets");
  });

  it("answers INTERNAL and STORAGE DeliberateErrors with a stable message and an error id, handing the details back for the log", () => {
    for (const [code, status, detail] of [
      ["INTERNAL", 500, "Internal error: Maximum call stack size exceeded"],
      ["INTERNAL", 500, "reasoning_decision produced output that does not match its schema: [{ \"code\": \"invalid_type\", \"path\": [\"ranking\"] }]"],
      ["STORAGE", 500, "SQLITE_BUSY: database is locked"],
    ] as const) {
      const error = new DeliberateError({ code, message: detail });
      const response = toErrorResponse(error, "req_9");
      expect(response.status).toBe(status);
      const text = JSON.stringify(response.body);
      expect(text).not.toContain("Maximum call stack");
      expect(text).not.toContain("invalid_type");
      expect(text).not.toContain("SQLITE");
      expect(response.body.error.code).toBe(code);
      expect(response.body.error.error_id).toMatch(/^err_[0-9a-f]{16}$/);
      expect(response.body.error.message).toContain(response.body.error.error_id);
      expect(response.unexpected).toEqual({ errorId: response.body.error.error_id, error });
    }
    expect(toErrorResponse(new DeliberateError({ code: "NOT_FOUND", message: "Session not found: s1" })).unexpected).toBeUndefined();
  });
});
