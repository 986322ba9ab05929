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
    const invalid = toErrorResponse(
      new DeliberateError({
        code: "INVALID_INPUT",
        message: "bad",
        issues: [{ field: "a", message: "m" }],
        hint: "fix a",
      }),
      "req_1",
    );
    expect(invalid).toEqual({
      status: 400,
      headers: {},
      body: {
        status: "error",
        error: {
          code: "INVALID_INPUT",
          message: "bad",
          issues: [{ field: "a", message: "m" }],
          hint: "fix a",
          retryable: false,
        },
        request_id: "req_1",
      },
    });
    const limited = toErrorResponse(
      new HttpError({ code: "RATE_LIMITED", message: "slow down", headers: { "Retry-After": "3" }, retryable: true }),
    );
    expect(limited.status).toBe(429);
    expect(limited.headers).toEqual({ "Retry-After": "3" });
    const unknown = toErrorResponse(new Error("SELECT * FROM secrets failed"));
    expect(unknown.status).toBe(500);
    expect(JSON.stringify(unknown.body)).not.toContain("secrets");
  });

  it("answers INTERNAL and STORAGE DeliberateErrors with a stable message and an error id, handing the details back for the log", () => {
    for (const [code, status, detail] of [
      ["INTERNAL", 500, "Internal error: Maximum call stack size exceeded"],
      [
        "INTERNAL",
        500,
        'reasoning_decision produced output that does not match its schema: [{ "code": "invalid_type", "path": ["ranking"] }]',
      ],
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
    expect(
      toErrorResponse(new DeliberateError({ code: "NOT_FOUND", message: "Session not found: s1" })).unexpected,
    ).toBeUndefined();
  });

  it("answers 503 with Retry-After and retryable: true while the database is away, without its details", () => {
    const dropped = Object.assign(new Error("terminating connection due to administrator command"), { code: "57P01" });
    const busy = Object.assign(new Error("database is locked"), { code: "SQLITE_BUSY" });
    for (const fault of [
      dropped,
      busy,
      new Error("Connection terminated unexpectedly"),
      new DeliberateError({ code: "STORAGE", message: "pool", retryable: true, cause: dropped }),
    ]) {
      const response = toErrorResponse(fault, "req_7");
      expect(response.status).toBe(503);
      expect(response.headers["Retry-After"]).toBe("2");
      expect(response.body.error).toMatchObject({ code: "STORAGE", retryable: true });
      expect(response.body.error.hint).toContain("Retry after 2 seconds");
      const text = JSON.stringify(response.body);
      expect(text).not.toContain("administrator");
      expect(text).not.toContain("locked");
      expect(response.unexpected?.error).toBe(fault);
    }
    // A storage failure that retrying will not cure stays 500.
    expect(toErrorResponse(Object.assign(new Error("duplicate key"), { code: "23505" })).status).toBe(500);
  });
});
