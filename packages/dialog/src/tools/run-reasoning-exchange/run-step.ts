import {
  type AgentConfig,
  DeliberateError,
  type DialogAct,
  type DialogConsciousnessState,
  type DialogGradedBy,
  type DialogTurn,
} from "@deliberate/contracts";
import { mapConcurrent } from "@deliberate/engine";
import { type AgentAnswer, askAgent, type SpendTally } from "../../ask-agent.ts";
import type { DialogToolContext } from "../../dialog-context.ts";
import type { DialogModeDefinition } from "../../modes/dialog-mode.ts";
import { createMergerMode, createProducerMode, type DocumentAnswer } from "../../modes/document.mode.ts";
import type { CurrentDocument, EarlierConversation, TurnPromptInput } from "../../modes/prompt-sections.ts";
import { createReviewerMode, type ReviewAnswer } from "../../modes/review.mode.ts";
import type { DialogPreset } from "../../presets/dialog-preset.ts";
import { combineCriteria } from "../../rubric.ts";
import type {
  DialogDirective,
  DialogIterationRecord,
  DialogSession,
  DialogSummaryRecord,
} from "../../store/repositories/dialog-session.repository.ts";
import { renderReview } from "../../render/exchange-output.ts";
import { fitStepToContext, type ShortenedDocument } from "./fit-context.ts";

/** A review's score rising this much over the previous iteration's counts as a breakthrough. */
export const breakthroughRise = 0.2;

/** A turn as run, before it is written. */
export interface TurnResult {
  turn: DialogTurn;
  step: number;
  answer: AgentAnswer<DocumentAnswer> | AgentAnswer<ReviewAnswer>;
  content: string;
  state: DialogConsciousnessState;
  /** For reviews: the weighted score of this reviewer. */
  reviewScore?: number;
}

/** An iteration as its steps run: what the next step works on, and every turn so far. */
export interface IterationProgress {
  readonly session: DialogSession;
  readonly preset: DialogPreset;
  readonly iteration: number;
  readonly previous: DialogIterationRecord | undefined;
  readonly gradedBy: DialogGradedBy;
  readonly tally: SpendTally;
  readonly totalTurns: number;
  earlier: EarlierConversation;
  /** The current documents, whole. */
  documents: CurrentDocument[];
  directives: DialogDirective[];
  summary: DialogSummaryRecord | undefined;
  results: TurnResult[];
  finalReviews: TurnResult[];
  documentAnswers: Array<{ agent: string; answer: DocumentAnswer }>;
  shortened: ShortenedDocument[];
  finishedTurns: number;
}

const pastTense: Record<DialogAct, string> = { produce: "produced", merge: "merged", review: "reviewed" };

function agentOf(session: DialogSession, name: string): AgentConfig {
  const agent = session.agents.find((candidate) => candidate.name === name);
  if (!agent)
    throw new DeliberateError({
      code: "INTERNAL",
      message: `Session ${session.session_id} has no agent ${name} in its plan`,
    });
  return agent;
}

function modeFor(
  act: DialogAct,
  agent: AgentConfig,
  progress: IterationProgress,
): DialogModeDefinition<TurnPromptInput, DocumentAnswer | ReviewAnswer> {
  type AnyMode = DialogModeDefinition<TurnPromptInput, DocumentAnswer | ReviewAnswer>;
  if (act === "review") return createReviewerMode(agent, progress.preset, progress.gradedBy) as AnyMode;
  if (act === "merge") return createMergerMode(agent, progress.preset) as AnyMode;
  return createProducerMode(agent, progress.preset) as AnyMode;
}

function overridesOf(agent: AgentConfig) {
  return {
    ...(agent.temperature !== undefined ? { temperature: agent.temperature } : {}),
    ...(agent.maxTokens !== undefined ? { maxTokens: agent.maxTokens } : {}),
    ...(agent.model !== undefined ? { model: agent.model } : {}),
  };
}

/** A finished turn with its transcript content and state. */
function turnResult(
  progress: IterationProgress,
  turn: DialogTurn,
  stepIndex: number,
  answer: TurnResult["answer"],
): TurnResult {
  const { preset, session, previous, iteration } = progress;
  if (turn.act === "review") {
    const review = answer.object as ReviewAnswer;
    const score = combineCriteria(
      preset.criteria,
      Object.fromEntries(Object.entries(review.scores).map(([name, judged]) => [name, judged.score])),
    );
    const rose = previous !== undefined && score >= previous.reviewer_score + breakthroughRise;
    const state = score >= session.quality_threshold || rose ? "breakthrough" : "analyzing";
    return { turn, step: stepIndex, answer, content: renderReview(review, score, preset), state, reviewScore: score };
  }
  const document = answer.object as DocumentAnswer;
  const state = turn.act === "produce" && iteration === 0 && stepIndex === 0 ? "analyzing" : "synthesizing";
  return { turn, step: stepIndex, answer, content: document.document, state };
}

/**
 * Runs one step of the plan: fits its prompts to the context budget, asks its turns
 * concurrently (bounded), and moves the iteration on: a review step's directives become the
 * pending ones; a produce or merge step's documents become the current ones.
 */
export async function runStep(
  context: DialogToolContext,
  progress: IterationProgress,
  step: readonly DialogTurn[],
  stepIndex: number,
): Promise<void> {
  const act = (step[0] as DialogTurn).act;
  // Each turn's mode (persona, rules, schema) is built once per step.
  const modes = step.map((turn) => modeFor(act, agentOf(progress.session, turn.agent), progress));
  const fit = await fitStepToContext({
    context,
    session: progress.session,
    stepIndex,
    modes,
    input: {
      topic: progress.session.topic,
      context: progress.session.context,
      iteration: progress.iteration,
      earlier: progress.earlier,
      documents: progress.documents,
      directives: act === "review" ? [] : progress.directives,
    },
    summary: progress.summary,
    tally: progress.tally,
    onSummarise: (throughIteration) =>
      context.progress({
        progress: progress.finishedTurns,
        total: progress.totalTurns,
        message: `summarising iterations 0-${throughIteration} to fit the context budget`,
      }),
  });
  progress.earlier = fit.earlier;
  progress.summary = fit.summary;
  progress.shortened.push(...fit.shortened);
  const input: TurnPromptInput = {
    topic: progress.session.topic,
    context: progress.session.context,
    iteration: progress.iteration,
    earlier: fit.earlier,
    documents: fit.documents,
    directives: act === "review" ? [] : progress.directives,
  };
  const answers = await mapConcurrent(step, context.concurrency, async (turn, index) => {
    const agent = agentOf(progress.session, turn.agent);
    const answer = await askAgent(
      context,
      modes[index] as (typeof modes)[number],
      input,
      overridesOf(agent),
      progress.tally,
    );
    progress.finishedTurns += 1;
    context.progress({
      progress: progress.finishedTurns,
      total: progress.totalTurns,
      message: `iteration ${progress.iteration}: ${turn.agent} ${pastTense[act]}`,
    });
    return answer;
  });
  const stepResults = step.map((turn, index) =>
    turnResult(progress, turn, stepIndex, answers[index] as TurnResult["answer"]),
  );
  progress.results.push(...stepResults);
  if (act === "review") {
    progress.directives = stepResults.flatMap((result) =>
      (result.answer.object as ReviewAnswer).directives.map((directive) => ({
        agent: result.turn.agent,
        criterion: directive.criterion,
        directive: directive.directive,
      })),
    );
    progress.finalReviews = stepResults;
    return;
  }
  progress.documentAnswers = stepResults.map((result) => ({
    agent: result.turn.agent,
    answer: result.answer.object as DocumentAnswer,
  }));
  progress.documents = stepResults.map((result) => ({
    author: result.turn.agent,
    iteration: progress.iteration,
    content: (result.answer.object as DocumentAnswer).document,
  }));
  progress.directives = [];
}
