import { z } from "zod";
import { nonEmptyText, unitInterval } from "../coerce.ts";
import { defineTool } from "../tool-definition.ts";
import { lazySchema } from "../lazy-schema.ts";

export const linearInputSchema = lazySchema(() =>
  z.object({
    content: nonEmptyText("content").describe("Thought to process"),
    session_id: z.string().min(1).optional().describe("Session for context continuity; omit to start a new one"),
    confidence: unitInterval().optional().describe("Your confidence in the thought, 0..1"),
  }),
);

export const linearOutputSchema = lazySchema(() =>
  z.object({
    thought_id: z.string().describe("Unique identifier for this thought"),
    session_id: z.string().describe("Session this thought belongs to"),
    content: z.string().describe("The reasoning continuation"),
    confidence: z.number().min(0).max(1).describe("Model's confidence in the reasoning"),
    next_step: z.string().optional().describe("Suggested next reasoning step"),
  }),
);

export const linearTool = defineTool({
  name: "reasoning_linear",
  description:
    "Single-pass sequential reasoning. Process a thought and get a logical continuation with confidence scoring. Pass session_id to continue a session: its recent thoughts are given to the model as context.",
  inputSchema: linearInputSchema,
  outputSchema: linearOutputSchema,
  annotations: {
    title: "Linear Reasoning",
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: true,
  },
  operations: [],
  usesModel: true,
});
