import { z } from "zod";
import { looseBoolean, looseInteger, nonEmptyText } from "../coerce.ts";
import { defineTool } from "../tool-definition.ts";
import { lazySchema } from "../lazy-schema.ts";

export const divergentInputSchema = lazySchema(() =>
  z.object({
    content: nonEmptyText("content"),
    session_id: z.string().min(1).optional(),
    num_perspectives: looseInteger({ min: 2, max: 5 }).default(3),
    challenge_assumptions: looseBoolean().default(false),
    force_rebellion: looseBoolean().default(false),
  }),
);

export const perspectiveSchema = lazySchema(() =>
  z.object({
    viewpoint: z.string().describe("Name/description of this perspective"),
    content: z.string().describe("Reasoning from this perspective"),
    novelty_score: z.number().min(0).max(1),
  }),
);

export const divergentOutputSchema = lazySchema(() =>
  z.object({
    thought_id: z.string(),
    session_id: z.string(),
    perspectives: z.array(perspectiveSchema),
    challenged_assumptions: z.array(z.string()).optional(),
    synthesis: z.string().optional().describe("Unified insight from all perspectives"),
  }),
);

export const divergentTool = defineTool({
  name: "reasoning_divergent",
  description:
    "Creative reasoning generating novel perspectives. Challenges assumptions, synthesizes diverse viewpoints, and produces unconventional solutions with optional force_rebellion mode for maximum creativity.",
  inputSchema: divergentInputSchema,
  outputSchema: divergentOutputSchema,
  annotations: {
    title: "Divergent Reasoning",
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: true,
  },
  operations: [],
  usesModel: true,
});
