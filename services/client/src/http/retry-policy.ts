/**
 * When and how long to wait before retrying a REST call. Pure, so the policy
 * is table-tested apart from the network.
 *
 * - 429, and 503 with Retry-After: the server says it did not do the work;
 *   retried whatever the call.
 * - 408, 5xx, timeouts and dropped connections: the call may have reached the
 *   server; retried only when repeating it is harmless (`idempotent`).
 * - A refused connection never reached the server: retried.
 * - Anything else (4xx): not retried.
 * - The wait is Retry-After when the server sends it (seconds or an HTTP
 *   date), else exponential backoff with jitter; a server asking for longer
 *   than `maxRetryDelayMs` is not retried (the error says when to come back).
 */
export type FailureKind =
  | { kind: "status"; status: number; retryAfter: string | null }
  | { kind: "timeout" }
  | { kind: "network"; refused: boolean };

export interface RetryDecisionInput {
  failure: FailureKind;
  /** Retries already made. */
  attempt: number;
  retries: number;
  idempotent: boolean;
  backoffMs: number;
  maxRetryDelayMs: number;
  now: number;
  /** In [0, 1): the jitter draw (Math.random in use, fixed in tests). */
  random: number;
}

export type RetryDecision = { retry: true; delayMs: number; reason: string } | { retry: false; reason: string };

/** Milliseconds from `now` that a Retry-After value asks for, or null when it is absent or unreadable. */
export function parseRetryAfter(value: string | null, now: number): number | null {
  if (value === null) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return null;
  return Math.max(0, date - now);
}

/** Exponential backoff with equal jitter: half fixed, half random, doubling per attempt. */
export function backoffDelay(backoffMs: number, attempt: number, random: number): number {
  const ceiling = backoffMs * 2 ** attempt;
  return Math.round(ceiling / 2 + (random * ceiling) / 2);
}

export function decideRetry(input: RetryDecisionInput): RetryDecision {
  const { failure } = input;
  if (input.attempt >= input.retries) return { retry: false, reason: `no retries left (${input.retries})` };
  let safe: boolean;
  let reason: string;
  let retryAfter: number | null = null;
  if (failure.kind === "status") {
    retryAfter = parseRetryAfter(failure.retryAfter, input.now);
    if (failure.status === 429 || (failure.status === 503 && retryAfter !== null)) {
      safe = true;
      reason = `${failure.status}: the server did not do the work`;
    } else if (failure.status === 408 || failure.status >= 500) {
      safe = input.idempotent;
      reason = `${failure.status}${input.idempotent ? "" : " on a call that is not idempotent"}`;
    } else {
      return { retry: false, reason: `${failure.status} is not transient` };
    }
  } else if (failure.kind === "timeout") {
    safe = input.idempotent;
    reason = `timeout${input.idempotent ? "" : " on a call that is not idempotent"}`;
  } else {
    safe = failure.refused || input.idempotent;
    reason = failure.refused
      ? "connection refused"
      : `connection failed${input.idempotent ? "" : " on a call that is not idempotent"}`;
  }
  if (!safe) return { retry: false, reason };
  if (retryAfter !== null) {
    if (retryAfter > input.maxRetryDelayMs)
      return {
        retry: false,
        reason: `Retry-After ${Math.ceil(retryAfter / 1000)} s is longer than the ${input.maxRetryDelayMs} ms allowed`,
      };
    return { retry: true, delayMs: retryAfter, reason: `${reason}; Retry-After ${retryAfter} ms` };
  }
  return {
    retry: true,
    delayMs: Math.min(input.maxRetryDelayMs, backoffDelay(input.backoffMs, input.attempt, input.random)),
    reason,
  };
}
