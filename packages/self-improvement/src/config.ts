import { ConfigError } from "@deliberate/base";
import { defaultRequestTimeoutMs } from "@deliberate/providers";
import { type AdjustableSetting, type AnalyzerChoice, adjustableSettings, analyzerChoices, type LoopMode, loopModes, type Severity, severities } from "./types.ts";

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

type DeepPartial<T> = { [K in keyof T]?: T[K] extends readonly unknown[] ? T[K] : T[K] extends object ? DeepPartial<T[K]> : T[K] };

/** Options of `createSelfImprovementModule`: any part of the configuration; the allowlist replaces the default one setting by setting. */
export type SelfImprovementOptions = DeepPartial<Omit<SelfImprovementConfig, "executor">> & {
  executor?: Partial<Omit<ExecutorConfig, "allowlist">> & { allowlist?: Partial<Record<AdjustableSetting, AllowlistEntry | null>> };
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
  analyzer: { use: "auto", minSeverity: "high", maxPending: 3, noActionRevisitMs: hour, lessonTtlMs: 7 * day, maxLessons: 10, pendingTtlMs: day },
  executor: { cooldownMs: 10 * minute, maxActionsPerHour: 3, allowlist: defaultAllowlist },
  learner: { minSamples: 20, maxSamples: 200, maxWaitMs: day, rewardThreshold: 0.05, confidenceHalfSamples: 10 },
  circuitBreaker: { failureThreshold: 3, resetTimeoutMs: 5 * minute, successThreshold: 2 },
  lease: { name: "self-improvement", durationMs: 15 * minute },
};

function fail(field: string, message: string): never {
  throw new ConfigError(`self-improvement ${field}: ${message}`, [field]);
}

function positive(value: number, field: string, integer = true): number {
  if (!Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value))) fail(field, `must be a positive ${integer ? "integer" : "number"}, got ${value}`);
  return value;
}

function checkEntry(setting: AdjustableSetting, entry: AllowlistEntry): AllowlistEntry {
  const field = `executor.allowlist.${setting}`;
  for (const key of ["min", "max", "step", "maxSteps"] as const) {
    if (typeof entry[key] !== "number" || !Number.isFinite(entry[key])) fail(`${field}.${key}`, `must be a finite number, got ${String(entry[key])}`);
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
    if (!(adjustableSettings as readonly string[]).includes(setting)) fail(`executor.allowlist.${setting}`, `is not an adjustable setting (${adjustableSettings.join(", ")})`);
    if (entry === null) delete allowlist[setting as AdjustableSetting];
    else if (entry !== undefined) allowlist[setting as AdjustableSetting] = checkEntry(setting as AdjustableSetting, entry);
  }
  const cycleMs = options.cycleMs ?? base.cycleMs;
  const config: SelfImprovementConfig = {
    mode: options.mode ?? base.mode,
    cycleMs,
    syncMs: options.syncMs ?? base.syncMs,
    defaultTimeoutMs: options.defaultTimeoutMs ?? base.defaultTimeoutMs,
    monitor: { ...base.monitor, ...options.monitor, floors: { ...base.monitor.floors, ...options.monitor?.floors }, excludeTools: [...(options.monitor?.excludeTools ?? base.monitor.excludeTools)] },
    analyzer: { ...base.analyzer, ...options.analyzer },
    executor: { ...base.executor, ...options.executor, allowlist },
    learner: { ...base.learner, ...options.learner },
    circuitBreaker: { ...base.circuitBreaker, ...options.circuitBreaker },
    // A lease outlives a few missed cycles of a live leader, and no more.
    lease: { name: options.lease?.name ?? base.lease.name, durationMs: options.lease?.durationMs ?? Math.max(3 * cycleMs, minute) },
  };
  if (!(loopModes as readonly string[]).includes(config.mode)) fail("mode", `must be one of ${loopModes.join(", ")}, got ${config.mode}`);
  if (!(analyzerChoices as readonly string[]).includes(config.analyzer.use)) fail("analyzer.use", `must be one of ${analyzerChoices.join(", ")}, got ${config.analyzer.use}`);
  if (!(severities as readonly string[]).includes(config.analyzer.minSeverity)) fail("analyzer.minSeverity", `must be one of ${severities.join(", ")}, got ${config.analyzer.minSeverity}`);
  positive(config.cycleMs, "cycleMs");
  positive(config.syncMs, "syncMs");
  positive(config.defaultTimeoutMs, "defaultTimeoutMs");
  if (!(config.monitor.alpha > 0 && config.monitor.alpha <= 1)) fail("monitor.alpha", `must be in (0, 1], got ${config.monitor.alpha}`);
  positive(config.monitor.windowSize, "monitor.windowSize");
  positive(config.monitor.windowMs, "monitor.windowMs");
  positive(config.monitor.minSamples, "monitor.minSamples");
  if (config.monitor.minSamples > config.monitor.windowSize) fail("monitor.minSamples", `(${config.monitor.minSamples}) cannot exceed monitor.windowSize (${config.monitor.windowSize})`);
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
  if (!Number.isInteger(config.executor.cooldownMs) || config.executor.cooldownMs < 0) fail("executor.cooldownMs", `must be 0 or a positive integer, got ${config.executor.cooldownMs}`);
  positive(config.executor.maxActionsPerHour, "executor.maxActionsPerHour");
  positive(config.learner.minSamples, "learner.minSamples");
  positive(config.learner.maxSamples, "learner.maxSamples");
  if (config.learner.maxSamples < config.learner.minSamples) fail("learner.maxSamples", `(${config.learner.maxSamples}) is below learner.minSamples (${config.learner.minSamples})`);
  positive(config.learner.maxWaitMs, "learner.maxWaitMs");
  if (!(config.learner.rewardThreshold > 0 && config.learner.rewardThreshold < 1)) fail("learner.rewardThreshold", `must be in (0, 1), got ${config.learner.rewardThreshold}`);
  positive(config.learner.confidenceHalfSamples, "learner.confidenceHalfSamples");
  positive(config.circuitBreaker.failureThreshold, "circuitBreaker.failureThreshold");
  positive(config.circuitBreaker.resetTimeoutMs, "circuitBreaker.resetTimeoutMs");
  positive(config.circuitBreaker.successThreshold, "circuitBreaker.successThreshold");
  positive(config.lease.durationMs, "lease.durationMs");
  if (config.lease.name.trim() === "") fail("lease.name", "must not be empty");
  return config;
}

/** Environment variables read by `parseSelfImprovementEnvironment`, with what they set. */
export const selfImprovementEnvironment = {
  DELIBERATE_SELF_IMPROVEMENT_MODE: "mode: auto (default), advisory or off",
  DELIBERATE_SELF_IMPROVEMENT_CYCLE_MS: "milliseconds between cycles (300000)",
  DELIBERATE_SELF_IMPROVEMENT_ANALYZER: "auto (the model when the server has one, default), model or rules",
  DELIBERATE_SELF_IMPROVEMENT_MIN_SEVERITY: "warning, high (default) or critical",
  DELIBERATE_SELF_IMPROVEMENT_MIN_SAMPLES: "calls needed in the window, the baseline and after an action (20)",
  DELIBERATE_SELF_IMPROVEMENT_WINDOW_SIZE: "the current window's size in calls (50)",
  DELIBERATE_SELF_IMPROVEMENT_EMA_ALPHA: "the baseline EMA's α (0.3)",
  DELIBERATE_SELF_IMPROVEMENT_COOLDOWN_MS: "milliseconds between two actions (600000)",
  DELIBERATE_SELF_IMPROVEMENT_MAX_ACTIONS_PER_HOUR: "actions per hour (3)",
  DELIBERATE_SELF_IMPROVEMENT_ALLOWLIST: 'JSON replacing allowlist entries, e.g. {"timeoutMs":{"min":5000,"max":120000,"step":10000,"maxSteps":2},"temperature":null}',
  REQUEST_TIMEOUT_MS: "the providers' per-request timeout: the timeout of a mode that sets none (60000)",
} as const;

/**
 * The loop's options from the environment (variables above; empty counts as
 * unset). Throws ConfigError naming the variable.
 */
export function parseSelfImprovementEnvironment(env: Readonly<Record<string, string | undefined>>): SelfImprovementOptions {
  const read = (name: keyof typeof selfImprovementEnvironment) => {
    const value = env[name]?.trim();
    return value === undefined || value === "" ? undefined : value;
  };
  const number = (name: keyof typeof selfImprovementEnvironment, integer = true): number | undefined => {
    const value = read(name);
    if (value === undefined) return undefined;
    const parsed = Number(value);
    if (!Number.isFinite(parsed) || parsed <= 0 || (integer && !Number.isInteger(parsed))) {
      throw new ConfigError(`${name} must be a positive ${integer ? "integer" : "number"}, got '${value}'`, [name]);
    }
    return parsed;
  };
  const choice = <T extends string>(name: keyof typeof selfImprovementEnvironment, allowed: readonly T[]): T | undefined => {
    const value = read(name)?.toLowerCase();
    if (value === undefined) return undefined;
    if (!(allowed as readonly string[]).includes(value)) throw new ConfigError(`${name} must be one of ${allowed.join(", ")}, got '${value}'`, [name]);
    return value as T;
  };
  let allowlist: Partial<Record<AdjustableSetting, AllowlistEntry | null>> | undefined;
  const allowlistText = read("DELIBERATE_SELF_IMPROVEMENT_ALLOWLIST");
  if (allowlistText !== undefined) {
    try {
      const parsed: unknown = JSON.parse(allowlistText);
      if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new Error("not a JSON object");
      allowlist = parsed as Partial<Record<AdjustableSetting, AllowlistEntry | null>>;
    } catch (error) {
      throw new ConfigError(`DELIBERATE_SELF_IMPROVEMENT_ALLOWLIST must be a JSON object of setting -> {min, max, step, maxSteps} or null: ${(error as Error).message}`, [
        "DELIBERATE_SELF_IMPROVEMENT_ALLOWLIST",
      ]);
    }
  }
  const minSamples = number("DELIBERATE_SELF_IMPROVEMENT_MIN_SAMPLES");
  const options: SelfImprovementOptions = {
    ...(choice("DELIBERATE_SELF_IMPROVEMENT_MODE", loopModes) !== undefined ? { mode: choice("DELIBERATE_SELF_IMPROVEMENT_MODE", loopModes) as LoopMode } : {}),
    ...(number("DELIBERATE_SELF_IMPROVEMENT_CYCLE_MS") !== undefined ? { cycleMs: number("DELIBERATE_SELF_IMPROVEMENT_CYCLE_MS") as number } : {}),
    ...(number("REQUEST_TIMEOUT_MS") !== undefined ? { defaultTimeoutMs: number("REQUEST_TIMEOUT_MS") as number } : {}),
    monitor: {
      ...(minSamples !== undefined ? { minSamples } : {}),
      ...(number("DELIBERATE_SELF_IMPROVEMENT_WINDOW_SIZE") !== undefined ? { windowSize: number("DELIBERATE_SELF_IMPROVEMENT_WINDOW_SIZE") as number } : {}),
      ...(number("DELIBERATE_SELF_IMPROVEMENT_EMA_ALPHA", false) !== undefined ? { alpha: number("DELIBERATE_SELF_IMPROVEMENT_EMA_ALPHA", false) as number } : {}),
    },
    analyzer: {
      ...(choice("DELIBERATE_SELF_IMPROVEMENT_ANALYZER", analyzerChoices) !== undefined ? { use: choice("DELIBERATE_SELF_IMPROVEMENT_ANALYZER", analyzerChoices) as AnalyzerChoice } : {}),
      ...(choice("DELIBERATE_SELF_IMPROVEMENT_MIN_SEVERITY", severities) !== undefined ? { minSeverity: choice("DELIBERATE_SELF_IMPROVEMENT_MIN_SEVERITY", severities) as Severity } : {}),
    },
    executor: {
      ...(read("DELIBERATE_SELF_IMPROVEMENT_COOLDOWN_MS") !== undefined ? { cooldownMs: number("DELIBERATE_SELF_IMPROVEMENT_COOLDOWN_MS") as number } : {}),
      ...(number("DELIBERATE_SELF_IMPROVEMENT_MAX_ACTIONS_PER_HOUR") !== undefined ? { maxActionsPerHour: number("DELIBERATE_SELF_IMPROVEMENT_MAX_ACTIONS_PER_HOUR") as number } : {}),
      ...(allowlist !== undefined ? { allowlist } : {}),
    },
    learner: minSamples !== undefined ? { minSamples } : {},
  };
  try {
    resolveSelfImprovementConfig(options);
  } catch (error) {
    if (error instanceof ConfigError) throw new ConfigError(`${error.message} (from the DELIBERATE_SELF_IMPROVEMENT_* environment)`, error.variables);
    throw error;
  }
  return options;
}
