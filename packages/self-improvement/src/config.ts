import { ConfigError } from "@deliberate/base";
import { defineModuleEnvironment, readEnvironmentVariables } from "@deliberate/engine";
import { z } from "zod";
import { defaultRequestTimeoutMs } from "@deliberate/providers";
import {
  type AdjustableSetting,
  type AnalyzerChoice,
  adjustableSettings,
  analyzerChoices,
  type LoopMode,
  loopModes,
  type Severity,
  severities,
} from "./types.ts";

/**
 * How far one setting may move: values stay within [min, max], and one action
 * moves it by a whole number of steps, at most `maxSteps`.
 */
export interface AllowlistEntry {
  min: number;
  max: number;
  step: number;
  maxSteps: number;
}

/** The settings actions may change, with their bounds; a setting absent here is never changed. */
export type Allowlist = Partial<Record<AdjustableSetting, AllowlistEntry>>;

export interface MonitorConfig {
  /** Weight of the newest chunk in the baseline's exponential moving average (0 < α ≤ 1). */
  alpha: number;
  /** The current window: a tool's most recent calls, at most this many (also the baseline's chunk size). */
  windowSize: number;
  /** ...and no older than this. */
  windowMs: number;
  /** Fewest calls in the window and in the baseline before a tool is judged. */
  minSamples: number;
  /** How far back the baseline reaches. */
  lookbackMs: number;
  /** Most invocation rows read per cycle (newest kept). */
  maxRows: number;
  /** Tools left out (their rows are neither baselined nor judged). */
  excludeTools: string[];
  /**
   * Smallest absolute change that counts, per metric, however large in
   * percent: error and repair rates (fractions), p95 latency (ms), quality.
   */
  floors: { errorRate: number; latencyMs: number; quality: number; repairRate: number };
}

export interface AnalyzerConfig {
  use: AnalyzerChoice;
  /** Triggers below this severity are reported but not acted on. */
  minSeverity: Severity;
  /** Most open items (diagnoses awaiting approval plus actions being measured) before analysis pauses. */
  maxPending: number;
  /** A "no action" diagnosis silences the same tool and metric for this long. */
  noActionRevisitMs: number;
  /** How long a lesson (a measured outcome, an operator's rejection) steers the analysis. */
  lessonTtlMs: number;
  /** Most lessons given to one analysis. */
  maxLessons: number;
  /** A diagnosis awaiting approval expires after this long. */
  pendingTtlMs: number;
}

export interface ExecutorConfig {
  /** No action is applied sooner than this after the previous one. */
  cooldownMs: number;
  maxActionsPerHour: number;
  allowlist: Allowlist;
}

export interface LearnerConfig {
  /** Calls needed after an action (and before it) to measure it. */
  minSamples: number;
  /** Most calls compared on each side. */
  maxSamples: number;
  /** Not enough calls after this long: the action is kept, marked inconclusive. */
  maxWaitMs: number;
  /** |reward| at or beyond which an action counts as improving (or, negative, regressing). */
  rewardThreshold: number;
  /** Confidence is n / (n + this), n the smaller side's sample count (0.5 at this many calls). */
  confidenceHalfSamples: number;
}

export interface CircuitBreakerConfig {
  failureThreshold: number;
  resetTimeoutMs: number;
  successThreshold: number;
}

export interface LeaseConfig {
  /** The lease row's name: one leader per name per database. */
  name: string;
  /** How long a lease lasts unless renewed (renewed at every cycle). */
  durationMs: number;
}

/** The whole configuration of the loop (every field has a default; see `defaultSelfImprovementConfig`). */
export interface SelfImprovementConfig {
  mode: LoopMode;
  /** Milliseconds between cycles. */
  cycleMs: number;
  /** Milliseconds between reloads of the overrides from the database (changes made by another process or the CLI). */
  syncMs: number;
  /** The per-request timeout the provider uses when a mode sets none (REQUEST_TIMEOUT_MS). */
  defaultTimeoutMs: number;
  monitor: MonitorConfig;
  analyzer: AnalyzerConfig;
  executor: ExecutorConfig;
  learner: LearnerConfig;
  circuitBreaker: CircuitBreakerConfig;
  lease: LeaseConfig;
}

type DeepPartial<T> = {
  [K in keyof T]?: T[K] extends readonly unknown[] ? T[K] : T[K] extends object ? DeepPartial<T[K]> : T[K];
};

/** Options of `createSelfImprovementModule`: any part of the configuration; the allowlist replaces the default one setting by setting. */
export type SelfImprovementOptions = DeepPartial<Omit<SelfImprovementConfig, "executor">> & {
  executor?: Partial<Omit<ExecutorConfig, "allowlist">> & {
    allowlist?: Partial<Record<AdjustableSetting, AllowlistEntry | null>>;
  };
};

const minute = 60_000;
const hour = 60 * minute;
const day = 24 * hour;

/**
 * The default allowlist: bounded changes to a mode's timeout, answer length,
 * thinking budget and temperature, and to the engine's concurrency.
 */
export const defaultAllowlist: Allowlist = {
  timeoutMs: { min: 5_000, max: 300_000, step: 15_000, maxSteps: 2 },
  maxTokens: { min: 500, max: 16_000, step: 500, maxSteps: 2 },
  thinkingBudget: { min: 1_024, max: 32_000, step: 1_024, maxSteps: 2 },
  temperature: { min: 0, max: 1, step: 0.1, maxSteps: 2 },
  concurrency: { min: 1, max: 16, step: 1, maxSteps: 2 },
};

export const defaultSelfImprovementConfig: SelfImprovementConfig = {
  mode: "auto",
  cycleMs: 5 * minute,
  syncMs: 10_000,
  defaultTimeoutMs: defaultRequestTimeoutMs,
  monitor: {
    alpha: 0.3,
    windowSize: 50,
    windowMs: hour,
    minSamples: 20,
    lookbackMs: 7 * day,
    maxRows: 20_000,
    excludeTools: [],
    floors: { errorRate: 0.05, latencyMs: 100, quality: 0.05, repairRate: 0.05 },
  },
  analyzer: {
    use: "auto",
    minSeverity: "high",
    maxPending: 3,
    noActionRevisitMs: hour,
    lessonTtlMs: 7 * day,
    maxLessons: 10,
    pendingTtlMs: day,
  },
  executor: { cooldownMs: 10 * minute, maxActionsPerHour: 3, allowlist: defaultAllowlist },
  learner: { minSamples: 20, maxSamples: 200, maxWaitMs: day, rewardThreshold: 0.05, confidenceHalfSamples: 10 },
  circuitBreaker: { failureThreshold: 3, resetTimeoutMs: 5 * minute, successThreshold: 2 },
  lease: { name: "self-improvement", durationMs: 15 * minute },
};

function fail(field: string, message: string): never {
  throw new ConfigError(`self-improvement ${field}: ${message}`, [field]);
}

function positive(value: number, field: string, integer = true): number {
  if (!Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value)))
    fail(field, `must be a positive ${integer ? "integer" : "number"}, got ${value}`);
  return value;
}

function checkEntry(setting: AdjustableSetting, entry: AllowlistEntry): AllowlistEntry {
  const field = `executor.allowlist.${setting}`;
  for (const key of ["min", "max", "step", "maxSteps"] as const) {
    if (typeof entry[key] !== "number" || !Number.isFinite(entry[key]))
      fail(`${field}.${key}`, `must be a finite number, got ${String(entry[key])}`);
  }
  if (entry.min > entry.max) fail(field, `min ${entry.min} is above max ${entry.max}`);
  if (entry.min < 0) fail(`${field}.min`, `must be 0 or more, got ${entry.min}`);
  positive(entry.step, `${field}.step`, setting !== "temperature");
  positive(entry.maxSteps, `${field}.maxSteps`);
  if (setting === "concurrency" && entry.min < 1) fail(`${field}.min`, "concurrency is at least 1");
  return { ...entry };
}

/** The configuration with defaults filled in; a bad value throws ConfigError naming the field. */
export function resolveSelfImprovementConfig(options: SelfImprovementOptions = {}): SelfImprovementConfig {
  const base = defaultSelfImprovementConfig;
  const allowlist: Allowlist = { ...base.executor.allowlist };
  for (const [setting, entry] of Object.entries(options.executor?.allowlist ?? {})) {
    if (!(adjustableSettings as readonly string[]).includes(setting))
      fail(`executor.allowlist.${setting}`, `is not an adjustable setting (${adjustableSettings.join(", ")})`);
    if (entry === null) delete allowlist[setting as AdjustableSetting];
    else if (entry !== undefined)
      allowlist[setting as AdjustableSetting] = checkEntry(setting as AdjustableSetting, entry);
  }
  const cycleMs = options.cycleMs ?? base.cycleMs;
  const config: SelfImprovementConfig = {
    mode: options.mode ?? base.mode,
    cycleMs,
    syncMs: options.syncMs ?? base.syncMs,
    defaultTimeoutMs: options.defaultTimeoutMs ?? base.defaultTimeoutMs,
    monitor: {
      ...base.monitor,
      ...options.monitor,
      floors: { ...base.monitor.floors, ...options.monitor?.floors },
      excludeTools: [...(options.monitor?.excludeTools ?? base.monitor.excludeTools)],
    },
    analyzer: { ...base.analyzer, ...options.analyzer },
    executor: { ...base.executor, ...options.executor, allowlist },
    learner: { ...base.learner, ...options.learner },
    circuitBreaker: { ...base.circuitBreaker, ...options.circuitBreaker },
    // A lease outlives a few missed cycles of a live leader, and no more.
    lease: {
      name: options.lease?.name ?? base.lease.name,
      durationMs: options.lease?.durationMs ?? Math.max(3 * cycleMs, minute),
    },
  };
  if (!(loopModes as readonly string[]).includes(config.mode))
    fail("mode", `must be one of ${loopModes.join(", ")}, got ${config.mode}`);
  if (!(analyzerChoices as readonly string[]).includes(config.analyzer.use))
    fail("analyzer.use", `must be one of ${analyzerChoices.join(", ")}, got ${config.analyzer.use}`);
  if (!(severities as readonly string[]).includes(config.analyzer.minSeverity))
    fail("analyzer.minSeverity", `must be one of ${severities.join(", ")}, got ${config.analyzer.minSeverity}`);
  positive(config.cycleMs, "cycleMs");
  positive(config.syncMs, "syncMs");
  positive(config.defaultTimeoutMs, "defaultTimeoutMs");
  if (!(config.monitor.alpha > 0 && config.monitor.alpha <= 1))
    fail("monitor.alpha", `must be in (0, 1], got ${config.monitor.alpha}`);
  positive(config.monitor.windowSize, "monitor.windowSize");
  positive(config.monitor.windowMs, "monitor.windowMs");
  positive(config.monitor.minSamples, "monitor.minSamples");
  if (config.monitor.minSamples > config.monitor.windowSize)
    fail(
      "monitor.minSamples",
      `(${config.monitor.minSamples}) cannot exceed monitor.windowSize (${config.monitor.windowSize})`,
    );
  positive(config.monitor.lookbackMs, "monitor.lookbackMs");
  positive(config.monitor.maxRows, "monitor.maxRows");
  for (const [key, value] of Object.entries(config.monitor.floors)) {
    if (!Number.isFinite(value) || value < 0) fail(`monitor.floors.${key}`, `must be 0 or more, got ${value}`);
  }
  positive(config.analyzer.maxPending, "analyzer.maxPending");
  positive(config.analyzer.noActionRevisitMs, "analyzer.noActionRevisitMs");
  positive(config.analyzer.lessonTtlMs, "analyzer.lessonTtlMs");
  positive(config.analyzer.maxLessons, "analyzer.maxLessons");
  positive(config.analyzer.pendingTtlMs, "analyzer.pendingTtlMs");
  if (!Number.isInteger(config.executor.cooldownMs) || config.executor.cooldownMs < 0)
    fail("executor.cooldownMs", `must be 0 or a positive integer, got ${config.executor.cooldownMs}`);
  positive(config.executor.maxActionsPerHour, "executor.maxActionsPerHour");
  positive(config.learner.minSamples, "learner.minSamples");
  positive(config.learner.maxSamples, "learner.maxSamples");
  if (config.learner.maxSamples < config.learner.minSamples)
    fail(
      "learner.maxSamples",
      `(${config.learner.maxSamples}) is below learner.minSamples (${config.learner.minSamples})`,
    );
  positive(config.learner.maxWaitMs, "learner.maxWaitMs");
  if (!(config.learner.rewardThreshold > 0 && config.learner.rewardThreshold < 1))
    fail("learner.rewardThreshold", `must be in (0, 1), got ${config.learner.rewardThreshold}`);
  positive(config.learner.confidenceHalfSamples, "learner.confidenceHalfSamples");
  positive(config.circuitBreaker.failureThreshold, "circuitBreaker.failureThreshold");
  positive(config.circuitBreaker.resetTimeoutMs, "circuitBreaker.resetTimeoutMs");
  positive(config.circuitBreaker.successThreshold, "circuitBreaker.successThreshold");
  positive(config.lease.durationMs, "lease.durationMs");
  if (config.lease.name.trim() === "") fail("lease.name", "must not be empty");
  return config;
}

const positiveInteger = z
  .string()
  .refine(
    (text) => /^\d+$/.test(text) && Number.isSafeInteger(Number(text)) && Number(text) > 0,
    "must be a positive integer",
  )
  .transform(Number)
  .optional();
const positiveNumber = z
  .string()
  .refine((text) => text !== "" && Number.isFinite(Number(text)) && Number(text) > 0, "must be a positive number")
  .transform(Number)
  .optional();
const oneOf = <T extends string>(allowed: readonly T[]) =>
  z
    .string()
    .transform((text) => text.toLowerCase())
    .refine((text) => (allowed as readonly string[]).includes(text), `must be one of ${allowed.join(", ")}`)
    .transform((text) => text as T)
    .optional();
const allowlistJson = z
  .string()
  .transform((text, context) => {
    try {
      const parsed: unknown = JSON.parse(text);
      if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed))
        return parsed as Partial<Record<AdjustableSetting, AllowlistEntry | null>>;
      context.addIssue({
        code: "custom",
        message: "must be a JSON object of setting -> {min, max, step, maxSteps} or null: not a JSON object",
      });
    } catch (error) {
      context.addIssue({
        code: "custom",
        message: `must be a JSON object of setting -> {min, max, step, maxSteps} or null: ${(error as Error).message}`,
      });
    }
    return z.NEVER;
  })
  .optional();

const defaults = defaultSelfImprovementConfig;

/**
 * The loop's options from the environment, declared with the module (`DeliberateModule`'s environment): the runtime
 * reads these variables with the service's own, so a bad one is named in the service's one `ConfigError`.
 */
export const selfImprovementEnvironment = defineModuleEnvironment<SelfImprovementOptions>({
  module: "self-improvement",
  variables: [
    {
      name: "DELIBERATE_SELF_IMPROVEMENT_MODE",
      description: "auto (default), advisory or off",
      default: defaults.mode,
      schema: oneOf(loopModes),
    },
    {
      name: "DELIBERATE_SELF_IMPROVEMENT_CYCLE_MS",
      description: "milliseconds between cycles",
      default: defaults.cycleMs,
      schema: positiveInteger,
    },
    {
      name: "DELIBERATE_SELF_IMPROVEMENT_ANALYZER",
      description: "auto (the model when the server has one), model or rules",
      default: defaults.analyzer.use,
      schema: oneOf(analyzerChoices),
    },
    {
      name: "DELIBERATE_SELF_IMPROVEMENT_MIN_SEVERITY",
      description: "warning, high or critical",
      default: defaults.analyzer.minSeverity,
      schema: oneOf(severities),
    },
    {
      name: "DELIBERATE_SELF_IMPROVEMENT_MIN_SAMPLES",
      description: "calls needed in the window, the baseline and after an action",
      default: defaults.monitor.minSamples,
      schema: positiveInteger,
    },
    {
      name: "DELIBERATE_SELF_IMPROVEMENT_WINDOW_SIZE",
      description: "the current window's size in calls",
      default: defaults.monitor.windowSize,
      schema: positiveInteger,
    },
    {
      name: "DELIBERATE_SELF_IMPROVEMENT_EMA_ALPHA",
      description: "the baseline EMA's α",
      default: defaults.monitor.alpha,
      schema: positiveNumber,
    },
    {
      name: "DELIBERATE_SELF_IMPROVEMENT_COOLDOWN_MS",
      description: "milliseconds between two actions",
      default: defaults.executor.cooldownMs,
      schema: positiveInteger,
    },
    {
      name: "DELIBERATE_SELF_IMPROVEMENT_MAX_ACTIONS_PER_HOUR",
      description: "actions per hour",
      default: defaults.executor.maxActionsPerHour,
      schema: positiveInteger,
    },
    {
      name: "DELIBERATE_SELF_IMPROVEMENT_ALLOWLIST",
      description:
        'JSON replacing allowlist entries, e.g. {"timeoutMs":{"min":5000,"max":120000,"step":10000,"maxSteps":2},"temperature":null}',
      schema: allowlistJson,
    },
    {
      name: "REQUEST_TIMEOUT_MS",
      description: "the providers' per-request timeout: the timeout of a mode that sets none",
      default: defaults.defaultTimeoutMs,
      schema: positiveInteger,
    },
  ],
  toOptions(values) {
    const value = <T>(name: string) => values[name] as T | undefined;
    const only = <K extends string, T>(key: K, found: T | undefined): Partial<Record<K, T>> =>
      found === undefined ? {} : ({ [key]: found } as Record<K, T>);
    const minSamples = value<number>("DELIBERATE_SELF_IMPROVEMENT_MIN_SAMPLES");
    const options: SelfImprovementOptions = {
      ...only("mode", value<LoopMode>("DELIBERATE_SELF_IMPROVEMENT_MODE")),
      ...only("cycleMs", value<number>("DELIBERATE_SELF_IMPROVEMENT_CYCLE_MS")),
      ...only("defaultTimeoutMs", value<number>("REQUEST_TIMEOUT_MS")),
      monitor: {
        ...only("minSamples", minSamples),
        ...only("windowSize", value<number>("DELIBERATE_SELF_IMPROVEMENT_WINDOW_SIZE")),
        ...only("alpha", value<number>("DELIBERATE_SELF_IMPROVEMENT_EMA_ALPHA")),
      },
      analyzer: {
        ...only("use", value<AnalyzerChoice>("DELIBERATE_SELF_IMPROVEMENT_ANALYZER")),
        ...only("minSeverity", value<Severity>("DELIBERATE_SELF_IMPROVEMENT_MIN_SEVERITY")),
      },
      executor: {
        ...only("cooldownMs", value<number>("DELIBERATE_SELF_IMPROVEMENT_COOLDOWN_MS")),
        ...only("maxActionsPerHour", value<number>("DELIBERATE_SELF_IMPROVEMENT_MAX_ACTIONS_PER_HOUR")),
        ...only(
          "allowlist",
          value<Partial<Record<AdjustableSetting, AllowlistEntry | null>>>("DELIBERATE_SELF_IMPROVEMENT_ALLOWLIST"),
        ),
      },
      learner: only("minSamples", minSamples),
    };
    try {
      resolveSelfImprovementConfig(options);
    } catch (error) {
      if (error instanceof ConfigError)
        throw new ConfigError(`${error.message} (from the DELIBERATE_SELF_IMPROVEMENT_* environment)`, error.variables);
      throw error;
    }
    return options;
  },
});

/**
 * The loop's options from the environment on their own (the CLI's; the services read `selfImprovementEnvironment`
 * through the runtime). Throws one ConfigError naming every bad variable.
 */
export function parseSelfImprovementEnvironment(
  env: Readonly<Record<string, string | undefined>>,
): SelfImprovementOptions {
  const { values, problems } = readEnvironmentVariables(env, selfImprovementEnvironment.variables);
  const [first] = problems;
  if (first !== undefined && problems.length === 1) throw new ConfigError(first.message, [...first.variables]);
  if (problems.length > 1) {
    throw new ConfigError(
      `Invalid configuration: ${problems.map((problem) => problem.message).join("; ")}.`,
      problems.flatMap((problem) => problem.variables),
    );
  }
  return selfImprovementEnvironment.toOptions(values);
}
