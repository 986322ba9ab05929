import { DeliberateError } from "@deliberate/contracts";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { signSessionState, verifySessionState } from "./session-state.ts";

const payload = fc.record({
  sessionId: fc.string({ minLength: 1, maxLength: 40 }),
  revision: fc.integer({ min: 0, max: 1_000_000 }),
});

function refusal(run: () => unknown): DeliberateError {
  try {
    run();
  } catch (error) {
    if (DeliberateError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("expected a refusal");
}

describe("signed session state", () => {
  it("round-trips, as the object or its token", () => {
    fc.assert(
      fc.property(payload, (value) => {
        const state = signSessionState(value, "secret");
        expect(verifySessionState(state, "secret")).toEqual(value);
        expect(verifySessionState(state.token, "secret")).toEqual(value);
      }),
    );
  });

  it("refuses any changed character, naming sessionState", () => {
    fc.assert(
      fc.property(
        payload,
        fc.nat(),
        fc.constantFrom(..."abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_."),
        (value, position, replacement) => {
          const { token } = signSessionState(value, "secret");
          const index = position % token.length;
          fc.pre(token[index] !== replacement);
          const tampered = `${token.slice(0, index)}${replacement}${token.slice(index + 1)}`;
          const error = refusal(() => verifySessionState({ token: tampered }, "secret"));
          expect(error.code).toBe("INVALID_INPUT");
          expect(error.issues[0]?.field).toBe("sessionState");
        },
      ),
      { numRuns: 500 },
    );
  });

  it("refuses a state signed by another server", () => {
    const state = signSessionState({ sessionId: "s1", revision: 3 }, "other secret");
    expect(refusal(() => verifySessionState(state, "secret")).message).toMatch(/signature/);
    expect(refusal(() => verifySessionState("not a state", "secret")).message).toMatch(/not a session state/);
  });
});
