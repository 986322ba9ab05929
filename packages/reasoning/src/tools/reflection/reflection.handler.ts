import { DeliberateError, reflectionTool, type ToolOutput } from "@deliberate/contracts";
import { nowIso, runMode } from "@deliberate/engine";
import { type ReasoningContext, defineHandler } from "../../define-handler.ts";
import { type critiqueAnswerSchema, evaluationMode, reflectionMode } from "./reflection.mode.ts";
import type { z } from "zod";
import { ensureSession, formatHistory, loadSessionHistory, type SessionHistory } from "../../session-history.ts";

type ReflectionOutput = ToolOutput<typeof reflectionTool>;

/** Most thoughts an evaluation reads; older ones are summarised by count. */
const evaluationWindow = 40;

async function subjectOf(input: { content?: string; thought_id?: string; session_id?: string }, context: ReasoningContext) {
  if (input.thought_id === undefined) return { content: input.content as string, sessionId: input.session_id, parentId: null };
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
 * Iterative refinement: each round critiques the latest version and rewrites
 * it; rounds depend on each other, so they run in sequence, stopping as soon as
 * the rewrite reaches the quality threshold.
 */
async function process(
  input: { content?: string; thought_id?: string; session_id?: string; max_iterations: number; quality_threshold: number },
  context: ReasoningContext,
): Promise<ReflectionOutput> {
  const subject = await subjectOf(input, context);
  const history: SessionHistory = await loadSessionHistory(context, subject.sessionId);
  const historyText = formatHistory(history.thoughts);
  let current = subject.content;
  let critique: z.infer<typeof critiqueAnswerSchema> | undefined;
  let iterations = 0;
  const scores: number[] = [];
  while (iterations < input.max_iterations) {
    iterations += 1;
    critique = await runMode(context, reflectionMode, { content: current, iteration: iterations, history: historyText });
    current = critique.refined_content;
    scores.push(critique.refined_quality_score);
    context.progress({ progress: iterations, total: input.max_iterations, message: `iteration ${iterations}: quality ${critique.refined_quality_score}` });
    if (critique.refined_quality_score >= input.quality_threshold) break;
  }
  const last = critique as NonNullable<typeof critique>;

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
      content: last.refined_content,
      confidence: last.refined_quality_score,
      metadata: { original: subject.content, iterations, quality_by_iteration: scores },
      created_at: now,
    });
  });

  return {
    thought_id: thoughtId,
    session_id: history.sessionId,
    quality_score: last.refined_quality_score,
    iterations_used: iterations,
    strengths: last.strengths,
    weaknesses: last.weaknesses,
    recommendations: last.recommendations,
    refined_content: last.refined_content,
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
