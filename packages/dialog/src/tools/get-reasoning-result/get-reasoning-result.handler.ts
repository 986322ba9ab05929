import type { getReasoningResultTool, ToolInput, ToolOutput } from "@deliberate/contracts";
import type { DialogToolContext } from "../../dialog-context.ts";
import { agentsUsed, type DialogSessionRecord, totalTokens } from "../../render/dialog-record.ts";
import { renderResult, structuredResult } from "../../render/result-report.ts";
import { nextStepFor, sessionStanding } from "../../session-state.ts";
import { toExchangeOutput } from "../run-reasoning-exchange/run-exchange.ts";

/** Reads a session's whole record (session, iterations, turns, summaries). */
export async function readDialogRecord(context: Pick<DialogToolContext, "store">, sessionId: string): Promise<DialogSessionRecord> {
  const store = context.store.dialogSessions;
  const session = await store.getSession(sessionId);
  const [iterations, exchanges, summaries] = await Promise.all([store.listIterations(sessionId), store.listExchanges(sessionId), store.listSummaries(sessionId)]);
  return { session, iterations, exchanges, summaries };
}

/** The result in the requested format, the spec's quality_metrics and the trajectory. Read-only. */
export async function getReasoningResult(
  input: ToolInput<typeof getReasoningResultTool>,
  context: DialogToolContext,
): Promise<ToolOutput<typeof getReasoningResultTool>> {
  const record = await readDialogRecord(context, input.session_id);
  const standing = sessionStanding(record.session, context.clock.now());
  const stopReason = standing.status === "completed" ? standing.stopReason : null;
  const structured = structuredResult(record, stopReason);
  const last = record.iterations[record.iterations.length - 1];
  return {
    session_id: record.session.session_id,
    status: standing.status === "completed" ? "completed" : "in_progress",
    result: renderResult(record, stopReason, input.format, { includeFullExchange: input.include_full_exchange }),
    quality_metrics: {
      final_quality: last?.reviewer_score ?? null,
      iterations: record.iterations.length,
      total_tokens: totalTokens(record),
      agents_used: agentsUsed(record),
      self_assessment: last?.self_assessment ?? null,
    },
    ...(input.include_full_exchange ? { full_exchange: record.exchanges.map(toExchangeOutput) } : {}),
    format: input.format,
    stop_reason: stopReason,
    quality_trajectory: structured.quality_trajectory,
    ...(input.format === "structured" ? { structured } : {}),
    next_step: nextStepFor(record.session.session_id, standing.status, record.session.completed_iterations, standing.expired),
  };
}
