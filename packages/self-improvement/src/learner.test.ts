import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { defaultSelfImprovementConfig } from "./config.ts";
import { lessonOf, measureReward } from "./learner.ts";
import type { InvocationSample } from "./types.ts";

let sequence = 0;
function calls(count: number, call: Partial<InvocationSample> = {}): InvocationSample[] {
  return Array.from({ length: count }, () => {
    sequence += 1;
    const success = call.success ?? true;
    return {
      id: `inv_${sequence}`,
      tool: "t",
      operation: null,
      success,
      error_code: success ? null : (call.error_code ?? "PROVIDER_TIMEOUT"),
      error_message: null,
      latency_ms: call.latency_ms ?? 100 + (sequence % 7),
      quality: call.quality === undefined ? null : call.quality,
      model_calls: 1,
      created_at: "2026-11-24T10:00:00.000Z",
      started_at: "2026-11-24T10:00:00.000Z",
    };
  });
}

const settings = { monitor: defaultSelfImprovementConfig.monitor, learner: defaultSelfImprovementConfig.learner };

describe("the learner's measured reward", () => {
  it("errors 100 % -> 0 %: significant, reward positive, improved; with the effect size and the MDE", () => {
    const measured = measureReward({
      before: calls(20, { success: false }),
      after: calls(20),
      metric: "error_rate",
      ...settings,
    });
    expect(measured.verdict).toBe("improved");
    expect(measured.value).toBe(1);
    const errorRate = measured.breakdown.find((entry) => entry.metric === "error_rate");
    expect(errorRate).toMatchObject({
      before: 1,
      after: 0,
      before_samples: 20,
      after_samples: 20,
      difference: -1,
      significant: true,
      improvement: 1,
    });
    expect(errorRate?.minimum_detectable_effect).toBeCloseTo(2.8 * (errorRate?.standard_error ?? 0), 2);
    expect(measured.confidence).toBeCloseTo(20 / 30, 5);
  });

  it("a significant rise of the error rate is a regression even when the latency improved", () => {
    const before = calls(30, { latency_ms: 600 });
    const after = [...calls(12, { latency_ms: 100 }), ...calls(18, { success: false })];
    const measured = measureReward({ before, after, metric: "latency_p95", ...settings });
    expect(measured.verdict).toBe("regressed");
    expect(measured.value).toBeLessThan(0);
    expect(measured.breakdown.find((entry) => entry.metric === "latency_p95")?.improvement).toBeGreaterThan(0);
  });

  it("differences within the noise count for nothing: no effect", () => {
    const before = [...calls(18), ...calls(2, { success: false })];
    const after = [...calls(17), ...calls(3, { success: false })];
    const measured = measureReward({ before, after, metric: "error_rate", ...settings });
    expect(measured.breakdown.find((entry) => entry.metric === "error_rate")).toMatchObject({
      significant: false,
      improvement: 0,
    });
    expect(measured).toMatchObject({ verdict: "no_effect", value: 0 });
  });

  it("confidence grows with the smaller side's sample count", () => {
    const small = measureReward({
      before: calls(5, { success: false }),
      after: calls(5),
      metric: "error_rate",
      ...settings,
    });
    const large = measureReward({
      before: calls(100, { success: false }),
      after: calls(100),
      metric: "error_rate",
      ...settings,
    });
    expect(small.confidence).toBeCloseTo(5 / 15, 5);
    expect(large.confidence).toBeGreaterThan(small.confidence);
  });

  it("property: the reward stays in [-1, 1] and its sign matches the verdict", () => {
    const call = fc.record({
      success: fc.boolean(),
      latency_ms: fc.integer({ min: 1, max: 5000 }),
      quality: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: null }),
    });
    fc.assert(
      fc.property(
        fc.array(call, { minLength: 1, maxLength: 40 }),
        fc.array(call, { minLength: 1, maxLength: 40 }),
        fc.constantFrom("error_rate" as const, "latency_p95" as const, "quality" as const, "repair_rate" as const),
        (before, after, metric) => {
          const toRows = (list: typeof before) => list.flatMap((entry) => calls(1, entry));
          const measured = measureReward({ before: toRows(before), after: toRows(after), metric, ...settings });
          expect(measured.value).toBeGreaterThanOrEqual(-1);
          expect(measured.value).toBeLessThanOrEqual(1);
          expect(measured.confidence).toBeGreaterThan(0);
          expect(measured.confidence).toBeLessThan(1);
          if (measured.verdict === "improved") expect(measured.value).toBeGreaterThan(0);
          if (measured.verdict === "no_effect")
            expect(Math.abs(measured.value)).toBeLessThan(settings.learner.rewardThreshold);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("writes the lesson with the figures that changed", () => {
    const measured = measureReward({
      before: calls(20, { success: false }),
      after: calls(20),
      metric: "error_rate",
      ...settings,
    });
    expect(
      lessonOf(
        { scope: "linear", setting: "timeoutMs", from_value: 300, to_value: 2300, tools: ["reasoning_linear"] },
        measured,
      ),
    ).toBe(
      "Changing linear.timeoutMs 300 → 2300 improved reasoning_linear: error_rate 100.0% → 0.0% (20 calls before, 20 after; reward 1.00, confidence 0.67); kept.",
    );
  });
});
