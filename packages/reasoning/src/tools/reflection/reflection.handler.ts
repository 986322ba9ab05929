import { DeliberateError, reflectionTool, type ToolOutput } from "@deliberate/contracts";
import { nowIso, runMode } from "@deliberate/engine";
import { type ReasoningContext, defineHandler } from "../../define-handler.ts";
import { type CritiqueAnswer, critiqueMode, evaluationMode, revisionMode, rubricQuality } from "./reflection.mode.ts";
import {
  ensureSession,
  formatHistory,
  historyMessages,
  loadSessionHistory,
  type SessionHistory,
} from "../../session-history.ts";

type ReflectionOutput = ToolOutput<typeof reflectionTool>;

/** Most thoughts an evaluation reads; older ones are summarised by count. */
const evaluationWindow = 40;

async function subjectOf(
  input: { content?: string; thought_id?: string; session_id?: string },
  context: ReasoningContext,
) {
  if (input.thought_id === undefined)
    return { content: input.content as string, sessionId: input.session_id, parentId: null };
  const thought = await context.store.thoughts.get(input.thought_id);
  if (input.session_id !== undefined && input.session_id !== thought.session_id) {
    throw new DeliberateError({
      code: "INVALID_INPUT",
      message: `Thought ${thought.id} belongs to session ${thought.session_id}, not ${input.session_id}.`,
      issues: [{ field: "session_id", message: `thought '${thought.id}' is in session '${thought.session_id}'` }],
      hint: "Omit session_id, or pass the session the thought belongs to.",
    });
  }
  // Explicit content wins over the stored thought; the thought still anchors the session.
  return { content: input.content ?? thought.content, sessionId: thought.session_id, parentId: thought.id };
}

/**
 * Iterative refinement with a separate critic: every draft is critiqued
 * against the rubric (its quality is the weighted mean of the rubric scores,
 * computed here); while it is below the threshold and revisions remain, a
 * revision call that sees the critique rewrites it, and the new draft is
 * critiqued in turn. Calls depend on each other, so they run in sequence. The
 * assessment returned (quality, strengths, weaknesses, recommendations) is the
 * critique of the final draft.
 */
async function process(
  input: {
    content?: string;
    thought_id?: string;
    session_id?: string;
    max_iterations: number;
    quality_threshold: number;
  },
  context: ReasoningContext,
): Promise<ReflectionOutput> {
  const subject = await subjectOf(input, context);
  const history: SessionHistory = await loadSessionHistory(context, subject.sessionId);
  const messages = { history: historyMessages(history) };
  const total = 1 + 2 * input.max_iterations;
  let calls = 0;
  const step = (message: string) => {
    calls += 1;
    context.progress({ progress: calls, total, message });
  };

  let draft = subject.content;
  let critique: CritiqueAnswer = await runMode(context, critiqueMode, { draft }, messages);
  let quality = rubricQuality(critique.scores);
  const scores: number[] = [quality];
  step(`draft 1 critiqued: quality ${quality}`);
  let revisions = 0;
  while (quality < input.quality_threshold && revisions < input.max_iterations) {
    const revision = await runMode(context, revisionMode, { draft, critique }, messages);
    revisions += 1;
    draft = revision.refined_content;
    step(`revision ${revisions} written`);
    critique = await runMode(context, critiqueMode, { draft }, messages);
    quality = rubricQuality(critique.scores);
    scores.push(quality);
    step(`draft ${revisions + 1} critiqued: quality ${quality}`);
  }
  if (calls < total)
    context.progress({ progress: total, total, message: `done: quality ${quality} after ${revisions} revision(s)` });

  const thoughtId = context.ids.next("th");
  const now = nowIso(context);
  await context.store.transaction(async (repositories) => {
    await ensureSession(repositories, history, "reflection", now);
    await repositories.thoughts.append({
      id: thoughtId,
      session_id: history.sessionId,
      branch_id: history.session?.active_branch_id ?? null,
      parent_id: subject.parentId ?? history.thoughts.at(-1)?.id ?? null,
      mode: "reflection",
      content: draft,
      confidence: quality,
      metadata: {
        original: subject.content,
        iterations: revisions,
        quality_by_iteration: scores,
        rubric_scores: critique.scores,
      },
      created_at: now,
    });
  });

  return {
    thought_id: thoughtId,
    session_id: history.sessionId,
    quality_score: quality,
    iterations_used: revisions,
    rubric_scores: critique.scores,
    strengths: critique.strengths,
    weaknesses: critique.weaknesses,
    recommendations: critique.recommendations,
    refined_content: draft,
  };
}

async function evaluate(sessionId: string, context: ReasoningContext): Promise<ReflectionOutput> {
  await context.store.sessions.get(sessionId);
  const thoughts = await context.store.thoughts.listBySession(sessionId, { activeOnly: true });
  if (thoughts.length === 0) {
    throw new DeliberateError({
      code: "CONFLICT",
      message: `Session ${sessionId} has no thoughts to evaluate.`,
      issues: [{ field: "session_id", message: "session is empty" }],
      hint: "Reason in the session first (e.g. reasoning_linear with this session_id), then evaluate.",
    });
  }
  const window = thoughts.slice(-evaluationWindow);
  const omitted = thoughts.length - window.length;
  const transcript = (omitted > 0 ? `(${omitted} earlier steps omitted)\n` : "") + formatHistory(window);
  const answer = await runMode(context, evaluationMode, { transcript, thoughtCount: thoughts.length });
  return {
    session_id: sessionId,
    quality_score: answer.quality_score,
    coherence_score: answer.coherence_score,
    strengths: answer.strengths,
    weaknesses: answer.weaknesses,
    recommendations: answer.recommendations,
  };
}

export const reflectionHandler = defineHandler(reflectionTool, async (input, context) => {
  if (input.operation === "evaluate") return evaluate(input.session_id as string, context);
  return process(input, context);
});
