import { z } from "zod";
import { looseInteger, nonEmptyText, unitInterval } from "../coerce.ts";
import { listPageInput, listPageSchema } from "../list-page.ts";
import { defineTool } from "../tool-definition.ts";
import { requireFields } from "./require-fields.ts";
import { lazySchema } from "../lazy-schema.ts";

export const graphOperationSchema = lazySchema(() =>
  z.enum(["init", "generate", "score", "aggregate", "refine", "prune", "finalize", "state"]),
);

/** Defaults applied when neither the call nor the graph (set at init) says otherwise. */
export const graphConfigDefaults = { max_nodes: 100, max_depth: 10, prune_threshold: 0.3 } as const;

/** Hard ceilings on the configurable limits, so one call cannot ask for unbounded work. */
export const graphConfigCeilings = { max_nodes: 100_000, max_depth: 100 } as const;

export const graphConfigSchema = lazySchema(() =>
  z
    .object({
      max_nodes: looseInteger({ min: 1, max: graphConfigCeilings.max_nodes })
        .optional()
        .describe("Most active (unpruned) nodes the graph may hold; default 100. Pruning frees room."),
      max_depth: looseInteger({ min: 1, max: graphConfigCeilings.max_depth })
        .optional()
        .describe("Deepest level a node may sit at (the root is depth 0); default 10"),
      prune_threshold: unitInterval()
        .optional()
        .describe("Threshold prune uses when `threshold` is not given; default 0.3"),
    })
    .describe("Limits. Given at init they are stored with the graph; given later they apply to that call only."),
);

const nodeIdList = lazySchema(() =>
  z.array(z.string().min(1, "node ids must not be empty")).max(50, "list at most 50 nodes per call"),
);

function distinct(field: string) {
  return (ids: readonly string[] | undefined, context: z.RefinementCtx): void => {
    if (ids === undefined) return;
    const seen = new Set<string>();
    ids.forEach((id, index) => {
      if (seen.has(id))
        context.addIssue({
          code: "custom",
          path: [field, index],
          message: `'${id}' is listed twice; list each node once`,
        });
      seen.add(id);
    });
  };
}

export const graphInputSchema = lazySchema(() =>
  z
    .object({
      operation: graphOperationSchema.describe(
        "init=create graph, generate=expand nodes, score=evaluate, aggregate=merge, refine=improve, prune=remove weak, finalize=extract conclusions, state=show structure",
      ),
      session_id: z
        .string()
        .min(1, "session_id must not be empty")
        .optional()
        .describe("The graph's session; required except for init (omit it there to start a new session)"),
      content: nonEmptyText("content").optional().describe("For init: the root thought"),
      problem: z
        .string()
        .trim()
        .min(1, "problem must not be empty")
        .optional()
        .describe("Problem context (stored at init; given later it applies to that call)"),
      node_id: z
        .string()
        .min(1, "node_id must not be empty")
        .optional()
        .describe("Target node (generate: omit to expand every active leaf; score; refine)"),
      node_ids: nodeIdList.optional().describe("For aggregate (two or more); for score, several nodes at once"),
      k: looseInteger({ min: 1, max: 10 }).default(3).describe("Continuations to generate per node"),
      threshold: unitInterval().optional().describe("Prune threshold; default config.prune_threshold (0.3)"),
      terminal_node_ids: nodeIdList.optional().describe("For finalize; omit to finalize every active leaf"),
      config: graphConfigSchema.optional(),
      ...listPageInput("For state (active nodes)", 200),
    })
    .superRefine(
      requireFields({
        init: ["content"],
        generate: ["session_id"],
        score: ["session_id"],
        aggregate: ["session_id", "node_ids"],
        refine: ["session_id", "node_id"],
        prune: ["session_id"],
        finalize: ["session_id"],
        state: ["session_id"],
      }),
    )
    .superRefine((value, context) => {
      distinct("node_ids")(value.node_ids, context);
      distinct("terminal_node_ids")(value.terminal_node_ids, context);
      if (value.operation === "aggregate" && value.node_ids !== undefined && value.node_ids.length < 2) {
        context.addIssue({
          code: "custom",
          path: ["node_ids"],
          message: "aggregate needs at least two node_ids to merge",
        });
      }
      if (
        value.operation === "score" &&
        value.node_id === undefined &&
        (value.node_ids === undefined || value.node_ids.length === 0)
      ) {
        context.addIssue({
          code: "custom",
          path: ["node_id"],
          message: "node_id (or node_ids) is required for operation 'score'",
        });
      }
      if (
        value.operation === "finalize" &&
        value.terminal_node_ids !== undefined &&
        value.terminal_node_ids.length === 0
      ) {
        context.addIssue({
          code: "custom",
          path: ["terminal_node_ids"],
          message: "list at least one node, or omit terminal_node_ids to finalize every active leaf",
        });
      }
    }),
);

export const graphNodeKindSchema = lazySchema(() => z.enum(["root", "continuation", "aggregation", "refinement"]));
export const graphEdgeKindSchema = lazySchema(() => z.enum(["continuation", "aggregation", "refinement"]));
export const graphNodeStatusSchema = lazySchema(() => z.enum(["active", "pruned"]));

export const graphNodeSchema = lazySchema(() =>
  z.object({
    id: z.string(),
    content: z.string(),
    score: z
      .number()
      .min(0)
      .max(1)
      .nullable()
      .describe("Mean of relevance, validity, depth and novelty (0..1); null until scored"),
    depth: z.number().int().describe("Distance from the root (root = 0)"),
    parent_id: z.string().nullable().describe("The node this one was derived from (null for the root)"),
    kind: graphNodeKindSchema,
    status: graphNodeStatusSchema,
    is_terminal: z.boolean(),
  }),
);

export const graphEdgeSchema = lazySchema(() =>
  z.object({ from: z.string(), to: z.string(), kind: graphEdgeKindSchema }),
);

export const graphStateSchema = lazySchema(() =>
  z.object({
    total_nodes: z.number().int().describe("Every stored node, pruned ones included"),
    active_nodes: z.number().int(),
    max_depth: z.number().int().describe("Deepest active node"),
    pruned_count: z.number().int(),
    terminal_count: z.number().int(),
    unscored_count: z.number().int().describe("Active nodes never scored"),
    root_node_id: z.string(),
    edges: z.object({ continuation: z.number().int(), aggregation: z.number().int(), refinement: z.number().int() }),
    limits: z.object({ max_nodes: z.number().int(), max_depth: z.number().int(), prune_threshold: z.number() }),
  }),
);

export const graphOutputSchema = lazySchema(() =>
  z.object({
    session_id: z.string(),
    node_id: z.string().optional().describe("Created/modified node ID"),
    nodes: z
      .array(graphNodeSchema)
      .optional()
      .describe("Generated/affected nodes (state: active nodes by depth, one page of them, 200 by default)"),
    edges: z.array(graphEdgeSchema).optional().describe("For state: edges among the listed nodes"),
    page: listPageSchema
      .optional()
      .describe("For state: the page of active nodes returned, their total and the next page's offset"),
    aggregated_insight: z.string().optional().describe("For aggregate operation"),
    conclusions: z.array(z.string()).optional().describe("For finalize"),
    threshold: z.number().optional().describe("For prune: the threshold applied"),
    state: graphStateSchema.optional().describe("Graph counts (state, prune)"),
  }),
);

export const graphTool = defineTool({
  name: "reasoning_graph",
  description:
    "Graph-of-Thoughts reasoning with nodes and edges. Operations: INIT creates new graph with root node from content; GENERATE creates k diverse continuations from node_id (or active nodes); SCORE evaluates node quality on relevance/validity/depth/novelty; AGGREGATE merges multiple node_ids into unified insight; REFINE improves a node through self-critique; PRUNE removes nodes below score threshold; FINALIZE marks terminal nodes and extracts conclusions; STATE returns current graph structure with node counts (active nodes a page at a time: limit, offset). Scores are the mean of the four criteria, computed in code. config.max_nodes / max_depth are enforced (LIMIT_EXCEEDED); pruned nodes are kept but set aside.",
  inputSchema: graphInputSchema,
  outputSchema: graphOutputSchema,
  annotations: {
    title: "Graph-of-Thoughts",
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: true,
  },
  operations: graphOperationSchema.options,
  usesModel: true,
});
