import { z } from "zod";
import { looseInteger, unitInterval } from "../coerce.ts";
import { defineTool } from "../tool-definition.ts";
import { agentListSchema, dialogLimits, dialogPresetNameSchema } from "./agent.ts";
import { dialogCriterionSchema, dialogStoppingSchema } from "./exchange.ts";
import { dialogPlanProblems, dialogPlanSchema, dialogTurnSchema } from "./plan.ts";
import { lazySchema } from "../lazy-schema.ts";

export const startReasoningSessionInputSchema = lazySchema(() =>
  z
    .strictObject({
      topic: z
        .string()
        .trim()
        .min(1, "topic must not be empty")
        .max(
          dialogLimits.maxTopicLength,
          `topic must be at most ${dialogLimits.maxTopicLength} characters; put the rest in context`,
        )
        .describe("What to reason about"),
      context: z
        .string()
        .max(dialogLimits.maxContextLength, `context must be at most ${dialogLimits.maxContextLength} characters`)
        .optional()
        .describe("Additional context (prior conversation, code under review, ...)"),
      agents: agentListSchema
        .optional()
        .describe("Custom agents, 2 to 8 with unique names (default: the preset's agents)"),
      maxIterations: looseInteger({ min: 1, max: dialogLimits.maxIterations })
        .default(3)
        .describe("Max exchanges (default 3)"),
      qualityThreshold: unitInterval()
        .default(0.8)
        .describe("Stop when the reviewers' score reaches this, 0..1 (default 0.8)"),
      mode: dialogPresetNameSchema
        .default("objective_refinement")
        .describe("Preset: its agents, plan, rubric and instructions"),
      tokenBudget: looseInteger({ min: dialogLimits.minTokenBudget, max: dialogLimits.maxTokenBudget })
        .optional()
        .describe("Stop when the session's tokens reach this, or the next exchange would pass it"),
      wallTimeBudgetSeconds: looseInteger({ min: 1, max: dialogLimits.maxWallTimeBudgetSeconds })
        .optional()
        .describe("Stop when this much time since the start has passed, or the next exchange would pass it"),
      contextBudgetTokens: looseInteger({
        min: dialogLimits.minContextBudgetTokens,
        max: dialogLimits.maxContextBudgetTokens,
      })
        .optional()
        .describe("Prompt size per agent call (default 32000); earlier exchanges are summarised to fit"),
      idleTimeoutMinutes: looseInteger({ min: 1, max: dialogLimits.maxIdleTimeoutMinutes })
        .optional()
        .describe("The session expires after this long without activity (default: the server's setting)"),
      turns: z
        .array(z.array(dialogTurnSchema))
        .optional()
        .describe(
          "Who speaks when, with custom agents: steps in order, turns of a step concurrently; the author of the current document never reviews it",
        ),
    })
    .superRefine((value, context) => {
      if (value.turns === undefined) return;
      if (value.agents === undefined) {
        context.addIssue({
          code: "custom",
          path: ["turns"],
          message: "turns needs custom agents; a preset's agents speak in the preset's order",
        });
        return;
      }
      const shape = dialogPlanSchema.safeParse(value.turns);
      if (!shape.success) {
        for (const issue of shape.error.issues)
          context.addIssue({
            code: "custom",
            path: ["turns", ...issue.path.map((part) => part as string | number)],
            message: issue.message,
          });
        return;
      }
      const names = value.agents.map((agent) => agent.name);
      for (const problem of dialogPlanProblems(shape.data, names))
        context.addIssue({ code: "custom", path: ["turns", ...problem.path], message: problem.message });
    }),
);

export const startReasoningSessionOutputSchema = lazySchema(() =>
  z.object({
    session_id: z.string(),
    thread_id: z.string(),
    agents: z.array(z.string()),
    status: z.literal("started"),
    next_step: z.string(),
    mode: dialogPresetNameSchema,
    turns: z.array(z.array(dialogTurnSchema)).describe("Who speaks when in each iteration"),
    criteria: z.array(dialogCriterionSchema).describe("The reviewers' rubric"),
    stopping: dialogStoppingSchema,
    context_budget_tokens: z.number().int(),
    expires_at: z.string().describe("ISO 8601; later without activity the session expires"),
  }),
);

export const startReasoningSessionTool = defineTool({
  name: "start_reasoning_session",
  description:
    "Start a multi-agent reasoning session on a topic. Agents (the preset's, or 2-8 custom {name, role, systemPrompt, model?, temperature?, maxTokens?}) take turns: a producer writes a complete document, reviewers return 2-3 directives and rubric scores, the next iteration refines it. mode picks the preset (objective_refinement, exploration, debate, synthesis, code_review): agents, plan and rubric. Stops at qualityThreshold, maxIterations, or the optional tokenBudget / wallTimeBudgetSeconds. turns (custom agents only): steps of {agent, act: produce|merge|review}; by default 2 agents produce then review, with n>=3 the first n-1 produce, the last merges, the first n-1 review; nobody reviews their own document. Makes no model call; then call run_reasoning_exchange.",
  inputSchema: startReasoningSessionInputSchema,
  outputSchema: startReasoningSessionOutputSchema,
  annotations: {
    title: "Start Reasoning Session",
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: false,
  },
  operations: [],
  usesModel: false,
});
