import { z } from "zod";
import { nonEmptyText } from "../coerce.ts";
import { defineTool } from "../tool-definition.ts";
import { lazySchema } from "../lazy-schema.ts";

/** Modes auto can route to and run today. */
export const autoModeSchema = lazySchema(() =>
  z.enum(["linear", "tree", "divergent", "reflection", "graph", "timeline", "mcts", "counterfactual"]),
);

export const autoInputSchema = lazySchema(() =>
  z.object({
    content: nonEmptyText("content"),
    hints: z.array(z.string()).optional(),
    session_id: z.string().min(1).optional(),
  }),
);

export const autoOutputSchema = lazySchema(() =>
  z.object({
    selected_mode: autoModeSchema,
    confidence: z.number().min(0).max(1),
    rationale: z.string().optional().describe("Why this mode was selected"),
    result: z.record(z.string(), z.unknown()).describe("Result from executing the selected mode"),
  }),
);

export const autoTool = defineTool({
  name: "reasoning_auto",
  description:
    "Automatically select best reasoning mode based on content analysis. Analyzes the input and routes to the optimal mode (linear, tree, divergent, reflection, graph, etc.) with explanation, then runs that mode and returns its result.",
  inputSchema: autoInputSchema,
  outputSchema: autoOutputSchema,
  annotations: {
    title: "Auto Mode Selection",
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: true,
  },
  operations: [],
  usesModel: true,
});
