import {
  DeliberateError,
  defaultDialogPlan,
  type startReasoningSessionTool,
  type ToolInput,
  type ToolOutput,
} from "@deliberate/contracts";
import {
  type DialogModuleOptions,
  type DialogToolContext,
  defaultContextBudgetTokens,
  defaultIdleTimeoutMinutes,
} from "../../dialog-context.ts";
import { createProducerMode } from "../../modes/document.mode.ts";
import { presetByName } from "../../presets/builtin-presets.ts";
import { nextStepFor } from "../../session-state.ts";
import { estimateTokens } from "../../token-estimate.ts";

type StartInput = ToolInput<typeof startReasoningSessionTool>;
type StartOutput = ToolOutput<typeof startReasoningSessionTool>;

/**
 * Creates a session (a shared session row and the dialog records) from a preset or custom
 * agents. No model call. Refuses, writing nothing, a topic and context whose first prompt
 * would not fit the context budget.
 */
export async function startReasoningSession(
  input: StartInput,
  context: DialogToolContext,
  options: DialogModuleOptions = {},
): Promise<StartOutput> {
  const preset = presetByName(input.mode);
  const agents = input.agents ?? [...preset.agents];
  const plan = input.turns ?? (input.agents ? defaultDialogPlan(agents.map((agent) => agent.name)) : preset.turns);
  const contextBudgetTokens = input.contextBudgetTokens ?? options.contextBudgetTokens ?? defaultContextBudgetTokens;
  const idleTimeoutMinutes = input.idleTimeoutMinutes ?? options.idleTimeoutMinutes ?? defaultIdleTimeoutMinutes;

  // The first prompt (persona, rules, topic, context) must fit, or no iteration ever could.
  const firstPrompt = Math.max(
    ...(plan[0] ?? []).map((turn) => {
      const agent = agents.find((candidate) => candidate.name === turn.agent) ?? agents[0];
      const mode = createProducerMode(agent as (typeof agents)[number], preset);
      const prompt = mode.prompt({
        topic: input.topic,
        context: input.context ?? null,
        iteration: 0,
        earlier: { summary: null, turns: [] },
        documents: [],
        directives: [],
      });
      return estimateTokens(mode.system) + estimateTokens(prompt);
    }),
  );
  // Later prompts also carry the document (up to a quarter of the budget is a fair minimum to leave).
  if (firstPrompt > contextBudgetTokens * 0.75) {
    const field = input.context !== undefined ? "context" : "contextBudgetTokens";
    throw new DeliberateError({
      code: "INVALID_INPUT",
      message: `The first prompt needs about ${firstPrompt} tokens, more than three quarters of the ${contextBudgetTokens}-token context budget, which leaves no room for the document. Nothing was written.`,
      issues: [
        { field, message: `about ${firstPrompt} tokens before any document; the budget is ${contextBudgetTokens}` },
      ],
      hint: "Shorten context or the agents' system prompts, or raise contextBudgetTokens.",
    });
  }

  const now = context.clock.now();
  const sessionId = context.ids.next("ses");
  const threadId = context.ids.next("thr");
  const createdAt = now.toISOString();
  const session = await context.store.transaction(async (repositories) => {
    await repositories.sessions.create({ id: sessionId, mode: "dialog", now: createdAt });
    return repositories.dialogSessions.createSession({
      session_id: sessionId,
      thread_id: threadId,
      topic: input.topic,
      context: input.context ?? null,
      mode: input.mode,
      plan,
      agents,
      max_iterations: input.maxIterations,
      quality_threshold: input.qualityThreshold,
      token_budget: input.tokenBudget ?? null,
      wall_time_budget_seconds: input.wallTimeBudgetSeconds ?? null,
      context_budget_tokens: contextBudgetTokens,
      idle_timeout_seconds: idleTimeoutMinutes * 60,
      created_at: createdAt,
    });
  });
  return {
    session_id: session.session_id,
    thread_id: session.thread_id,
    agents: session.agents.map((agent) => agent.name),
    status: "started",
    next_step: nextStepFor(session.session_id, "started", 0, false),
    mode: session.mode,
    turns: session.plan,
    criteria: preset.criteria.map((criterion) => ({ ...criterion })),
    stopping: {
      max_iterations: session.max_iterations,
      quality_threshold: session.quality_threshold,
      token_budget: session.token_budget,
      wall_time_budget_seconds: session.wall_time_budget_seconds,
    },
    context_budget_tokens: session.context_budget_tokens,
    expires_at: new Date(now.getTime() + session.idle_timeout_seconds * 1000).toISOString(),
  };
}
