import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type BreakerState,
  breakerAt,
  breakerRemainingMs,
  closedBreaker,
  recordBreakerFailure,
  recordBreakerSuccess,
} from "./circuit-breaker.ts";

const config = { failureThreshold: 3, resetTimeoutMs: 300_000, successThreshold: 2 };
const at = (seconds: number) => new Date(Date.UTC(2026, 10, 24, 10, 0, seconds));

describe("the circuit breaker (3 failures, 5 minutes, 2 successes)", () => {
  it("opens on the third consecutive failure, half-opens after the reset timeout, closes after two successes", () => {
    let state: BreakerState = closedBreaker;
    state = recordBreakerFailure(state, at(0), "a", config);
    state = recordBreakerFailure(state, at(1), "b", config);
    expect(state.state).toBe("closed");
    state = recordBreakerFailure(state, at(2), "c", config);
    expect(state).toMatchObject({
      state: "open",
      consecutive_failures: 3,
      opened_at: at(2).toISOString(),
      last_failure: "c",
    });
    expect(breakerRemainingMs(state, at(62), config)).toBe(240_000);
    expect(breakerAt(state, at(301), config).state).toBe("open");
    expect(breakerAt(state, at(302), config).state).toBe("half_open");
    state = recordBreakerSuccess(state, at(302), config);
    expect(state).toMatchObject({ state: "half_open", half_open_successes: 1 });
    state = recordBreakerSuccess(state, at(303), config);
    expect(state).toMatchObject({ state: "closed", consecutive_failures: 0 });
  });

  it("a success resets the count; a failure while half-open reopens at once", () => {
    let state = recordBreakerFailure(recordBreakerFailure(closedBreaker, at(0), "a", config), at(1), "b", config);
    state = recordBreakerSuccess(state, at(2), config);
    expect(state.consecutive_failures).toBe(0);
    state = [0, 1, 2].reduce(
      (current, second) => recordBreakerFailure(current, at(second), "x", config),
      closedBreaker,
    );
    state = recordBreakerFailure(breakerAt(state, at(400), config), at(400), "again", config);
    expect(state).toMatchObject({ state: "open", opened_at: at(400).toISOString() });
  });

  it("property: with any thresholds, it is open exactly after `failureThreshold` failures in a row", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10 }), fc.array(fc.boolean(), { maxLength: 40 }), (threshold, outcomes) => {
        const settings = { ...config, failureThreshold: threshold };
        let state: BreakerState = closedBreaker;
        let run = 0;
        for (const [index, failed] of outcomes.entries()) {
          if (state.state === "open") break;
          state = failed
            ? recordBreakerFailure(state, at(index), "x", settings)
            : recordBreakerSuccess(state, at(index), settings);
          run = failed ? run + 1 : 0;
          expect(state.state === "open").toBe(run >= threshold);
        }
      }),
    );
  });
});
