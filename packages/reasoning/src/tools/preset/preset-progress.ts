import type { ProgressUpdate } from "@deliberate/engine";
import type { ReasoningContext } from "../../define-handler.ts";
import type { PresetStep } from "./preset-definition.ts";

/** A step's fraction done while it runs stays below 1, so its completion is always a visible step forward. */
const runningCeiling = 0.95;

/** The progress of a preset run, reported through `context.progress`. */
export interface PresetProgress {
  /** The progress callback for a running step's own tool call (its updates scaled into the step's share). */
  forStep(step: PresetStep): (update: ProgressUpdate) => void;
  /** Counts a finished step as wholly done. */
  completed(step: PresetStep): void;
}

/**
 * Progress as the sum of the steps' fractions done (total = steps): each step keeps its highest fraction, and only
 * a higher sum is reported, since progress notifications must increase.
 */
export function createPresetProgress(
  context: Pick<ReasoningContext, "progress">,
  steps: readonly PresetStep[],
): PresetProgress {
  const fractions = new Map<string, number>(steps.map((step) => [step.id, 0]));
  let reported = 0;
  const report = (stepId: string, fraction: number, message: string): void => {
    fractions.set(stepId, Math.max(fractions.get(stepId) ?? 0, fraction));
    const progress = [...fractions.values()].reduce((total, value) => total + value, 0);
    if (progress <= reported) return;
    reported = progress;
    context.progress({ progress, total: steps.length, message });
  };
  return {
    forStep: (step) => (update) => {
      if (update.total === undefined || update.total <= 0) return;
      const fraction = Math.min(update.progress / update.total, 1) * runningCeiling;
      report(step.id, fraction, `${step.id}: ${update.message ?? `${update.progress}/${update.total}`}`);
    },
    completed: (step) => report(step.id, 1, `step ${step.id} (${step.tool}) completed`),
  };
}
