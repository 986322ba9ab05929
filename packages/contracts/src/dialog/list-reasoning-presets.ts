import { z } from "zod";
import { defineTool } from "../tool-definition.ts";
import { agentConfigSchema, dialogPresetNameSchema } from "./agent.ts";
import { dialogCriterionSchema } from "./exchange.ts";
import { dialogTurnSchema } from "./plan.ts";
import { lazySchema } from "../lazy-schema.ts";

export const listReasoningPresetsInputSchema = lazySchema(() => z.strictObject({}));

export const dialogPresetSchema = lazySchema(() =>
  z.object({
    name: dialogPresetNameSchema,
    description: z.string(),
    agents: z.array(agentConfigSchema),
    mode: dialogPresetNameSchema,
    recommended_for: z.array(z.string()),
    turns: z
      .array(z.array(dialogTurnSchema))
      .describe("Who speaks when: steps in order, the turns of a step concurrently"),
    criteria: z.array(dialogCriterionSchema).describe("The reviewers' rubric"),
  }),
);
export type DialogPresetSummary = z.infer<typeof dialogPresetSchema>;

export const listReasoningPresetsOutputSchema = lazySchema(() => z.object({ presets: z.array(dialogPresetSchema) }));

export const listReasoningPresetsTool = defineTool({
  name: "list_reasoning_presets",
  description:
    "List the reasoning-session presets: objective_refinement (Dialog + Think), exploration (Dialog + Think), debate (Dialog + Critic), synthesis (Dialog + Think + Synthesizer) and code_review (Reviewer + Implementer). Each gives its agents with their system prompts (in speaking order: copied into start_reasoning_session they keep the preset's turns), mode, recommended uses, turns (who speaks when in an iteration: steps in order, turns of a step concurrently) and the rubric criteria its reviewers score, with weights. Pass a preset name as mode to start_reasoning_session. Read-only.",
  inputSchema: listReasoningPresetsInputSchema,
  outputSchema: listReasoningPresetsOutputSchema,
  annotations: {
    title: "List Reasoning Presets",
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  operations: [],
  usesModel: false,
});
