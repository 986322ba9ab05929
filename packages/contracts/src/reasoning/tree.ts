import { z } from "zod";
import { looseBoolean, looseInteger } from "../coerce.ts";
import { branchStatusSchema } from "../shapes.ts";
import { defineTool } from "../tool-definition.ts";
import { requireFields } from "./require-fields.ts";
import { lazySchema } from "../lazy-schema.ts";

export const treeOperationSchema = lazySchema(() => z.enum(["create", "focus", "list", "complete"]));

export const treeInputSchema = lazySchema(() =>
  z
    .object({
      operation: treeOperationSchema
        .default("create")
        .describe("create=start exploration, focus=select branch, list=show branches, complete=finish branch"),
      content: z
        .string()
        .trim()
        .min(1, "content must not be empty")
        .optional()
        .describe("Content to explore (for create)"),
      session_id: z.string().min(1).optional(),
      branch_id: z.string().min(1).optional().describe("Branch ID (for focus/complete)"),
      num_branches: looseInteger({ min: 2, max: 4 }).default(3),
      completed: looseBoolean().default(true).describe("For complete operation"),
    })
    .superRefine(
      requireFields({
        create: ["content"],
        focus: ["session_id", "branch_id"],
        list: ["session_id"],
        complete: ["session_id", "branch_id"],
      }),
    ),
);

export const treeBranchSchema = lazySchema(() =>
  z.object({
    id: z.string(),
    content: z.string(),
    score: z.number(),
    status: branchStatusSchema,
  }),
);

export const treeOutputSchema = lazySchema(() =>
  z.object({
    session_id: z.string(),
    branch_id: z.string().optional().describe("Current/created branch ID"),
    branches: z.array(treeBranchSchema).optional().describe("List of branches (for create/list)"),
    recommendation: z.string().optional().describe("Suggested next branch to explore"),
  }),
);

export const treeTool = defineTool({
  name: "reasoning_tree",
  description:
    "Branching exploration with multiple reasoning paths. Operations: CREATE starts new exploration from content, returns root branch_id and 2-4 divergent branches; FOCUS selects a specific branch by branch_id for continued reasoning; LIST shows all branches in the session with their status and scores; COMPLETE marks a branch as finished (completed=true) or abandoned (completed=false).",
  inputSchema: treeInputSchema,
  outputSchema: treeOutputSchema,
  annotations: {
    title: "Tree Reasoning",
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: true,
  },
  operations: treeOperationSchema.options,
  usesModel: true,
});
