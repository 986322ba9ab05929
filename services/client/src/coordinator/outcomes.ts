import type { ExecuteTaskResponse } from "@deliberate/contracts";
import { type CoordinatorContext, conversationKey, sessionKey } from "./coordinator-context.ts";
import type {
  CoordinatorOutcome,
  CoordinatorRequest,
  InvocationDecision,
  ReasoningSessionRecord,
} from "./coordinator-types.ts";
import { failureOf, type ReasoningFailure, unavailableMessage } from "./fallback.ts";
import { Fallback } from "./fallback-error.ts";
import {
  type ConfidenceBand,
  confidenceBand,
  lowConfidenceReason,
  serverConfidence,
  summarizeWork,
} from "./presentation.ts";
import type { StandardAnswer } from "./routing.ts";

// What a turn ends with: the standard answer, or the reasoning answer presented by the server's confidence; and
// the state kept between turns.

export async function runStandard(
  c: CoordinatorContext,
  request: Omit<CoordinatorRequest, "signal">,
  signal: AbortSignal | undefined,
): Promise<StandardAnswer | null> {
  try {
    return await c.options.standard({
      query: request.query,
      ...(request.history !== undefined ? { history: request.history } : {}),
      ...(signal ? { signal } : {}),
    });
  } catch (error) {
    if (signal?.aborted) throw error;
    return null;
  }
}

export async function rememberTurn(
  c: CoordinatorContext,
  conversationId: string | undefined,
  usedReasoning: boolean,
  lastAnswer: string | null,
) {
  if (conversationId === undefined) return;
  await c.store.set(conversationKey(conversationId), { usedReasoning, lastAnswer }, { ttlMs: 60 * 60_000 });
}

export async function save(c: CoordinatorContext, record: ReasoningSessionRecord) {
  record.updatedAt = c.now();
  await c.store.set(sessionKey(record.reasoningSessionId), record, { ttlMs: 24 * 60 * 60_000 });
}

export function finish(c: CoordinatorContext, outcome: CoordinatorOutcome, started: number): CoordinatorOutcome {
  c.emit({
    type: "completed",
    outcome: outcome.kind === "answer" ? outcome.source : outcome.kind,
    reasoningSessionId:
      outcome.kind === "needs_user_input" || (outcome.kind === "answer" && outcome.source === "reasoning")
        ? outcome.reasoningSessionId
        : null,
    band: outcome.kind === "answer" && outcome.source === "reasoning" ? outcome.band : null,
    failure: outcome.kind === "answer" || outcome.kind === "unavailable" ? (outcome.failure?.kind ?? null) : null,
    durationMs: c.now() - started,
  });
  return outcome;
}

export async function standardOutcome(
  c: CoordinatorContext,
  request: Omit<CoordinatorRequest, "signal">,
  decision: InvocationDecision,
  signal: AbortSignal | undefined,
  failure?: ReasoningFailure,
  answer?: StandardAnswer | null,
): Promise<CoordinatorOutcome> {
  const standard = answer ?? (await runStandard(c, request, signal));
  await rememberTurn(c, request.conversationId, false, null);
  if (!standard) return { kind: "unavailable", text: unavailableMessage, decision, ...(failure ? { failure } : {}) };
  return {
    kind: "answer",
    source: "standard",
    text: standard.text,
    standard,
    decision,
    ...(failure ? { failure, notice: failure.userMessage } : {}),
  };
}

export async function finalize(
  c: CoordinatorContext,
  record: ReasoningSessionRecord,
  completed: ExecuteTaskResponse,
  signal: AbortSignal,
  extra: { failure?: ReasoningFailure; refinementFailure?: ReasoningFailure } = {},
): Promise<CoordinatorOutcome> {
  const answer = completed.result?.reasonedAnswer;
  if (!answer) throw new Fallback("malformed", "the completed response has no reasonedAnswer", "MALFORMED_RESPONSE");
  record.status = "FINALIZING_ANSWER";
  // The band and the low-confidence row follow the server's confidence (grounded in what its code checked).
  const confidence = serverConfidence(completed);
  const band = confidenceBand(confidence, c.policy.bands);
  const summary = summarizeWork({
    response: completed,
    reasoningType: record.reasoningType,
    refinements: record.refinements,
    findings: record.findings,
    bands: c.policy.bands,
  });
  let failure = extra.failure;
  let comparison: StandardAnswer | undefined;
  const low = failure ? null : lowConfidenceReason(completed, c.policy.thresholds.lowConfidence);
  if (low !== null) {
    failure = failureOf("low_confidence", low);
    if (c.policy.compareLowConfidenceWithStandard)
      comparison = (await runStandard(c, record.request, signal)) ?? undefined;
  }
  await rememberTurn(c, record.request.conversationId, true, answer);
  return {
    kind: "answer",
    source: "reasoning",
    text: c.hedges[hedgedBand(band, confidence, low !== null, c.policy.thresholds.lowConfidence)](answer),
    answer,
    confidence,
    band,
    summary,
    reasoningSessionId: record.reasoningSessionId,
    refinementCycles: record.refinementCycleCount,
    followUps: [...record.findings],
    decision: record.decision,
    ...(failure ? { failure, notice: failure.userMessage } : {}),
    ...(extra.refinementFailure ? { refinementFailure: extra.refinementFailure } : {}),
    ...(comparison ? { comparison } : {}),
  };
}

/** The band whose phrasing an answer gets: its own, one lower when it is the low-confidence row anyway. */
function hedgedBand(
  band: ConfidenceBand,
  confidence: number | null,
  lowConfidence: boolean,
  threshold: number,
): ConfidenceBand {
  if (!lowConfidence) return band;
  if (band === "high") return "moderate";
  if (band === "moderate" && confidence !== null && confidence < threshold) return "low";
  return band;
}
