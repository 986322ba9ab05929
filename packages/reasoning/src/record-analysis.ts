import { nowIso } from "@deliberate/engine";
import type { ReasoningContext } from "./define-handler.ts";
import { ensureSession, type SessionHistory } from "./session-history.ts";

/** What one analysis call (detect, decision, evidence, counterfactual) records. */
export interface AnalysisRecord {
  /** Mode name stored on the thought, e.g. `decision`. */
  mode: string;
  /** Human-readable result (recommendation, summary, outcome). */
  content: string;
  confidence?: number | null;
  /** The computed result and the inputs it came from, so another process can read every number. */
  metadata: Record<string, unknown>;
  /** The thought this result follows; defaults to the session's latest thought. */
  parentId?: string | null;
  /** Text analysed that is not yet in the session; recorded first as an `input` thought. */
  inputContent?: string;
}

/**
 * Records one analysis result as a thought (after an optional input thought)
 * in one transaction, creating the session when the call started a new one.
 * Called after every model call of the handler (replayable). Returns the
 * result thought's id.
 */
export async function recordAnalysis(
  context: ReasoningContext,
  history: SessionHistory,
  record: AnalysisRecord,
): Promise<string> {
  const inputThoughtId = record.inputContent === undefined ? undefined : context.ids.next("th");
  const thoughtId = context.ids.next("th");
  const now = nowIso(context);
  const branchId = history.session?.active_branch_id ?? null;
  const parentId = record.parentId !== undefined ? record.parentId : (history.thoughts.at(-1)?.id ?? null);
  // A session this call creates has no thought yet: its first one takes position 0 without the counter.
  const newSession = history.session === undefined;
  await context.store.transaction(async (repositories) => {
    await ensureSession(repositories, history, record.mode, now);
    if (inputThoughtId !== undefined) {
      await repositories.thoughts.append(
        {
          id: inputThoughtId,
          session_id: history.sessionId,
          branch_id: branchId,
          parent_id: parentId,
          mode: "input",
          content: record.inputContent as string,
          created_at: now,
        },
        { firstOfNewSession: newSession },
      );
    }
    await repositories.thoughts.append(
      {
        id: thoughtId,
        session_id: history.sessionId,
        branch_id: branchId,
        parent_id: inputThoughtId ?? parentId,
        mode: record.mode,
        content: record.content,
        confidence: record.confidence ?? null,
        metadata: record.metadata,
        created_at: now,
      },
      { firstOfNewSession: newSession && inputThoughtId === undefined },
    );
  });
  return thoughtId;
}
