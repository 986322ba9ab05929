import type { Allowlist, AllowlistEntry } from "./config.ts";
import { type AdjustableSetting, type Direction, engineScope, targetLabel } from "./types.ts";

/** A change an action proposes: one setting of one scope, from its current value to a new one. */
export interface ProposedChange {
  /** A mode id, or `engine`. */
  scope: string;
  setting: AdjustableSetting;
  from: number;
  to: number;
}

export type AllowlistVerdict = { ok: true; steps: number } | { ok: false; reason: string };

const integerSettings: ReadonlySet<AdjustableSetting> = new Set([
  "timeoutMs",
  "maxTokens",
  "thinkingBudget",
  "concurrency",
]);
/** Float slack when counting steps (0.1 + 0.2 ≠ 0.3). */
const tolerance = 1e-6;

/** Whether a setting belongs to a scope: concurrency to the engine, every other setting to a mode. */
export function settingFitsScope(scope: string, setting: AdjustableSetting): boolean {
  return (setting === "concurrency") === (scope === engineScope);
}

/** `from` moved `steps` steps in `direction`, without float noise (temperature 0.7 − 0.1 is 0.6). */
export function stepValue(entry: AllowlistEntry, from: number, direction: Direction, steps: number): number {
  const raw = from + (direction === "increase" ? 1 : -1) * steps * entry.step;
  return Math.round(raw * 1e6) / 1e6;
}

/** The most steps (≤ `wanted`, ≤ maxSteps) `from` can move in `direction` while staying in bounds; 0 when at the bound. */
export function stepsWithinBounds(entry: AllowlistEntry, from: number, direction: Direction, wanted: number): number {
  for (let steps = Math.min(wanted, entry.maxSteps); steps >= 1; steps -= 1) {
    const to = stepValue(entry, from, direction, steps);
    if (to >= entry.min - tolerance && to <= entry.max + tolerance) return steps;
  }
  return 0;
}

/**
 * Checks a change against the allowlist (design §14.7): the setting is
 * allowed, fits its scope, the new value lies within [min, max], differs from
 * the current one by a whole number of steps, and by no more than maxSteps.
 * A refusal says which rule and the figures.
 */
export function checkAllowlist(allowlist: Allowlist, change: ProposedChange): AllowlistVerdict {
  const label = targetLabel(change.scope, change.setting);
  const entry = allowlist[change.setting];
  if (!entry)
    return {
      ok: false,
      reason: `${change.setting} is not in the allowlist (allowed: ${Object.keys(allowlist).join(", ") || "nothing"})`,
    };
  if (!settingFitsScope(change.scope, change.setting)) {
    return {
      ok: false,
      reason:
        change.setting === "concurrency"
          ? `concurrency is an engine setting, not a mode's (${label})`
          : `${change.setting} is a mode's setting; the engine has none (${label})`,
    };
  }
  if (!Number.isFinite(change.to))
    return { ok: false, reason: `${label}: the new value ${change.to} is not a finite number` };
  if (integerSettings.has(change.setting) && !Number.isInteger(change.to))
    return { ok: false, reason: `${label}: ${change.setting} takes whole numbers, got ${change.to}` };
  if (change.to < entry.min - tolerance)
    return { ok: false, reason: `${label}: ${change.to} is below the allowlist minimum ${entry.min}` };
  if (change.to > entry.max + tolerance)
    return { ok: false, reason: `${label}: ${change.to} is above the allowlist maximum ${entry.max}` };
  const distance = Math.abs(change.to - change.from);
  if (distance <= tolerance)
    return { ok: false, reason: `${label}: the new value equals the current one (${change.from})` };
  const steps = distance / entry.step;
  const whole = Math.round(steps);
  if (Math.abs(steps - whole) > tolerance)
    return {
      ok: false,
      reason: `${label}: ${change.from} → ${change.to} is not a whole number of steps of ${entry.step}`,
    };
  if (whole > entry.maxSteps)
    return {
      ok: false,
      reason: `${label}: ${change.from} → ${change.to} is ${whole} steps of ${entry.step}; at most ${entry.maxSteps} per action`,
    };
  return { ok: true, steps: whole };
}
