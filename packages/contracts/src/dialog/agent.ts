import { z } from "zod";
import { looseInteger, looseNumber } from "../coerce.ts";
import { lazySchema } from "../lazy-schema.ts";

/** Bounds of dialog-session input; the schemas and the docs both read them from here. */
export const dialogLimits = {
  minAgents: 2,
  maxAgents: 8,
  maxAgentNameLength: 40,
  maxRoleLength: 200,
  maxSystemPromptLength: 8_000,
  maxModelIdLength: 200,
  minAgentMaxTokens: 64,
  maxAgentMaxTokens: 32_000,
  maxTemperature: 2,
  maxTopicLength: 4_000,
  maxContextLength: 100_000,
  maxIterations: 20,
  minTokenBudget: 100,
  maxTokenBudget: 50_000_000,
  maxWallTimeBudgetSeconds: 7 * 24 * 60 * 60,
  minContextBudgetTokens: 500,
  maxContextBudgetTokens: 2_000_000,
  maxIdleTimeoutMinutes: 30 * 24 * 60,
  maxSteps: 6,
  maxTurns: 16,
} as const;

/** Agent names: a letter, then letters, digits, `_` or `-` (they appear in prompts, plans and transcripts). */
export const agentNamePattern = /^[A-Za-z][A-Za-z0-9_-]*$/;

/** The five built-in presets; also the `mode` of a session (which rubric and instructions apply). */
export const dialogPresetNameSchema = lazySchema(() =>
  z.enum(["objective_refinement", "exploration", "debate", "synthesis", "code_review"]),
);
export type DialogPresetName = z.infer<typeof dialogPresetNameSchema>;

/**
 * What an agent does in a turn: `produce` writes the complete document (iteration 0: an analysis of
 * the topic; later: the refined document incorporating every directive), `merge` combines the
 * current documents into one, `review` returns 2-3 directives and rubric scores of the document.
 */
export const dialogActSchema = lazySchema(() => z.enum(["produce", "merge", "review"]));
export type DialogAct = z.infer<typeof dialogActSchema>;

/** One agent of a session (the spec's AgentConfig); unknown keys are refused, naming the right spelling. */
export const agentConfigSchema = lazySchema(() =>
  z.strictObject({
    name: z
      .string()
      .trim()
      .min(1, "name must not be empty")
      .max(dialogLimits.maxAgentNameLength, `name must be at most ${dialogLimits.maxAgentNameLength} characters`)
      .regex(agentNamePattern, "name must start with a letter and contain only letters, digits, '_' and '-'")
      .describe("Unique within the session, e.g. dialog, think, critic, synthesizer"),
    role: z
      .string()
      .trim()
      .min(1, "role must not be empty")
      .max(dialogLimits.maxRoleLength, `role must be at most ${dialogLimits.maxRoleLength} characters`)
      .describe("Human-readable role description"),
    systemPrompt: z
      .string()
      .trim()
      .min(1, "systemPrompt must not be empty")
      .max(
        dialogLimits.maxSystemPromptLength,
        `systemPrompt must be at most ${dialogLimits.maxSystemPromptLength} characters`,
      )
      .describe("The agent's persona: its full system prompt"),
    model: z
      .string()
      .trim()
      .min(1, "model must not be empty")
      .max(dialogLimits.maxModelIdLength)
      .optional()
      .describe("Model id for this agent on the server's provider (default: the session default)"),
    temperature: looseNumber(z.number().min(0).max(dialogLimits.maxTemperature))
      .optional()
      .describe("Override temperature, 0..2"),
    maxTokens: looseInteger({ min: dialogLimits.minAgentMaxTokens, max: dialogLimits.maxAgentMaxTokens })
      .optional()
      .describe(`Max response tokens, ${dialogLimits.minAgentMaxTokens}..${dialogLimits.maxAgentMaxTokens}`),
  }),
);
export type AgentConfig = z.infer<typeof agentConfigSchema>;

/** Custom agents: 2 to 8, names unique ignoring case. */
export const agentListSchema = lazySchema(() =>
  z
    .array(agentConfigSchema)
    .min(dialogLimits.minAgents, `agents needs at least ${dialogLimits.minAgents} agents`)
    .max(dialogLimits.maxAgents, `agents takes at most ${dialogLimits.maxAgents} agents`)
    .superRefine((agents, context) => {
      const seen = new Map<string, number>();
      agents.forEach((agent, index) => {
        const key = agent.name.toLowerCase();
        const first = seen.get(key);
        if (first !== undefined) {
          context.addIssue({
            code: "custom",
            path: [index, "name"],
            message: `'${agent.name}' is already the name of agents.${first}; agent names must be unique`,
          });
        } else {
          seen.set(key, index);
        }
      });
    }),
);
