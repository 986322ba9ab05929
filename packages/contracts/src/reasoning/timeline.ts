import { z } from "zod";
import { nonEmptyText } from "../coerce.ts";
import { listPageInput, listPageSchema } from "../list-page.ts";
import { jsonScalarSchema, recordInput } from "../published-form.ts";
import { defineTool } from "../tool-definition.ts";
import { requireFields } from "./require-fields.ts";
import { lazySchema } from "../lazy-schema.ts";

export const timelineOperationSchema = lazySchema(() => z.enum(["create", "branch", "compare", "merge"]));
export const timelineMergeStrategySchema = lazySchema(() =>
  z.enum(["synthesize", "prefer_source", "prefer_target", "interleave"]),
);
export const timelineBranchStatusSchema = lazySchema(() => z.enum(["active", "merged"]));

export const timelineInputSchema = lazySchema(() =>
  z
    .object({
      operation: timelineOperationSchema.describe(
        "create=new timeline, branch=fork path, compare=analyze branches, merge=combine branches",
      ),
      content: nonEmptyText("content")
        .optional()
        .describe(
          "For create: the starting point. For branch: the alternative path (omit it and the model proposes one)",
        ),
      session_id: z
        .string()
        .min(1, "session_id must not be empty")
        .optional()
        .describe("Omit on create to start a new session"),
      timeline_id: z.string().min(1, "timeline_id must not be empty").optional().describe("For branch/compare/merge"),
      branch_ids: z
        .array(z.string().min(1, "branch ids must not be empty"))
        .optional()
        .describe("For compare (two or more); omit to compare every active branch"),
      source_branch_id: z.string().min(1, "source_branch_id must not be empty").optional().describe("For merge"),
      target_branch_id: z.string().min(1, "target_branch_id must not be empty").optional().describe("For merge"),
      parent_branch_id: z
        .string()
        .min(1, "parent_branch_id must not be empty")
        .optional()
        .describe("For branch; default the timeline's root (its first branch)"),
      merge_strategy: timelineMergeStrategySchema
        .default("synthesize")
        .describe(
          "synthesize=model integrates both; prefer_source/prefer_target=model merges, the preferred side wins conflicts; interleave=segments alternated in code (no model call)",
        ),
      label: z.string().trim().min(1, "label must not be empty").optional(),
      metadata: recordInput(z.unknown(), {
        keyName: "key",
        what: "metadata key",
        publishedValue: jsonScalarSchema,
      }).optional(),
      ...listPageInput("For branch and merge (the timeline's branches)"),
    })
    .superRefine(
      requireFields({
        create: ["content"],
        branch: ["timeline_id"],
        compare: ["timeline_id"],
        merge: ["timeline_id", "source_branch_id", "target_branch_id"],
      }),
    )
    .superRefine((value, context) => {
      if (
        value.operation === "merge" &&
        value.source_branch_id !== undefined &&
        value.source_branch_id === value.target_branch_id
      ) {
        context.addIssue({
          code: "custom",
          path: ["target_branch_id"],
          message: "source_branch_id and target_branch_id must be different branches",
        });
      }
      if (value.operation === "compare" && value.branch_ids !== undefined) {
        if (value.branch_ids.length < 2) {
          context.addIssue({
            code: "custom",
            path: ["branch_ids"],
            message: "compare needs at least two branch_ids (or omit branch_ids to compare every active branch)",
          });
        }
        const seen = new Set<string>();
        value.branch_ids.forEach((id, index) => {
          if (seen.has(id))
            context.addIssue({
              code: "custom",
              path: ["branch_ids", index],
              message: `'${id}' is listed twice; list each branch once`,
            });
          seen.add(id);
        });
      }
    }),
);

export const timelineBranchSchema = lazySchema(() =>
  z.object({
    id: z.string(),
    label: z.string(),
    content: z.string(),
    parent_branch_id: z.string().nullable(),
    status: timelineBranchStatusSchema,
    created_at: z.string().describe("ISO 8601 date-time"),
  }),
);

// Pairs are arrays of exactly two, not z.tuple: a tuple becomes `prefixItems` +
// `items: false`, which draft-07 validators (the MCP SDK's default among them)
// read as "no item allowed" and so reject every answer.
export const timelinePairSchema = lazySchema(() =>
  z.object({
    branch_ids: z.array(z.string()).length(2).describe("The two branches compared"),
    fork_branch_id: z
      .string()
      .describe("Nearest common ancestor branch (one of the pair when it descends from the other)"),
    steps_since_fork: z
      .array(z.number().int())
      .length(2)
      .describe("Branch hops from the fork to each branch, in branch_ids order"),
    content_overlap: z
      .number()
      .min(0)
      .max(1)
      .describe("Jaccard overlap of the two contents' word sets, computed in code"),
  }),
);

export const timelineComparisonSchema = lazySchema(() =>
  z.object({
    divergence_points: z.array(z.string()),
    quality_differences: z.object({
      by_branch: z.array(
        z.object({ branch_id: z.string(), quality: z.number().min(0).max(1), assessment: z.string() }),
      ),
      best_branch_id: z.string().describe("Highest quality (ties: the earliest branch)"),
      spread: z.number().describe("Best minus worst quality, computed in code"),
    }),
    convergence_opportunities: z.array(z.string()),
    pairs: z.array(timelinePairSchema).describe("Structural divergence of every pair, computed in code"),
  }),
);

export const timelineOutputSchema = lazySchema(() =>
  z.object({
    timeline_id: z.string(),
    session_id: z.string(),
    branch_id: z.string().optional().describe("Created branch (branch), main branch (create), merge target (merge)"),
    branches: z
      .array(timelineBranchSchema)
      .optional()
      .describe(
        "The timeline's branches in creation order, one page of them (create, branch, merge); the branches compared (compare)",
      ),
    page: listPageSchema
      .optional()
      .describe("For create, branch and merge: the page of branches returned, their total and the next page's offset"),
    comparison: timelineComparisonSchema.optional().describe("For compare operation"),
    merged_content: z.string().optional().describe("For merge operation"),
    merge_strategy: timelineMergeStrategySchema.optional(),
    conflicts: z
      .array(z.object({ source: z.string(), target: z.string(), kept: z.enum(["source", "target", "both"]) }))
      .optional()
      .describe("For merge: where the branches disagreed and what the merge kept"),
  }),
);

export const timelineTool = defineTool({
  name: "reasoning_timeline",
  description:
    "Timeline-based temporal reasoning with parallel path exploration. Operations: CREATE initializes a new timeline with content and optional metadata; BRANCH creates an alternative exploration path from parent_branch_id (default: the timeline's root); COMPARE analyzes divergence points, quality differences, and convergence opportunities between branch_ids; MERGE synthesizes two branches (source into target) using strategy: synthesize/prefer_source/prefer_target/interleave. Create, branch and merge list the timeline's branches a page at a time (limit, offset). Timelines and branches persist in the session; a merged source branch is kept and marked merged.",
  inputSchema: timelineInputSchema,
  outputSchema: timelineOutputSchema,
  annotations: {
    title: "Timeline Reasoning",
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: true,
  },
  operations: timelineOperationSchema.options,
  usesModel: true,
});
