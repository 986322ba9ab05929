import type { getReasoningResultTool, ToolInput, ToolOutput } from "@deliberate/contracts";
import type { DialogToolContext } from "../../dialog-context.ts";
import { agentsUsed, type DialogSessionRecord, recordOfPage } from "../../render/dialog-record.ts";
import { toExchangeOutput } from "../../render/exchange-output.ts";
import { renderResult, structuredResult } from "../../render/result-report.ts";
import { nextStepFor, sessionStanding } from "../../session-state.ts";

type ResultInput = ToolInput<typeof getReasoningResultTool>;
type ResultOutput = ToolOutput<typeof getReasoningResultTool>;

/**
 * The result in the requested format: the best-scoring iteration's document, the spec's
 * quality_metrics and the trajectory, and with include_full_exchange one page of the turns
 * (`limit` from `offset`, like a session's thoughts). Read-only.
 */
export async function getReasoningResult(input: ResultInput, context: DialogToolContext): Promise<ResultOutput> {
  const store = context.store.dialogSessions;
  const session = await store.getSession(input.session_id);
  const window = { offset: input.offset, limit: input.limit };
  const [iterations, summaries, speakers, exchangeCount, page] = await Promise.all([
    store.listIterations(session.session_id),
    store.listSummaries(session.session_id),
    store.listSpeakers(session.session_id),
    store.countExchanges(session.session_id),
    input.include_full_exchange ? store.listExchanges(session.session_id, window) : Promise.resolve([]),
  ]);
  const record: DialogSessionRecord = { session, iterations, exchanges: page, summaries };
  const standing = sessionStanding(session, context.clock.now());
  const stopReason = standing.status === "completed" ? standing.stopReason : null;
  const structured = structuredResult(record, stopReason);
  const best = iterations.find((iteration) => iteration.iteration === structured.document_iteration);
  const last = iterations[iterations.length - 1];
  const used = agentsUsed(session, speakers);
  const transcript = input.include_full_exchange ? recordOfPage(record, page) : null;
  const end = window.offset + window.limit;
  return {
    session_id: session.session_id,
    status: standing.status === "completed" ? "completed" : standing.status === "expired" ? "expired" : "in_progress",
    result: renderResult(record, stopReason, input.format, { agentsUsed: used, transcript }),
    quality_metrics: {
      final_quality: best?.reviewer_score ?? null,
      last_quality: last?.reviewer_score ?? null,
      iterations: iterations.length,
      total_tokens: session.tokens_used,
      agents_used: used,
      self_assessment: best?.self_assessment ?? null,
    },
    document_iteration: structured.document_iteration,
    graded_by: structured.graded_by,
    ...(input.include_full_exchange
      ? {
          full_exchange: page.map(toExchangeOutput),
          page: {
            offset: window.offset,
            limit: window.limit,
            totals: { exchanges: exchangeCount },
            next_offset: exchangeCount > end ? end : null,
          },
        }
      : {}),
    format: input.format,
    stop_reason: stopReason,
    quality_trajectory: structured.quality_trajectory,
    ...(input.format === "structured" ? { structured } : {}),
    next_step: nextStepFor(session.session_id, standing.status, session.completed_iterations, standing.expired),
  };
}
