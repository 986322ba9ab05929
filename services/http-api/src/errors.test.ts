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
});
