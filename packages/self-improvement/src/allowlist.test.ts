import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkAllowlist, stepsWithinBounds, stepValue } from "./allowlist.ts";
import type { Allowlist } from "./config.ts";
import { defaultAllowlist } from "./config.ts";

const allowlist: Allowlist = {
  timeoutMs: { min: 5_000, max: 60_000, step: 5_000, maxSteps: 2 },
  temperature: { min: 0, max: 1, step: 0.1, maxSteps: 2 },
  concurrency: { min: 1, max: 8, step: 1, maxSteps: 1 },
};

describe("the allowlist", () => {
  it("admits a change of whole steps within bounds, and counts the steps", () => {
    expect(checkAllowlist(allowlist, { scope: "linear", setting: "timeoutMs", from: 30_000, to: 40_000 })).toEqual({
      ok: true,
      steps: 2,
    });
    expect(checkAllowlist(allowlist, { scope: "linear", setting: "temperature", from: 0.7, to: 0.5 })).toEqual({
      ok: true,
      steps: 2,
    });
    expect(checkAllowlist(allowlist, { scope: "engine", setting: "concurrency", from: 4, to: 5 })).toEqual({
      ok: true,
      steps: 1,
    });
  });

  it("refuses, saying why: out of bounds, not whole steps, too many steps, unchanged, not allowed, wrong scope, fractions", () => {
    const reason = (change: Parameters<typeof checkAllowlist>[1]) => {
      const verdict = checkAllowlist(allowlist, change);
      return verdict.ok ? "ok" : verdict.reason;
    };
    expect(reason({ scope: "linear", setting: "timeoutMs", from: 60_000, to: 70_000 })).toBe(
      "linear.timeoutMs: 70000 is above the allowlist maximum 60000",
    );
    expect(reason({ scope: "linear", setting: "timeoutMs", from: 5_000, to: 0 })).toBe(
      "linear.timeoutMs: 0 is below the allowlist minimum 5000",
    );
    expect(reason({ scope: "linear", setting: "timeoutMs", from: 30_000, to: 32_000 })).toBe(
      "linear.timeoutMs: 30000 → 32000 is not a whole number of steps of 5000",
    );
    expect(reason({ scope: "linear", setting: "timeoutMs", from: 10_000, to: 25_000 })).toBe(
      "linear.timeoutMs: 10000 → 25000 is 3 steps of 5000; at most 2 per action",
    );
    expect(reason({ scope: "linear", setting: "timeoutMs", from: 10_000, to: 10_000 })).toBe(
      "linear.timeoutMs: the new value equals the current one (10000)",
    );
    expect(reason({ scope: "linear", setting: "maxTokens", from: 1000, to: 1500 })).toBe(
      "maxTokens is not in the allowlist (allowed: timeoutMs, temperature, concurrency)",
    );
    expect(reason({ scope: "linear", setting: "concurrency", from: 4, to: 5 })).toBe(
      "concurrency is an engine setting, not a mode's (linear.concurrency)",
    );
    expect(reason({ scope: "engine", setting: "timeoutMs", from: 5_000, to: 10_000 })).toBe(
      "timeoutMs is a mode's setting; the engine has none (engine.timeoutMs)",
    );
    expect(reason({ scope: "engine", setting: "concurrency", from: 4, to: 4.5 })).toBe(
      "engine.concurrency: concurrency takes whole numbers, got 4.5",
    );
  });

  it("property: whatever it admits is within bounds, whole steps, at most maxSteps, and stepsWithinBounds only proposes what it admits", () => {
    const entries = Object.entries(defaultAllowlist) as Array<
      [keyof typeof defaultAllowlist, NonNullable<(typeof defaultAllowlist)["timeoutMs"]>]
    >;
    fc.assert(
      fc.property(
        fc.constantFrom(...entries),
        fc.double({ min: 0, max: 400_000, noNaN: true }),
        fc.double({ min: 0, max: 400_000, noNaN: true }),
        fc.constantFrom("increase" as const, "decrease" as const),
        fc.integer({ min: 1, max: 4 }),
        ([setting, entry], rawFrom, rawTo, direction, wanted) => {
          const scope = setting === "concurrency" ? "engine" : "linear";
          const integer = setting !== "temperature";
          const from = integer ? Math.round(rawFrom) : Math.round(Math.min(rawFrom, 1) * 10) / 10;
          const to = integer ? Math.round(rawTo) : Math.round(Math.min(rawTo, 1) * 100) / 100;
          const verdict = checkAllowlist(defaultAllowlist, { scope, setting, from, to });
          if (verdict.ok) {
            expect(to).toBeGreaterThanOrEqual(entry.min - 1e-6);
            expect(to).toBeLessThanOrEqual(entry.max + 1e-6);
            expect(verdict.steps).toBeGreaterThanOrEqual(1);
            expect(verdict.steps).toBeLessThanOrEqual(entry.maxSteps);
            expect(Math.abs(Math.abs(to - from) - verdict.steps * entry.step)).toBeLessThan(1e-6);
          }
          const steps = stepsWithinBounds(entry, from, direction, wanted);
          expect(steps).toBeLessThanOrEqual(Math.min(wanted, entry.maxSteps));
          if (steps > 0) {
            const proposed = stepValue(entry, from, direction, steps);
            expect(checkAllowlist(defaultAllowlist, { scope, setting, from, to: proposed })).toEqual({
              ok: true,
              steps,
            });
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});
