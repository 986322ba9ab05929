import type { DialogIterationRecord } from "../store/repositories/dialog-session.repository.ts";

/**
 * The iteration whose document a session returns: the highest reviewer score, the latest of
 * equal scores (it incorporates the most directives). At max iterations a late regression
 * (0.55, 0.57, 0.53) returns the 0.57 document, not the last one.
 */
export function bestIteration(iterations: readonly DialogIterationRecord[]): DialogIterationRecord | undefined {
  let best: DialogIterationRecord | undefined;
  for (const iteration of iterations) {
    if (best === undefined || iteration.reviewer_score >= best.reviewer_score) best = iteration;
  }
  return best;
}
