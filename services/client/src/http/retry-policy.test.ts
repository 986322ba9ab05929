import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { backoffDelay, decideRetry, parseRetryAfter, type RetryDecisionInput } from "./retry-policy.ts";

const now = Date.parse("2026-11-22T12:00:00Z");
const base: Omit<RetryDecisionInput, "failure"> = {
  attempt: 0,
  retries: 2,
  idempotent: false,
  backoffMs: 100,
  maxRetryDelayMs: 5_000,
  now,
  random: 0.5,
};

describe("decideRetry", () => {
  // One row per rule of the policy: [what, failure, overrides, retry?, delay when retried]
  const table: Array<[string, RetryDecisionInput["failure"], Partial<RetryDecisionInput>, boolean, number | null]> = [
    [
      "429 without Retry-After: backoff, even for a call that is not idempotent",
      { kind: "status", status: 429, retryAfter: null },
      {},
      true,
      75,
    ],
    [
      "429 with Retry-After seconds: waits what the server says",
      { kind: "status", status: 429, retryAfter: "2" },
      {},
      true,
      2_000,
    ],
    [
      "429 with an HTTP-date Retry-After",
      { kind: "status", status: 429, retryAfter: new Date(now + 3_000).toUTCString() },
      {},
      true,
      3_000,
    ],
    [
      "429 asking for longer than allowed: not retried",
      { kind: "status", status: 429, retryAfter: "60" },
      {},
      false,
      null,
    ],
    [
      "503 with Retry-After: the work was not done, retried",
      { kind: "status", status: 503, retryAfter: "1" },
      {},
      true,
      1_000,
    ],
    [
      "503 without Retry-After on a call that is not idempotent: not retried",
      { kind: "status", status: 503, retryAfter: null },
      {},
      false,
      null,
    ],
    [
      "503 without Retry-After on an idempotent call: retried",
      { kind: "status", status: 503, retryAfter: null },
      { idempotent: true },
      true,
      75,
    ],
    [
      "500 on an idempotent call: retried",
      { kind: "status", status: 500, retryAfter: null },
      { idempotent: true },
      true,
      75,
    ],
    [
      "500 on a call that is not idempotent: not retried",
      { kind: "status", status: 500, retryAfter: null },
      {},
      false,
      null,
    ],
    [
      "408 on an idempotent call: retried",
      { kind: "status", status: 408, retryAfter: null },
      { idempotent: true },
      true,
      75,
    ],
    ["400: never retried", { kind: "status", status: 400, retryAfter: null }, { idempotent: true }, false, null],
    ["401: never retried", { kind: "status", status: 401, retryAfter: null }, { idempotent: true }, false, null],
    ["404: never retried", { kind: "status", status: 404, retryAfter: null }, { idempotent: true }, false, null],
    ["timeout, idempotent: retried", { kind: "timeout" }, { idempotent: true }, true, 75],
    ["timeout, not idempotent: not retried", { kind: "timeout" }, {}, false, null],
    ["refused connection: never reached the server, retried", { kind: "network", refused: true }, {}, true, 75],
    ["dropped connection, not idempotent: not retried", { kind: "network", refused: false }, {}, false, null],
    ["dropped connection, idempotent: retried", { kind: "network", refused: false }, { idempotent: true }, true, 75],
    ["second retry doubles the backoff", { kind: "network", refused: true }, { attempt: 1 }, true, 150],
    ["no retries left", { kind: "status", status: 429, retryAfter: "1" }, { attempt: 2 }, false, null],
    ["retries 0: never retried", { kind: "network", refused: true }, { retries: 0 }, false, null],
  ];
  it.each(table)("%s", (_what, failure, overrides, retry, delay) => {
    const decision = decideRetry({ ...base, ...overrides, failure });
    expect(decision.retry).toBe(retry);
    if (decision.retry) expect(decision.delayMs).toBe(delay);
    expect(decision.reason.length).toBeGreaterThan(0);
  });

  it("caps backoff at maxRetryDelayMs", () => {
    const decision = decideRetry({ ...base, retries: 20, attempt: 12, failure: { kind: "timeout" }, idempotent: true });
    expect(decision).toMatchObject({ retry: true, delayMs: 5_000 });
  });
});

describe("parseRetryAfter and backoffDelay", () => {
  it("reads seconds and dates; ignores what it cannot read", () => {
    expect(parseRetryAfter("0", now)).toBe(0);
    expect(parseRetryAfter(" 7 ", now)).toBe(7_000);
    expect(parseRetryAfter(new Date(now - 5_000).toUTCString(), now)).toBe(0);
    expect(parseRetryAfter("soon", now)).toBeNull();
    expect(parseRetryAfter(null, now)).toBeNull();
  });

  it("keeps every backoff between half and all of base * 2^attempt", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10_000 }),
        fc.integer({ min: 0, max: 10 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (backoff, attempt, random) => {
          const delay = backoffDelay(backoff, attempt, random);
          const ceiling = backoff * 2 ** attempt;
          expect(delay).toBeGreaterThanOrEqual(Math.floor(ceiling / 2));
          expect(delay).toBeLessThanOrEqual(Math.ceil(ceiling));
        },
      ),
    );
  });
});
