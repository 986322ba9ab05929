import {
  type AgentConfig,
  DeliberateError,
  type DialogAct,
  type DialogConsciousnessState,
  type DialogTurn,
  type ErrorCode,
  type runReasoningExchangeTool,
  type ToolOutput,
} from "@deliberate/contracts";
import { mapConcurrent } from "@deliberate/engine";
import { type AgentAnswer, askAgent } from "../../ask-agent.ts";
import type { DialogToolContext } from "../../dialog-context.ts";
import type { DialogModeDefinition } from "../../modes/dialog-mode.ts";
import { createMergerMode, createProducerMode, type DocumentAnswer } from "../../modes/document.mode.ts";
import type { CurrentDocument, EarlierConversation, TurnPromptInput } from "../../modes/prompt-sections.ts";
import { createReviewerMode, type ReviewAnswer } from "../../modes/review.mode.ts";
import { createSummaryMode, summaryCharacterLimit } from "../../modes/summary.mode.ts";
import { presetByName } from "../../presets/builtin-presets.ts";
import type { DialogPreset } from "../../presets/dialog-preset.ts";
import { combineCriteria, combineReviews } from "../../rubric.ts";
import { assertCanRunExchange, nextStepFor } from "../../session-state.ts";
import { decideStopping } from "../../stopping.ts";
import type {
  DialogDirective,
  DialogExchangeRecord,
  DialogIterationRecord,
  DialogSession,
  DialogSummaryRecord,
  DialogTokens,
} from "../../store/dialog-session.repository.ts";
import { estimateTokens } from "../../token-estimate.ts";

type ExchangeOutput = ToolOutput<typeof runReasoningExchangeTool>;

/** A review's score rising this much over the previous iteration's counts as a breakthrough. */
export const breakthroughRise = 0.2;

/** A turn as run, before it is written. */
interface TurnResult {
  turn: DialogTurn;
  step: number;
  answer: AgentAnswer<DocumentAnswer> | AgentAnswer<ReviewAnswer>;
  content: string;
  state: DialogConsciousnessState;
  /** For reviews: the weighted score of this reviewer. */
  reviewScore?: number;
}

// Codes that mean the caller's request was refused or cancelled: the session's state stays as it was.
const notSessionFailures: ReadonlySet<ErrorCode> = new Set(["CANCELLED", "INVALID_INPUT", "NOT_FOUND", "CONFLICT"]);

function agentOf(session: DialogSession, name: string): AgentConfig {
  const agent = session.agents.find((candidate) => candidate.name === name);
  if (!agent) throw new DeliberateError({ code: "INTERNAL", message: `Session ${session.session_id} has no agent ${name} in its plan` });
  return agent;
}

function modeFor(act: DialogAct, agent: AgentConfig, preset: DialogPreset): DialogModeDefinition<TurnPromptInput, DocumentAnswer | ReviewAnswer> {
  if (act === "review") return createReviewerMode(agent, preset) as DialogModeDefinition<TurnPromptInput, DocumentAnswer | ReviewAnswer>;
  if (act === "merge") return createMergerMode(agent, preset) as DialogModeDefinition<TurnPromptInput, DocumentAnswer | ReviewAnswer>;
  return createProducerMode(agent, preset) as DialogModeDefinition<TurnPromptInput, DocumentAnswer | ReviewAnswer>;
}

function overridesOf(agent: AgentConfig) {
  return {
    ...(agent.temperature !== undefined ? { temperature: agent.temperature } : {}),
    ...(agent.maxTokens !== undefined ? { maxTokens: agent.maxTokens } : {}),
    ...(agent.model !== undefined ? { model: agent.model } : {}),
  };
}

/** A review as the transcript shows it: the combined score, each criterion, the directives. */
export function renderReview(answer: ReviewAnswer, score: number, preset: DialogPreset): string {
  const criteria = preset.criteria.map((criterion) => {
    const judged = answer.scores[criterion.name] as { score: number; rationale: string };
    return `- ${criterion.name}: ${judged.score.toFixed(2)} (${judged.rationale})`;
  });
  const directives = answer.directives.map((directive, index) => `${index + 1}. [${directive.criterion}] ${directive.directive}`);
  return [`Score: ${score.toFixed(2)}`, ...criteria, "", "Directives:", ...directives].join("\n");
}

function sumTokens(tokens: DialogTokens): number {
  return tokens.input + tokens.output;
}

/**
 * Runs one iteration of a session: every model call first (summary when the prompts would
 * overflow the context budget, then the plan's steps in order, the turns of a step through
 * mapConcurrent), then one transaction writing the turns, the iteration's quality and the
 * session's new state. A failed model call marks the session `error` and rethrows.
 */
export async function runExchange(context: DialogToolContext, session: DialogSession, requestedIteration: number | undefined): Promise<ExchangeOutput> {
  const started = context.clock.now();
  assertCanRunExchange(session, started);
  const iteration = session.completed_iterations;
  if (requestedIteration !== undefined && requestedIteration !== iteration) {
    throw new DeliberateError({
      code: "CONFLICT",
      message: `Session ${session.session_id} is at iteration ${iteration}; iteration ${requestedIteration} ${requestedIteration < iteration ? "already ran" : "cannot run before it"}. Nothing was written.`,
      issues: [{ field: "iteration", message: `the next iteration is ${iteration}` }],
      hint: "Omit iteration to run the next one, or pass the next iteration's number.",
    });
  }
  const preset = presetByName(session.mode);
  const store = context.store.dialogSessions;
  const [iterations, exchanges, summaries] = await Promise.all([
    store.listIterations(session.session_id),
    store.listExchanges(session.session_id),
    store.listSummaries(session.session_id),
  ]);
  const previous: DialogIterationRecord | undefined = iterations[iteration - 1];
  const latestSummary = summaries[summaries.length - 1];
  const summarisedThrough = latestSummary?.through_iteration ?? -1;
  let earlier: EarlierConversation = {
    summary: latestSummary ? { throughIteration: latestSummary.through_iteration, content: latestSummary.content } : null,
    // The previous iteration appears as the current document and its directives, not as history.
    turns: exchanges
      .filter((exchange) => exchange.iteration > summarisedThrough && exchange.iteration <= iteration - 2)
      .map((exchange) => ({ iteration: exchange.iteration, agent: exchange.agent, act: exchange.act, content: exchange.content })),
  };
  let documents: CurrentDocument[] = [];
  let directives: DialogDirective[] = [];
  let documentAnswers: Array<{ agent: string; answer: DocumentAnswer }> = [];
  if (previous) {
    const author = [...exchanges].reverse().find((exchange) => exchange.iteration === iteration - 1 && exchange.act !== "review");
    documents = [{ author: author?.agent ?? "unknown", iteration: iteration - 1, content: previous.document }];
    directives = previous.directives;
  }

  const totalTurns = session.plan.reduce((count, step) => count + step.length, 0);
  let finishedTurns = 0;
  let summary: DialogSummaryRecord | undefined;
  const results: TurnResult[] = [];
  let finalReviews: TurnResult[] = [];

  try {
    for (const [stepIndex, step] of session.plan.entries()) {
      const act = (step[0] as DialogTurn).act;
      // Each turn's mode (persona, rules, schema) is built once per step.
      const modes = step.map((turn) => modeFor(act, agentOf(session, turn.agent), preset));
      const promptInput = (): TurnPromptInput => ({
        topic: session.topic,
        context: session.context,
        iteration,
        earlier,
        documents,
        directives: act === "review" ? [] : directives,
      });
      // Context budget: the largest prompt of the step must fit; summarise earlier iterations once if not.
      const largestPrompt = () =>
        Math.max(
          ...modes.map((mode) => {
            return estimateTokens(mode.system) + estimateTokens(mode.prompt(promptInput()));
          }),
        );
      if (largestPrompt() > session.context_budget_tokens) {
        if (summary === undefined && earlier.turns.length > 0) {
          const throughIteration = iteration - 2;
          context.progress({ progress: finishedTurns, total: totalTurns, message: `summarising iterations 0-${throughIteration} to fit the context budget` });
          const answer = await askAgent(context, createSummaryMode(summaryCharacterLimit(session.context_budget_tokens)), {
            topic: session.topic,
            earlier,
            throughIteration,
          });
          summary = {
            session_id: session.session_id,
            through_iteration: throughIteration,
            made_in_iteration: iteration,
            content: answer.object.summary,
            tokens: answer.tokens,
            model: answer.model,
            created_at: answer.at,
          };
          earlier = { summary: { throughIteration, content: summary.content }, turns: [] };
        }
        const needed = largestPrompt();
        if (needed > session.context_budget_tokens) {
          throw new DeliberateError({
            code: "LIMIT_EXCEEDED",
            message: `Step ${stepIndex} of iteration ${iteration} needs a prompt of about ${needed} tokens${summary || earlier.summary ? " even with earlier iterations summarised" : ""}; the session's context budget is ${session.context_budget_tokens} tokens.`,
            issues: [{ field: "contextBudgetTokens", message: `about ${needed} tokens needed, ${session.context_budget_tokens} allowed` }],
            hint: "Start a session with a larger contextBudgetTokens, a shorter context, or agents with shorter system prompts.",
          });
        }
      }
      const input = promptInput();
      const answers = await mapConcurrent(step, context.concurrency, async (turn, index) => {
        const agent = agentOf(session, turn.agent);
        const answer = await askAgent(context, modes[index] as (typeof modes)[number], input, overridesOf(agent));
        finishedTurns += 1;
        context.progress({ progress: finishedTurns, total: totalTurns, message: `iteration ${iteration}: ${turn.agent} ${act === "produce" ? "produced" : act === "merge" ? "merged" : "reviewed"}` });
        return answer;
      });
      const stepResults: TurnResult[] = step.map((turn, index) => {
        const answer = answers[index] as TurnResult["answer"];
        if (act === "review") {
          const review = answer.object as ReviewAnswer;
          const scores = Object.fromEntries(Object.entries(review.scores).map(([name, judged]) => [name, judged.score]));
          const score = combineCriteria(preset.criteria, scores);
          const rose = previous !== undefined && score >= previous.reviewer_score + breakthroughRise;
          return {
            turn,
            step: stepIndex,
            answer,
            content: renderReview(review, score, preset),
            state: score >= session.quality_threshold || rose ? "breakthrough" : "analyzing",
            reviewScore: score,
          };
        }
        const document = answer.object as DocumentAnswer;
        return { turn, step: stepIndex, answer, content: document.document, state: act === "produce" && iteration === 0 && stepIndex === 0 ? "analyzing" : "synthesizing" };
      });
      results.push(...stepResults);
      if (act === "review") {
        directives = stepResults.flatMap((result) =>
          (result.answer.object as ReviewAnswer).directives.map((directive) => ({ agent: result.turn.agent, criterion: directive.criterion, directive: directive.directive })),
        );
        finalReviews = stepResults;
      } else {
        documentAnswers = stepResults.map((result) => ({ agent: result.turn.agent, answer: result.answer.object as DocumentAnswer }));
        documents = stepResults.map((result) => ({ author: result.turn.agent, iteration, content: (result.answer.object as DocumentAnswer).document }));
        directives = [];
      }
    }
  } catch (error) {
    if (DeliberateError.isInstance(error) && !notSessionFailures.has(error.code)) {
      await context.store.dialogSessions.markError({ sessionId: session.session_id, error: `${error.code}: ${error.message}`, now: context.clock.now().toISOString() });
    }
    throw error;
  }

  // Quality: the final step's reviewers score the iteration's document; the author's own grade is recorded beside it.
  const quality = combineReviews(
    preset.criteria,
    finalReviews.map((result) => ({
      agent: result.turn.agent,
      criteria: Object.fromEntries(Object.entries((result.answer.object as ReviewAnswer).scores).map(([name, judged]) => [name, judged.score])),
    })),
  );
  const finalDocument = documents[0] as CurrentDocument;
  const author = documentAnswers.find((entry) => entry.agent === finalDocument.author) as { agent: string; answer: DocumentAnswer };
  const selfAssessment = author.answer.self_assessment.score;

  const iterationTokens = results.reduce((total, result) => total + sumTokens(result.answer.tokens), 0) + (summary ? sumTokens(summary.tokens) : 0);
  const finished = context.clock.now();
  const tokensUsed = session.tokens_used + iterationTokens;
  const elapsedSeconds = (finished.getTime() - new Date(session.created_at).getTime()) / 1000;
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

  const now = finished.toISOString();
  const records: DialogExchangeRecord[] = results.map((result, position) => ({
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
    document: finalDocument.content,
    reviewer_score: quality.score,
    self_assessment: selfAssessment,
    criteria: quality.criteria,
    reviews: quality.reviews,
    directives,
    tokens: iterationTokens,
    status: decision.status,
    created_at: now,
  };
  const status = decision.shouldContinue ? "in_progress" : "completed";
  await context.store.transaction(async (repositories) => {
    await repositories.dialogSessions.recordExchange({
      session_id: session.session_id,
      expected_completed_iterations: iteration,
      session: { status, stop_reason: decision.shouldContinue ? null : (decision.status as Exclude<typeof decision.status, "in_progress">), current_quality: quality.score, tokens_used: tokensUsed },
      exchanges: records,
      iteration: iterationRecord,
      ...(summary ? { summary } : {}),
      now,
    });
    await repositories.sessions.touch({ id: session.session_id, now });
  });

  const nextStep = decision.shouldContinue
    ? nextStepFor(session.session_id, "in_progress", iteration + 1, false)
    : `Stopped: ${decision.reason}. Call get_reasoning_result with session_id ${session.session_id}.`;
  return {
    session_id: session.session_id,
    iteration,
    exchanges: records.map(toExchangeOutput),
    quality_score: quality.score,
    should_continue: decision.shouldContinue,
    status: decision.status,
    next_step: nextStep,
    quality: {
      iteration,
      reviewer_score: quality.score,
      self_assessment: selfAssessment,
      criteria: quality.criteria,
      reviews: quality.reviews,
      tokens: iterationTokens,
    },
    directives,
    document: finalDocument.content,
    budget: {
      tokens_used: tokensUsed,
      token_budget: session.token_budget,
      elapsed_seconds: elapsedSeconds,
      wall_time_budget_seconds: session.wall_time_budget_seconds,
    },
    ...(summary ? { summary: { through_iteration: summary.through_iteration, tokens: sumTokens(summary.tokens) } } : {}),
  };
}

/** A stored turn in the tools' output shape. */
export function toExchangeOutput(record: DialogExchangeRecord): ExchangeOutput["exchanges"][number] {
  return {
    agent: record.agent,
    role: record.role,
    content: record.content,
    tokens: { input: record.tokens.input, output: record.tokens.output, estimated: record.tokens.estimated },
    timestamp: record.created_at,
    ...(record.state !== null ? { consciousness_state: record.state } : {}),
    iteration: record.iteration,
    step: record.step,
    act: record.act,
    model: record.model,
    answer: record.answer,
  };
}
