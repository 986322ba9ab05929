import { z } from "zod";
import { looseBoolean, looseInteger, looseNumber, nonEmptyText, unitInterval } from "../coerce.ts";
import { defineTool } from "../tool-definition.ts";
import { requireFields } from "./require-fields.ts";
import { lazySchema } from "../lazy-schema.ts";

export const mctsOperationSchema = lazySchema(() => z.enum(["explore", "auto_backtrack"]));

export const mctsInputSchema = lazySchema(() =>
  z
    .object({
      operation: mctsOperationSchema
        .default("explore")
        .describe("explore=MCTS search with UCB1, auto_backtrack=quality-triggered backtracking"),
      content: nonEmptyText("content").optional().describe("For explore: the problem to search from (a new root)"),
      session_id: z
        .string()
        .min(1, "session_id must not be empty")
        .optional()
        .describe("Required for auto_backtrack and with node_id; omit on explore to start a new session"),
      node_id: z
        .string()
        .min(1, "node_id must not be empty")
        .optional()
        .describe("For explore: continue searching from this stored node (its subtree keeps its statistics)"),
      iterations: looseInteger({ min: 1, max: 100 }).default(10),
      exploration_constant: looseNumber(z.number().min(0).max(10))
        .default(Math.SQRT2)
        .describe("c in UCB1 = Q/N + c*sqrt(ln(N_parent)/N)"),
      simulation_depth: looseInteger({ min: 1, max: 20 })
        .default(5)
        .describe("Deepest level the search expands below its root"),
      branching_factor: looseInteger({ min: 1, max: 5 })
        .default(3)
        .describe("Candidate next steps the model proposes per expansion"),
      quality_threshold: unitInterval().default(0.5),
      auto_execute: looseBoolean()
        .default(false)
        .describe("For auto_backtrack: restore the earlier state when backtracking is advised"),
      lookback_depth: looseInteger({ min: 1, max: 10 })
        .default(5)
        .describe("For auto_backtrack: how many earlier scored steps to consider"),
    })
    .superRefine(requireFields({ auto_backtrack: ["session_id"] }))
    .superRefine((value, context) => {
      if (value.operation !== "explore") return;
      if (value.content === undefined && value.node_id === undefined) {
        context.addIssue({
          code: "custom",
          path: ["content"],
          message: "content (or node_id with session_id) is required for operation 'explore'",
        });
      }
      if (value.node_id !== undefined && value.session_id === undefined) {
        context.addIssue({
          code: "custom",
          path: ["session_id"],
          message: "session_id is required with node_id: pass the session the node belongs to",
        });
      }
      if (value.node_id !== undefined && value.content !== undefined) {
        context.addIssue({
          code: "custom",
          path: ["content"],
          message: "give content to start a new search or node_id to continue one, not both",
        });
      }
    }),
);

export const mctsPathNodeSchema = lazySchema(() =>
  z.object({
    node_id: z.string(),
    content: z.string(),
    ucb_score: z.number().describe("UCB1 of the node under its parent at the end of the search"),
    visits: z.number().int(),
    mean_value: z.number().min(0).max(1).describe("Q/N: mean evaluation backed up through the node"),
    depth: z.number().int().describe("Levels below the search tree's root"),
  }),
);

export const backtrackSuggestionSchema = lazySchema(() =>
  z.object({
    should_backtrack: z.boolean(),
    target_step: z.number().int().optional().describe("1-based step (active thought) to return to"),
    target_thought_id: z.string().optional(),
    reason: z.string(),
    quality_drop: z.number().optional().describe("Quality at the target step minus the current quality"),
    current_quality: z.number().optional(),
  }),
);

export const mctsOutputSchema = lazySchema(() =>
  z.object({
    session_id: z.string(),
    root_node_id: z.string().optional().describe("For explore: the search tree's root"),
    best_path: z
      .array(mctsPathNodeSchema)
      .optional()
      .describe("For explore: from the root's most visited child down, by visits"),
    iterations_completed: z.number().int().optional(),
    tree_size: z.number().int().optional().describe("For explore: nodes in the search tree"),
    thought_id: z.string().optional().describe("For explore: the thought recording the best path's conclusion"),
    backtrack_suggestion: backtrackSuggestionSchema.optional().describe("For auto_backtrack operation"),
    quality_history: z
      .array(z.object({ step: z.number().int(), thought_id: z.string(), quality: z.number() }))
      .optional()
      .describe("For auto_backtrack: the scored steps considered, oldest first"),
    executed: z.boolean().optional().describe("Whether backtrack was auto-executed"),
    checkpoint_id: z
      .string()
      .optional()
      .describe("When executed: checkpoint of the state before backtracking (reasoning_checkpoint restore undoes it)"),
    superseded_thought_count: z
      .number()
      .int()
      .optional()
      .describe("When executed: later thoughts set aside (kept, not deleted)"),
  }),
);

export const mctsTool = defineTool({
  name: "reasoning_mcts",
  description:
    "Monte Carlo Tree Search for guided reasoning exploration. Operations: EXPLORE uses UCB1 formula (Q/N + c*sqrt(ln(N_parent)/N)) to balance exploitation of promising paths with exploration of novel ones, runs iterations rollouts with simulation_depth, controlled by exploration_constant (default sqrt(2)); AUTO_BACKTRACK monitors reasoning quality and suggests/executes backtracking when quality drops below quality_threshold, looking back lookback_depth steps. The model proposes and evaluates steps (0..1); selection, backpropagation and the best path (by visits) are computed in code, and the tree is stored.",
  inputSchema: mctsInputSchema,
  outputSchema: mctsOutputSchema,
  annotations: {
    title: "MCTS Exploration",
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: true,
  },
  operations: mctsOperationSchema.options,
  usesModel: true,
});
