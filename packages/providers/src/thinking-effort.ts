import type { AnthropicEffort, OpenAIEffort } from "./model-capabilities.ts";

/** A call's thinking request as an effort level: `none` (no thinking asked) to `max`. */
export type ThinkingEffort = "none" | "low" | "medium" | "high" | "xhigh" | "max";

const effortOrder: readonly ThinkingEffort[] = ["none", "low", "medium", "high", "xhigh", "max"];

/**
 * The effort a thinking budget stands for, so one per-mode setting works on
 * budget models and on effort models alike:
 * no budget → `none`; up to 2,048 tokens → `low`; up to 6,144 → `medium`;
 * up to 12,288 → `high`; more → `xhigh`. The built-in modes' budgets
 * (4,096 standard, 8,192 deep, 16,384 maximum) are medium, high and xhigh.
 */
export function effortForBudget(budget: number | undefined): ThinkingEffort {
  if (budget === undefined || budget <= 0) return "none";
  if (budget <= 2048) return "low";
  if (budget <= 6144) return "medium";
  if (budget <= 12_288) return "high";
  return "xhigh";
}

/**
 * The thinking budget an effort stands for, for budget models given only an
 * effort: low 2,048, medium 4,096, high 8,192, xhigh 16,384, max 32,000.
 */
export function budgetForEffort(effort: ThinkingEffort): number | undefined {
  const budgets: Record<ThinkingEffort, number | undefined> = {
    none: undefined,
    low: 2048,
    medium: 4096,
    high: 8192,
    xhigh: 16_384,
    max: 32_000,
  };
  return budgets[effort];
}

/**
 * Tokens to add to an answer's cap for the hidden reasoning at an effort, so
 * reasoning cannot use up the cap and leave an empty answer: none 0, minimal
 * 2,048, low 4,096, medium 8,192, high 16,384, xhigh and max 32,768 (never
 * less than the call's own thinking budget).
 */
export function reasoningAllowance(effort: ThinkingEffort | OpenAIEffort, thinkingBudget = 0): number {
  const allowances: Record<ThinkingEffort | OpenAIEffort, number> = {
    none: 0,
    minimal: 2048,
    low: 4096,
    medium: 8192,
    high: 16_384,
    xhigh: 32_768,
    max: 32_768,
  };
  return Math.max(allowances[effort], Math.max(0, Math.floor(thinkingBudget)));
}

/**
 * The level a model accepts closest to `wanted`: the highest accepted level
 * not above it, else the lowest accepted one; undefined when it accepts none.
 */
export function closestEffort<Level extends string>(
  wanted: ThinkingEffort,
  accepted: readonly Level[],
  order: readonly string[] = effortOrder,
): Level | undefined {
  const rank = (level: string) => {
    const index = order.indexOf(level);
    return index === -1 ? effortOrder.indexOf(level as ThinkingEffort) : index;
  };
  const target = rank(wanted);
  const sorted = [...accepted].sort((a, b) => rank(a) - rank(b));
  const below = sorted.filter((level) => rank(level) <= target);
  return below.at(-1) ?? sorted[0];
}

/** The Anthropic effort for a call, or undefined to send none. */
export function anthropicEffortFor(
  wanted: ThinkingEffort,
  accepted: readonly AnthropicEffort[],
): AnthropicEffort | undefined {
  if (accepted.length === 0) return undefined;
  // `none` on a model that thinks anyway: the least effort it takes.
  return closestEffort(wanted === "none" ? "low" : wanted, accepted);
}

/** OpenAI's order of efforts, `minimal` between `none` and `low`. */
const openaiOrder: readonly string[] = ["none", "minimal", "low", "medium", "high", "xhigh", "max"];

/** The OpenAI `reasoning_effort` for a call: the lowest the model takes when no thinking is asked. */
export function openaiEffortFor(wanted: ThinkingEffort, accepted: readonly OpenAIEffort[]): OpenAIEffort | undefined {
  if (accepted.length === 0) return undefined;
  if (wanted === "none") return [...accepted].sort((a, b) => openaiOrder.indexOf(a) - openaiOrder.indexOf(b))[0];
  return closestEffort(wanted, accepted, openaiOrder);
}
