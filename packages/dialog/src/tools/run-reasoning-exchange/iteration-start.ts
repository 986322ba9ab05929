import type { CurrentDocument, EarlierConversation } from "../../modes/prompt-sections.ts";
import { bestIteration } from "../../render/best-iteration.ts";
import type {
  DialogDirective,
  DialogIterationRecord,
  DialogSession,
  DialogSessionRepository,
} from "../../store/repositories/dialog-session.repository.ts";

/** What an iteration starts from: the conversation before it, the document to refine and its directives. */
export interface IterationStart {
  iteration: number;
  /** The iteration before this one (undefined for iteration 0). */
  previous: DialogIterationRecord | undefined;
  earlier: EarlierConversation;
  documents: CurrentDocument[];
  directives: DialogDirective[];
  /** The best-scoring earlier iteration (the latest of equal scores), if any. */
  bestEarlier: { iteration: number; score: number } | undefined;
}

/**
 * Reads what the next iteration of `session` starts from. The latest summary stands in for the
 * iterations it covers; the previous iteration appears as the current document and its
 * directives, not as history.
 */
export async function loadIterationStart(
  store: DialogSessionRepository,
  session: DialogSession,
): Promise<IterationStart> {
  const iteration = session.completed_iterations;
  const [iterations, exchanges, summaries] = await Promise.all([
    store.listIterations(session.session_id),
    store.listExchanges(session.session_id),
    store.listSummaries(session.session_id),
  ]);
  const previous = iterations[iteration - 1];
  const latestSummary = summaries[summaries.length - 1];
  const summarisedThrough = latestSummary?.through_iteration ?? -1;
  const earlier: EarlierConversation = {
    summary: latestSummary
      ? { throughIteration: latestSummary.through_iteration, content: latestSummary.content }
      : null,
    turns: exchanges
      .filter((exchange) => exchange.iteration > summarisedThrough && exchange.iteration <= iteration - 2)
      .map((exchange) => ({
        iteration: exchange.iteration,
        agent: exchange.agent,
        act: exchange.act,
        content: exchange.content,
      })),
  };
  const best = bestIteration(iterations);
  const bestEarlier = best ? { iteration: best.iteration, score: best.reviewer_score } : undefined;
  if (!previous) return { iteration, previous, earlier, documents: [], directives: [], bestEarlier };
  const author = [...exchanges]
    .reverse()
    .find((exchange) => exchange.iteration === iteration - 1 && exchange.act !== "review");
  return {
    iteration,
    previous,
    earlier,
    documents: [{ author: author?.agent ?? "unknown", iteration: iteration - 1, content: previous.document }],
    directives: previous.directives,
    bestEarlier,
  };
}
