/** Severity of a deviation from baseline (design §14.2): ≥ 25 % warning, ≥ 50 % high, ≥ 100 % critical. */
export const severities = ["info", "warning", "high", "critical"] as const;
export type Severity = (typeof severities)[number];

/** What the monitor watches, per tool (and per mode, for display). */
export const metricNames = ["error_rate", "latency_p95", "quality", "repair_rate"] as const;
export type MetricName = (typeof metricNames)[number];

/** Settings an action may change: a mode's model settings, or the engine's concurrency. */
export const adjustableSettings = ["timeoutMs", "maxTokens", "thinkingBudget", "temperature", "concurrency"] as const;
export type AdjustableSetting = (typeof adjustableSettings)[number];

/** The engine-wide scope (the only setting there is `concurrency`); a mode's scope is its id. */
export const engineScope = "engine";

export type Direction = "increase" | "decrease";

/** How the loop acts: apply within the allowlist, record for approval, or take no new action. */
export const loopModes = ["auto", "advisory", "off"] as const;
export type LoopMode = (typeof loopModes)[number];

/** Which analyzer diagnoses: the model when one is configured on the server (`auto`), always the model, or the rules. */
export const analyzerChoices = ["auto", "model", "rules"] as const;
export type AnalyzerChoice = (typeof analyzerChoices)[number];

/** `linear.timeoutMs`, `engine.concurrency`: how a setting is named in messages, the CLI and the API. */
export function targetLabel(scope: string, setting: string): string {
  return `${scope}.${setting}`;
}

/** 0 for info up to 3 for critical. */
export function severityRank(severity: Severity): number {
  return severities.indexOf(severity);
}

/** One invocation row as the loop reads it. */
export interface InvocationSample {
  id: string;
  tool: string;
  operation: string | null;
  success: boolean;
  error_code: string | null;
  error_message: string | null;
  latency_ms: number;
  quality: number | null;
  model_calls: number;
  /** When the call finished (recorded). */
  created_at: string;
  /** When the call started: it ran under the settings in force then, and is ordered and attributed by it. */
  started_at: string;
}
