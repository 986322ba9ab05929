import { ConfigError } from "@deliberate/base";
import { describe, expect, it } from "vitest";
import {
  defaultSelfImprovementConfig,
  parseSelfImprovementEnvironment,
  resolveSelfImprovementConfig,
} from "./config.ts";
import { parseDuration } from "./control.ts";

function configError(work: () => unknown): ConfigError {
  try {
    work();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error("expected a ConfigError");
}

describe("configuration", () => {
  it("defaults: auto mode, 5-minute cycles, breaker 3 / 5 min / 2, a lease of three cycles", () => {
    const config = resolveSelfImprovementConfig();
    expect(config).toMatchObject({
      mode: "auto",
      cycleMs: 300_000,
      circuitBreaker: { failureThreshold: 3, resetTimeoutMs: 300_000, successThreshold: 2 },
      lease: { durationMs: 900_000 },
    });
    expect(config.executor.allowlist).toEqual(defaultSelfImprovementConfig.executor.allowlist);
  });

  it("merges the allowlist setting by setting; null removes one", () => {
    const config = resolveSelfImprovementConfig({
      executor: { allowlist: { timeoutMs: { min: 1_000, max: 9_000, step: 1_000, maxSteps: 1 }, temperature: null } },
    });
    expect(config.executor.allowlist.timeoutMs).toEqual({ min: 1_000, max: 9_000, step: 1_000, maxSteps: 1 });
    expect(config.executor.allowlist.temperature).toBeUndefined();
    expect(config.executor.allowlist.maxTokens).toEqual(defaultSelfImprovementConfig.executor.allowlist.maxTokens);
  });

  it("names the field at fault", () => {
    expect(configError(() => resolveSelfImprovementConfig({ monitor: { alpha: 0 } })).variables).toEqual([
      "monitor.alpha",
    ]);
    expect(configError(() => resolveSelfImprovementConfig({ monitor: { minSamples: 60 } })).message).toBe(
      "self-improvement monitor.minSamples: (60) cannot exceed monitor.windowSize (50)",
    );
    expect(
      configError(() =>
        resolveSelfImprovementConfig({
          executor: { allowlist: { timeoutMs: { min: 10, max: 5, step: 1, maxSteps: 1 } } },
        }),
      ).message,
    ).toBe("self-improvement executor.allowlist.timeoutMs: min 10 is above max 5");
    expect(
      configError(() =>
        resolveSelfImprovementConfig({
          executor: { allowlist: { retries: { min: 0, max: 1, step: 1, maxSteps: 1 } } as never },
        }),
      ).variables,
    ).toEqual(["executor.allowlist.retries"]);
  });

  it("reads the environment, naming the variable at fault", () => {
    const options = parseSelfImprovementEnvironment({
      DELIBERATE_SELF_IMPROVEMENT_MODE: "Advisory",
      DELIBERATE_SELF_IMPROVEMENT_CYCLE_MS: "60000",
      DELIBERATE_SELF_IMPROVEMENT_MIN_SAMPLES: "10",
      DELIBERATE_SELF_IMPROVEMENT_ALLOWLIST: '{"temperature":null}',
      REQUEST_TIMEOUT_MS: "30000",
      DELIBERATE_SELF_IMPROVEMENT_ANALYZER: "",
    });
    const config = resolveSelfImprovementConfig(options);
    expect(config).toMatchObject({
      mode: "advisory",
      cycleMs: 60_000,
      defaultTimeoutMs: 30_000,
      monitor: { minSamples: 10 },
      learner: { minSamples: 10 },
      analyzer: { use: "auto" },
    });
    expect(config.executor.allowlist.temperature).toBeUndefined();
    expect(
      configError(() => parseSelfImprovementEnvironment({ DELIBERATE_SELF_IMPROVEMENT_MODE: "sometimes" })).variables,
    ).toEqual(["DELIBERATE_SELF_IMPROVEMENT_MODE"]);
    expect(
      configError(() => parseSelfImprovementEnvironment({ DELIBERATE_SELF_IMPROVEMENT_CYCLE_MS: "-5" })).message,
    ).toBe('DELIBERATE_SELF_IMPROVEMENT_CYCLE_MS must be a positive integer (got "-5")');
    // Every bad variable at once, in one error.
    const several = configError(() =>
      parseSelfImprovementEnvironment({
        DELIBERATE_SELF_IMPROVEMENT_MODE: "sometimes",
        DELIBERATE_SELF_IMPROVEMENT_EMA_ALPHA: "0",
        DELIBERATE_SELF_IMPROVEMENT_WINDOW_SIZE: "1.5",
      }),
    );
    expect(several.variables).toEqual([
      "DELIBERATE_SELF_IMPROVEMENT_MODE",
      "DELIBERATE_SELF_IMPROVEMENT_WINDOW_SIZE",
      "DELIBERATE_SELF_IMPROVEMENT_EMA_ALPHA",
    ]);
    expect(several.message).toContain(
      'DELIBERATE_SELF_IMPROVEMENT_MODE must be one of auto, advisory, off (got "sometimes")',
    );
    // A combination the variables cannot express alone is named by the configuration field.
    expect(
      configError(() => parseSelfImprovementEnvironment({ DELIBERATE_SELF_IMPROVEMENT_MIN_SAMPLES: "80" })).message,
    ).toContain("monitor.minSamples");
    expect(
      configError(() => parseSelfImprovementEnvironment({ DELIBERATE_SELF_IMPROVEMENT_ALLOWLIST: "[1]" })).variables,
    ).toEqual(["DELIBERATE_SELF_IMPROVEMENT_ALLOWLIST"]);
  });

  it("parses pause durations", () => {
    expect(["90s", "30m", "2h", "1d", "1h30m", "500ms", "0", "1500"].map((text) => parseDuration(text))).toEqual([
      90_000, 1_800_000, 7_200_000, 86_400_000, 5_400_000, 500, 0, 1500,
    ]);
    expect(() => parseDuration("30 minutes")).toThrow("Not a duration: '30 minutes'.");
    expect(() => parseDuration("-1m")).toThrow();
  });
});
