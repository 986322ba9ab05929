import { DeliberateError, type ErrorCode, type runReasoningExchangeTool, type ToolOutput } from "@deliberate/contracts";
import type { SpendTally } from "../../ask-agent.ts";
import type { DialogToolContext } from "../../dialog-context.ts";
import type { CurrentDocument } from "../../modes/prompt-sections.ts";
import type { ReviewAnswer } from "../../modes/review.mode.ts";
import { gradedByClient, gradedByOf } from "../../grading.ts";
import { presetByName } from "../../presets/builtin-presets.ts";
import { combineReviews } from "../../rubric.ts";
import { roundScore } from "../../score.ts";
import { assertCanRunExchange, nextStepFor } from "../../session-state.ts";
import { decideStopping, type StoppingDecision } from "../../stopping.ts";
import type {
  DialogExchangeRecord,
  DialogIterationRecord,
  DialogSession,
  DialogTokens,
} from "../../store/repositories/dialog-session.repository.ts";
import { toExchangeOutput } from "../../render/exchange-output.ts";
import { type IterationStart, loadIterationStart } from "./iteration-start.ts";
import { type IterationProgress, runStep } from "./run-step.ts";

type ExchangeOutput = ToolOutput<typeof runReasoningExchangeTool>;

// Codes that mean the caller's request was refused or cancelled: the session's status stays as it was.
const notSessionFailures: ReadonlySet<ErrorCode> = new Set(["CANCELLED", "INVALID_INPUT", "NOT_FOUND", "CONFLICT"]);

function sumTokens(tokens: DialogTokens): number {
  return tokens.input + tokens.output;
}

function assertNextIteration(session: DialogSession, requestedIteration: number | undefined): void {
  const iteration = session.completed_iterations;
  if (requestedIteration === undefined || requestedIteration === iteration) return;
  throw new DeliberateError({
    code: "CONFLICT",
    message: `Session ${session.session_id} is at iteration ${iteration}; iteration ${requestedIteration} ${requestedIteration < iteration ? "already ran" : "cannot run before it"}. Nothing was written.`,
    issues: [{ field: "iteration", message: `the next iteration is ${iteration}` }],
    hint: "Omit iteration to run the next one, or pass the next iteration's number.",
  });
}

/**
 * Records what a failed exchange spent, so every token counts against the budget: a model
 * failure marks the session `error` (running the exchange again retries the iteration), or
 * completes it (budget_exhausted) when the spend reached the token budget; a refused or
 * cancelled exchange keeps its status and only adds its spend. Host-executed exchanges charge
 * nothing here: a host answer that fails its schema is refused and answered again in the same
 * call, whose replay counts every answer once when it succeeds.
 */
async function chargeFailedExchange(
  context: DialogToolContext,
  session: DialogSession,
  error: unknown,
  progress: IterationProgress,
): Promise<void> {
  if (!DeliberateError.isInstance(error)) return;
  const tally: SpendTally = progress.gradedBy === "host" ? { tokens: 0 } : progress.tally;
  const sessionFailure = !notSessionFailures.has(error.code);
  if (!sessionFailure && tally.tokens === 0) return;
  const budgetExhausted = session.token_budget !== null && session.tokens_used + tally.tokens >= session.token_budget;
  const now = context.clock.now().toISOString();
  const message = `${error.code}: ${error.message}${budgetExhausted ? ` The session has now spent ${session.tokens_used + tally.tokens} tokens of its ${session.token_budget}-token budget, so it is complete (budget_exhausted).` : ""}`;
  if (sessionFailure || budgetExhausted) {
    await context.store.dialogSessions.markError({
      sessionId: session.session_id,
      error: message,
      now,
      tokensSpent: tally.tokens,
      budgetExhausted,
    });
  } else {
    await context.store.dialogSessions.addTokens({ sessionId: session.session_id, tokens: tally.tokens });
  }
}

/** The iteration's quality (its final reviewers' scores, combined in code) and the stopping decision. */
function judgeIteration(progress: IterationProgress, started: Date, finished: Date) {
  const { session, preset, iteration } = progress;
  const quality = combineReviews(
    preset.criteria,
    progress.finalReviews.map((result) => ({
      agent: result.turn.agent,
      criteria: Object.fromEntries(
        Object.entries((result.answer.object as ReviewAnswer).scores).map(([name, judged]) => [name, judged.score]),
      ),
    })),
  );
  const finalDocument = progress.documents[0] as CurrentDocument;
  const author = progress.documentAnswers.find((entry) => entry.agent === finalDocument.author);
  const selfAssessment = roundScore(author?.answer.self_assessment.score ?? 0);
  const turnTokens =
    progress.results.reduce((total, result) => total + sumTokens(result.answer.tokens), 0) +
    (progress.summary ? sumTokens(progress.summary.tokens) : 0);
  // Failed answers of this exchange (a repair round that still failed is not a turn) count too: the tally has every token.
  const iterationTokens = Math.max(turnTokens, progress.tally.tokens);
  const tokensUsed = session.tokens_used + iterationTokens;
  const elapsedSeconds = Math.round(finished.getTime() - new Date(session.created_at).getTime()) / 1000;
  const decision = decideStopping(
    {
      maxIterations: session.max_iterations,
      qualityThreshold: session.quality_threshold,
      tokenBudget: session.token_budget,
      wallTimeBudgetSeconds: session.wall_time_budget_seconds,
    },
    {
      completedIterations: iteration + 1,
      reviewerScore: quality.score,
      tokensUsed,
      lastIterationTokens: iterationTokens,
      elapsedSeconds,
      lastIterationSeconds: (finished.getTime() - started.getTime()) / 1000,
    },
  );
  return { quality, finalDocument, selfAssessment, iterationTokens, tokensUsed, elapsedSeconds, decision };
}
type IterationJudgement = ReturnType<typeof judgeIteration>;

/** Writes the iteration in one transaction (CONFLICT if another exchange of the session finished meanwhile). */
async function recordIteration(
  context: DialogToolContext,
  progress: IterationProgress,
  judgement: IterationJudgement,
  now: string,
): Promise<DialogExchangeRecord[]> {
  const { session, iteration } = progress;
  const { quality, decision } = judgement;
  const records: DialogExchangeRecord[] = progress.results.map((result, position) => ({
    id: context.ids.next("dx"),
    session_id: session.session_id,
    iteration,
    position,
    step: result.step,
    agent: result.turn.agent,
    role: result.step === 0 ? "initiator" : "responder",
    act: result.turn.act,
    content: result.content,
    answer: result.answer.object as unknown as Record<string, unknown>,
    tokens: result.answer.tokens,
    model: result.answer.model,
    state: result.state,
    created_at: result.answer.at,
  }));
  const iterationRecord: DialogIterationRecord = {
    session_id: session.session_id,
    iteration,
    document: judgement.finalDocument.content,
    reviewer_score: quality.score,
    self_assessment: judgement.selfAssessment,
    criteria: quality.criteria,
    reviews: quality.reviews,
    directives: progress.directives,
    tokens: judgement.iterationTokens,
    status: decision.status,
    graded_by: progress.gradedBy,
    created_at: now,
  };
  const stopReason = decision.shouldContinue
    ? null
    : (decision.status as Exclude<typeof decision.status, "in_progress">);
  await context.store.transaction(async (repositories) => {
    await repositories.dialogSessions.recordExchange({
      session_id: session.session_id,
      expected_completed_iterations: iteration,
      session: {
        status: decision.shouldContinue ? "in_progress" : "completed",
        stop_reason: stopReason,
        current_quality: quality.score,
        tokens_used: judgement.tokensUsed,
      },
      exchanges: records,
      iteration: iterationRecord,
      ...(progress.summary ? { summary: progress.summary } : {}),
      now,
    });
    await repositories.sessions.touch({ id: session.session_id, now });
  });
  return records;
}

/** What the caller should do next; a stop names the document the result returns and who graded it. */
function nextStepAfter(
  progress: IterationProgress,
  start: IterationStart,
  decision: StoppingDecision,
  score: number,
): string {
  const sessionId = progress.session.session_id;
  if (decision.shouldContinue) return nextStepFor(sessionId, "in_progress", progress.iteration + 1, false);
  const best =
    start.bestEarlier !== undefined && start.bestEarlier.score > score
      ? start.bestEarlier
      : { iteration: progress.iteration, score };
  const returned =
    best.iteration === progress.iteration
      ? "this iteration's document"
      : `the best-scoring document, iteration ${best.iteration}'s (${best.score.toFixed(2)})`;
  const graded = gradedByClient(progress.gradedBy)
    ? ` The scores were given by the calling client (graded_by ${progress.gradedBy}), which also wrote the document: not an independent review.`
    : "";
  return `Stopped: ${decision.reason}.${graded} Call get_reasoning_result with session_id ${sessionId} for ${returned}.`;
}

/**
 * Runs one iteration of a session: every model call first (the plan's steps in order, each
 * fitted to the context budget, the turns of a step concurrently), then one transaction
 * writing the turns, the iteration's quality and the session's new state. A failed model
 * call marks the session `error` with what it spent, and rethrows.
 */
export async function runExchange(
  context: DialogToolContext,
  session: DialogSession,
  requestedIteration: number | undefined,
): Promise<ExchangeOutput> {
  const started = context.clock.now();
  assertCanRunExchange(session, started);
  assertNextIteration(session, requestedIteration);
  const start = await loadIterationStart(context.store.dialogSessions, session);
  const progress: IterationProgress = {
    session,
    preset: presetByName(session.mode),
    iteration: start.iteration,
    previous: start.previous,
    gradedBy: gradedByOf(context.models.forMode("dialog_reviewer").provider),
    tally: { tokens: 0 },
    totalTurns: session.plan.reduce((count, step) => count + step.length, 0),
    earlier: start.earlier,
    documents: start.documents,
    directives: start.directives,
    summary: undefined,
    results: [],
    finalReviews: [],
    documentAnswers: [],
    shortened: [],
    finishedTurns: 0,
  };
  try {
    for (const [stepIndex, step] of session.plan.entries()) await runStep(context, progress, step, stepIndex);
  } catch (error) {
    await chargeFailedExchange(context, session, error, progress);
    throw error;
  }
  const finished = context.clock.now();
  const judgement = judgeIteration(progress, started, finished);
  const records = await recordIteration(context, progress, judgement, finished.toISOString());
  const { quality, decision } = judgement;
  return {
    session_id: session.session_id,
    iteration: progress.iteration,
    exchanges: records.map(toExchangeOutput),
    quality_score: quality.score,
    should_continue: decision.shouldContinue,
    status: decision.status,
    next_step: nextStepAfter(progress, start, decision, quality.score),
    quality: {
      iteration: progress.iteration,
      reviewer_score: quality.score,
      self_assessment: judgement.selfAssessment,
      criteria: quality.criteria,
      reviews: quality.reviews,
      tokens: judgement.iterationTokens,
      graded_by: progress.gradedBy,
    },
    directives: progress.directives,
    document_exchange: records.findLastIndex((record) => record.act !== "review"),
    graded_by: progress.gradedBy,
    budget: {
      tokens_used: judgement.tokensUsed,
      token_budget: session.token_budget,
      elapsed_seconds: judgement.elapsedSeconds,
      wall_time_budget_seconds: session.wall_time_budget_seconds,
    },
    ...(progress.summary
      ? {
          summary: {
            through_iteration: progress.summary.through_iteration,
            tokens: sumTokens(progress.summary.tokens),
          },
        }
      : {}),
    ...(progress.shortened.length > 0 ? { shortened_documents: progress.shortened } : {}),
  };
}
