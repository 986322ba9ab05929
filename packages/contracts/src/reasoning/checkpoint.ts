import { z } from "zod";
import { listPageInput, listPageSchema } from "../list-page.ts";
import { defineTool } from "../tool-definition.ts";
import { requireFields } from "./require-fields.ts";
import { lazySchema } from "../lazy-schema.ts";

export const checkpointOperationSchema = lazySchema(() => z.enum(["create", "list", "restore"]));

export const checkpointInputSchema = lazySchema(() =>
  z
    .object({
      operation: checkpointOperationSchema.describe(
        "create=save state, list=show checkpoints, restore=return to checkpoint",
      ),
      session_id: z.string().min(1, "session_id must not be empty"),
      checkpoint_id: z.string().min(1).optional().describe("For restore operation"),
      name: z.string().trim().min(1, "name must not be empty").optional().describe("Checkpoint name (for create)"),
      description: z.string().optional(),
      new_direction: z
        .string()
        .trim()
        .min(1, "new_direction must not be empty")
        .optional()
        .describe("New approach after restore"),
      ...listPageInput("For list"),
    })
    .superRefine(requireFields({ create: ["name"], restore: ["checkpoint_id"] })),
);

export const checkpointSummarySchema = lazySchema(() =>
  z.object({
    id: z.string(),
    name: z.string(),
    description: z.string().optional(),
    created_at: z.string().describe("ISO 8601 date-time"),
    thought_count: z.number().int(),
  }),
);

export const restoredStateSchema = lazySchema(() =>
  z.object({
    checkpoint_id: z.string(),
    active_branch_id: z.string().nullable(),
    thought_count: z.number().int().describe("Thoughts in the session as of the checkpoint"),
    superseded_thought_count: z.number().int().describe("Later thoughts set aside (kept, not deleted)"),
    recent_thoughts: z.array(z.object({ id: z.string(), content: z.string() })),
    new_direction_thought_id: z.string().optional(),
  }),
);

export const checkpointOutputSchema = lazySchema(() =>
  z.object({
    checkpoint_id: z.string().optional().describe("ID of created/restored checkpoint"),
    session_id: z.string(),
    checkpoints: z
      .array(checkpointSummarySchema)
      .optional()
      .describe("List of checkpoints (for list operation), oldest first, one page of them"),
    page: listPageSchema.optional().describe("For list: the page returned, the total and the next page's offset"),
    restored_state: restoredStateSchema.optional().describe("Session state after restore"),
  }),
);

export const checkpointTool = defineTool({
  name: "reasoning_checkpoint",
  description:
    "State management for non-linear exploration with backtracking. Operations: CREATE saves current reasoning state with a name and optional description, returns checkpoint_id for later restoration; LIST shows the session's checkpoints, oldest first, a page at a time (limit, offset; page.next_offset); RESTORE returns to a saved checkpoint by checkpoint_id and optionally explores a new_direction from that point (later thoughts are set aside, never deleted).",
  inputSchema: checkpointInputSchema,
  outputSchema: checkpointOutputSchema,
  // create adds a new checkpoint on every call, so the tool is not idempotent
  // (the design doc said it was); no model is called, so not open-world.
  annotations: {
    title: "Checkpoint Management",
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: false,
  },
  operations: checkpointOperationSchema.options,
  usesModel: false,
});
