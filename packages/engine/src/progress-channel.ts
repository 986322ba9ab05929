import type { GenerateProgress } from "@deliberate/providers";
import type { ProgressUpdate } from "./engine-types.ts";

/** How often, at most, the tokens of answers being generated are reported (default). */
export const defaultGenerationProgressIntervalMs = 250;

/** A handler's progress callback plus the reports of answers being generated, on one rising scale. */
export interface ProgressChannel {
  /** What handlers call; remembered as the base that generation reports add to. */
  progress: (update: ProgressUpdate) => void;
  /** Called by runMode as a mode's answer streams: "generating <mode>: N tokens". */
  generation: (mode: string, event: GenerateProgress) => void;
}

/**
 * Wraps a progress callback so a streaming answer shows as progress between
 * the handler's own steps: `base + fraction` (fraction < 1, growing with the
 * tokens), with the base's total, throttled to one report per `intervalMs`
 * (the first event and each completed answer always pass). Surfaces drop
 * updates that do not rise, so a report below the handler's last is harmless.
 */
export function createProgressChannel(
  target: (update: ProgressUpdate) => void,
  intervalMs = defaultGenerationProgressIntervalMs,
): ProgressChannel {
  let base: ProgressUpdate = { progress: 0 };
  let lastSentAt = Number.NEGATIVE_INFINITY;
  return {
    progress(update) {
      base = update;
      target(update);
    },
    generation(mode, event) {
      const now = performance.now();
      if (!event.done && now - lastSentAt < intervalMs) return;
      lastSentAt = now;
      // Saturates below 1: a long answer never reaches the handler's next step.
      const fraction = 0.9 * (event.outputTokens / (event.outputTokens + 500));
      const tokens = Math.round(event.outputTokens);
      target({
        progress: base.progress + fraction,
        ...(base.total !== undefined ? { total: base.total } : {}),
        message: `generating ${mode}: ${tokens} token${tokens === 1 ? "" : "s"}${event.phase === "thinking" && !event.done ? " (thinking)" : ""}`,
      });
    },
  };
}
