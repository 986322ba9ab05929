import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { defaultSelfImprovementConfig, type MonitorConfig } from "./config.ts";
import { exponentialMovingAverage, snapshotOf } from "./metrics.ts";
import { buildHealthReport } from "./monitor.ts";
import type { InvocationSample } from "./types.ts";

const config: MonitorConfig = {
  ...defaultSelfImprovementConfig.monitor,
  windowSize: 10,
  minSamples: 10,
  floors: { errorRate: 0.05, latencyMs: 50, quality: 0.05, repairRate: 0.05 },
};
const now = new Date("2026-11-24T12:00:00.000Z");
let sequence = 0;

function rows(
  tool: string,
  count: number,
  call: Partial<InvocationSample> & { minutesAgo: number },
): InvocationSample[] {
  return Array.from({ length: count }, (_, index) => {
    sequence += 1;
    const success = call.success ?? true;
    return {
      id: `inv_${String(sequence).padStart(6, "0")}`,
      tool,
      operation: null,
      success,
      error_code: success ? null : (call.error_code ?? "PROVIDER_TIMEOUT"),
      error_message: call.error_message ?? null,
      latency_ms: call.latency_ms ?? 100,
      quality: call.quality === undefined ? (success ? 0.8 : null) : call.quality,
      model_calls: call.model_calls ?? 1,
      created_at: new Date(now.getTime() - call.minutesAgo * 60_000 + index).toISOString(),
      started_at: new Date(now.getTime() - call.minutesAgo * 60_000 + index).toISOString(),
    };
  });
}

describe("the monitor", () => {
  it("baselines each tool by the EMA over chunks of earlier calls and compares its latest window", () => {
    const history = [
      ...rows("t", 10, { minutesAgo: 50, latency_ms: 100 }),
      ...rows("t", 10, { minutesAgo: 40, latency_ms: 140 }),
      ...rows("t", 10, { minutesAgo: 30, latency_ms: 100 }),
      ...rows("t", 10, { minutesAgo: 5, latency_ms: 440 }),
    ];
    const report = buildHealthReport({ rows: history, now, config: { ...config, alpha: 0.5 } });
    const [tool] = report.tools;
    expect(tool).toMatchObject({ name: "t", status: "ready", chunks: 3 });
    // EMA over the chunks' p95s 100, 140 (40 % worse but under the 50 ms floor: absorbed), 100 with α 0.5: 100 -> 120 -> 110.
    expect(tool?.ema.latency_p95).toBe(110);
    expect(tool?.frozen_since.latency_p95).toBeNull();
    expect(tool?.window).toMatchObject({ samples: 10, latency_p95_ms: 440, error_rate: 0 });
    expect(report.triggers).toMatchObject([
      {
        tool: "t",
        metric: "latency_p95",
        observed: 440,
        baseline: 110,
        severity: "critical",
        deviation_pct: 300,
        window_samples: 10,
        baseline_samples: 30,
      },
    ]);
    expect(report.healthy).toBe(false);
  });

  it("freezes the baseline while a trigger is open: 60 good calls then 300 failing ones still trigger (the failures are not absorbed)", () => {
    const lasting = { ...defaultSelfImprovementConfig.monitor, windowMs: 24 * 60 * 60_000 };
    const history = [...rows("t", 60, { minutesAgo: 600 }), ...rows("t", 300, { minutesAgo: 300, success: false })];
    const report = buildHealthReport({ rows: history, now, config: lasting });
    const [tool] = report.tools;
    // Before: the EMA absorbed the failing chunks (0, 1, 1, 1, 1, 1 -> 83 %) and a window of 100 % errors read as within baseline.
    expect(tool?.ema.error_rate).toBe(0);
    expect(tool?.frozen_since.error_rate).toBe(history[60]?.started_at);
    expect(report.triggers).toMatchObject([
      {
        tool: "t",
        metric: "error_rate",
        observed: 1,
        baseline: 0,
        severity: "critical",
        window_samples: 50,
        baseline_samples: 310,
      },
    ]);
    // 60 good then 50 failing triggered before and still does.
    const short = buildHealthReport({ rows: history.slice(0, 110), now, config: lasting });
    expect(short.triggers).toMatchObject([{ metric: "error_rate", observed: 1, baseline: 0 }]);
  });

  it("closes the frozen baseline when calls are back within it, and absorbs improvements", () => {
    const history = [
      ...rows("t", 10, { minutesAgo: 50, success: false }),
      ...rows("t", 10, { minutesAgo: 45 }),
      ...rows("t", 10, { minutesAgo: 40, success: false }),
      ...rows("t", 10, { minutesAgo: 30 }),
      ...rows("t", 10, { minutesAgo: 1 }),
    ];
    const [tool] = buildHealthReport({ rows: history, now, config: { ...config, alpha: 0.5 } }).tools;
    // 100 % -> 0 % (an improvement: absorbed, 50 %), 100 % (worse: left out), 0 % (back within: closes, 25 %).
    expect(tool?.ema.error_rate).toBe(0.25);
    expect(tool?.frozen_since.error_rate).toBeNull();
  });

  it("needs the minimum samples on both sides, and ignores changes below the floor", () => {
    const few = buildHealthReport({
      rows: [...rows("t", 10, { minutesAgo: 30 }), ...rows("t", 5, { minutesAgo: 1, success: false })],
      now,
      config,
    });
    expect(few.tools[0]).toMatchObject({ status: "insufficient_samples", note: "5 calls in the baseline (needs 10)" });
    expect(few.triggers).toEqual([]);
    // 100 ms -> 140 ms is 40 % worse but under the 50 ms floor.
    const small = buildHealthReport({
      rows: [
        ...rows("t", 10, { minutesAgo: 30, latency_ms: 100 }),
        ...rows("t", 10, { minutesAgo: 1, latency_ms: 140 }),
      ],
      now,
      config,
    });
    expect(small.triggers).toEqual([]);
  });

  it("starts a tool's window at the last change of its settings, and drops calls older than windowMs from it", () => {
    const history = [
      ...rows("t", 10, { minutesAgo: 30 }),
      ...rows("t", 10, { minutesAgo: 20, success: false }),
      ...rows("t", 10, { minutesAgo: 10 }),
    ];
    const changed = new Date(now.getTime() - 15 * 60_000).toISOString();
    const report = buildHealthReport({ rows: history, now, config, changedAt: new Map([["t", changed]]) });
    expect(report.tools[0]?.window).toMatchObject({ samples: 10, error_rate: 0 });
    expect(report.tools[0]?.window_from).toBe(changed);
    const stale = buildHealthReport({ rows: history, now, config: { ...config, windowMs: 5 * 60_000 } });
    expect(stale.tools[0]).toMatchObject({ status: "insufficient_samples", note: "0 calls in the window (needs 10)" });
  });

  it("watches quality (lower is worse) and the repair rate, counting cut-off answers", () => {
    const cutOff = "…even after one repair round: x. The answer was cut off at the token limit.";
    const history = [
      ...rows("t", 10, { minutesAgo: 30, quality: 0.9 }),
      ...rows("t", 10, { minutesAgo: 1, quality: 0.5 }),
    ];
    const [quality] = buildHealthReport({ rows: history, now, config }).triggers;
    expect(quality).toMatchObject({ metric: "quality", observed: 0.5, severity: "warning" });
    expect(quality?.baseline).toBeCloseTo(0.9, 10);
    const repairs = [
      ...rows("t", 10, { minutesAgo: 30 }),
      ...rows("t", 6, { minutesAgo: 1 }),
      ...rows("t", 4, { minutesAgo: 1, success: false, error_code: "MODEL_OUTPUT_INVALID", error_message: cutOff }),
    ];
    const report = buildHealthReport({ rows: repairs, now, config });
    expect(report.tools[0]?.window).toMatchObject({
      repair_rate: 0.4,
      cut_off: 4,
      error_codes: { MODEL_OUTPUT_INVALID: 4 },
    });
    expect(report.triggers.map((trigger) => trigger.metric).sort()).toEqual(["error_rate", "repair_rate"]);
  });

  it("keeps per-mode baselines from the tools that ask each mode, and leaves out excluded tools", () => {
    const history = [
      ...rows("a", 10, { minutesAgo: 30 }),
      ...rows("b", 10, { minutesAgo: 30 }),
      ...rows("a", 10, { minutesAgo: 1 }),
      ...rows("b", 10, { minutesAgo: 1 }),
      ...rows("c", 20, { minutesAgo: 1 }),
    ];
    const report = buildHealthReport({
      rows: history,
      now,
      config: { ...config, excludeTools: ["c"] },
      toolModes: new Map([
        ["a", ["m"]],
        ["b", ["m", "n"]],
      ]),
    });
    expect(report.tools.map((tool) => tool.name)).toEqual(["a", "b"]);
    expect(report.modes.map((mode) => [mode.name, mode.window.samples, mode.rolling.samples])).toEqual([
      ["m", 10, 30],
      ["n", 10, 10],
    ]);
  });

  it("EMA property: stays within the range of its values, and α = 1 is the last value", () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: -1e6, max: 1e6, noNaN: true }), { minLength: 1, maxLength: 50 }),
        fc.double({ min: 0.01, max: 1, noNaN: true }),
        (values, alpha) => {
          const average = exponentialMovingAverage(values, alpha) as number;
          expect(average).toBeGreaterThanOrEqual(Math.min(...values) - 1e-6);
          expect(average).toBeLessThanOrEqual(Math.max(...values) + 1e-6);
          // === rather than Object.is: with α = 1 a last value of -0 comes back as 0.
          expect(exponentialMovingAverage(values, 1) === values.at(-1)).toBe(true);
        },
      ),
    );
    expect(exponentialMovingAverage([], 0.3)).toBeNull();
  });

  it("snapshot: p95 by nearest rank over successful calls only", () => {
    const calls = [
      ...rows("t", 19, { minutesAgo: 1, latency_ms: 10 }),
      ...rows("t", 1, { minutesAgo: 1, latency_ms: 1000 }),
      ...rows("t", 5, { minutesAgo: 1, success: false, latency_ms: 99_999 }),
    ];
    expect(snapshotOf(calls, 5)).toMatchObject({
      samples: 25,
      failures: 5,
      error_rate: 0.2,
      latency_p95_ms: 10,
      latency_samples: 20,
    });
  });
});
