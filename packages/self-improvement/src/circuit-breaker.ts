import type { CircuitBreakerConfig } from "./config.ts";

/** The breaker as persisted (design §14.8): it survives restarts and is shared by replicas. */
export interface BreakerState {
  state: "closed" | "open" | "half_open";
  consecutive_failures: number;
  /** When it last opened. */
  opened_at: string | null;
  /** Successful cycles since it went half-open. */
  half_open_successes: number;
  last_failure: string | null;
  last_failure_at: string | null;
}

export const closedBreaker: BreakerState = {
  state: "closed",
  consecutive_failures: 0,
  opened_at: null,
  half_open_successes: 0,
  last_failure: null,
  last_failure_at: null,
};

function reopensAt(state: BreakerState, config: CircuitBreakerConfig): number {
  return new Date(state.opened_at ?? 0).getTime() + config.resetTimeoutMs;
}

/** The state as of `now`: an open breaker whose reset timeout has passed is half-open. */
export function breakerAt(state: BreakerState, now: Date, config: CircuitBreakerConfig): BreakerState {
  if (state.state === "open" && now.getTime() >= reopensAt(state, config))
    return { ...state, state: "half_open", half_open_successes: 0 };
  return state;
}

/** Milliseconds until an open breaker lets a cycle through (0 when it does now). */
export function breakerRemainingMs(state: BreakerState, now: Date, config: CircuitBreakerConfig): number {
  if (state.state !== "open") return 0;
  return Math.max(0, reopensAt(state, config) - now.getTime());
}

/** A cycle that finished without failing: resets the failure count; in half-open, `successThreshold` of them close it. */
export function recordBreakerSuccess(state: BreakerState, now: Date, config: CircuitBreakerConfig): BreakerState {
  const current = breakerAt(state, now, config);
  if (current.state === "half_open") {
    const successes = current.half_open_successes + 1;
    if (successes >= config.successThreshold)
      return { ...current, state: "closed", consecutive_failures: 0, half_open_successes: 0 };
    return { ...current, half_open_successes: successes };
  }
  if (current.state === "open") return current;
  return { ...current, consecutive_failures: 0 };
}

/** A failed cycle: `failureThreshold` in a row open the breaker; any failure while half-open reopens it. */
export function recordBreakerFailure(
  state: BreakerState,
  now: Date,
  reason: string,
  config: CircuitBreakerConfig,
): BreakerState {
  const current = breakerAt(state, now, config);
  const failures = current.consecutive_failures + 1;
  const opens = current.state === "half_open" || failures >= config.failureThreshold;
  return {
    state: opens ? "open" : current.state,
    consecutive_failures: failures,
    opened_at: opens ? now.toISOString() : current.opened_at,
    half_open_successes: 0,
    last_failure: reason,
    last_failure_at: now.toISOString(),
  };
}
