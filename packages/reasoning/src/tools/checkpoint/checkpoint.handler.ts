import {
  lazySchema,
  checkpointTool,
  type BranchStatus,
  listPage,
  listWindow,
  type ToolOutput,
} from "@deliberate/contracts";
import { z } from "zod";
import { nowIso } from "@deliberate/engine";
import { type ReasoningContext, defineHandler } from "../../define-handler.ts";

type CheckpointOutput = ToolOutput<typeof checkpointTool>;

/** What a checkpoint remembers: enough to put the session back exactly. */
export const snapshotSchema = lazySchema(() =>
  z.object({
    active_branch_id: z.string().nullable(),
    thought_ids: z.array(z.string()),
    branch_statuses: z.record(z.string(), z.enum(["active", "completed", "abandoned"])),
  }),
);

async function create(
  input: { session_id: string; name: string; description?: string },
  context: ReasoningContext,
): Promise<CheckpointOutput> {
  const checkpointId = context.ids.next("cp");
  const now = nowIso(context);
  const checkpoint = await context.store.transaction(async (repositories) => {
    const session = await repositories.sessions.get(input.session_id);
    const thoughts = await repositories.thoughts.listBySession(input.session_id, { activeOnly: true });
    const branches = await repositories.branches.listBySession(input.session_id);
    const snapshot: z.infer<typeof snapshotSchema> = {
      active_branch_id: session.active_branch_id,
      thought_ids: thoughts.map((thought) => thought.id),
      branch_statuses: Object.fromEntries(branches.map((branch) => [branch.id, branch.status])),
    };
    return repositories.checkpoints.create({
      id: checkpointId,
      session_id: input.session_id,
      name: input.name,
      description: input.description ?? null,
      thought_count: thoughts.length,
      snapshot,
      now,
    });
  });
  return { checkpoint_id: checkpoint.id, session_id: input.session_id };
}

async function list(
  input: { session_id: string; limit?: number; offset?: number },
  context: ReasoningContext,
): Promise<CheckpointOutput> {
  const sessionId = input.session_id;
  const window = listWindow(input);
  // One page and the total in one read; no session is the sessions repository's NOT_FOUND.
  const found = await context.store.checkpoints.listSummaries(sessionId, window);
  if (found === undefined) await context.store.sessions.get(sessionId);
  const { summaries, total } = found ?? { summaries: [], total: 0 };
  return {
    session_id: sessionId,
    checkpoints: summaries.map((checkpoint) => ({
      id: checkpoint.id,
      name: checkpoint.name,
      ...(checkpoint.description !== null ? { description: checkpoint.description } : {}),
      created_at: checkpoint.created_at,
      thought_count: checkpoint.thought_count,
    })),
    page: listPage(window, total),
  };
}

/**
 * Puts the session back as it was: thoughts added since are set aside (kept,
 * marked superseded), branch statuses and focus are restored, all in one
 * transaction. A new direction is recorded as the first thought after it.
 */
async function restore(
  input: { session_id: string; checkpoint_id: string; new_direction?: string },
  context: ReasoningContext,
): Promise<CheckpointOutput> {
  const now = nowIso(context);
  const directionId = input.new_direction !== undefined ? context.ids.next("th") : undefined;
  return context.store.transaction(async (repositories) => {
    await repositories.sessions.get(input.session_id);
    const checkpoint = await repositories.checkpoints.getInSession(input.session_id, input.checkpoint_id);
    const snapshot = snapshotSchema.parse(checkpoint.snapshot);
    const superseded = await repositories.thoughts.supersedeExcept(input.session_id, snapshot.thought_ids);
    await repositories.thoughts.reactivate(snapshot.thought_ids);
    for (const [branchId, status] of Object.entries(snapshot.branch_statuses)) {
      await repositories.branches.setStatus({ id: branchId, status: status as BranchStatus, now });
    }
    // Branches opened after the checkpoint belong to the undone work: close them (kept, not deleted).
    for (const branch of await repositories.branches.listBySession(input.session_id)) {
      if (!(branch.id in snapshot.branch_statuses) && branch.status === "active") {
        await repositories.branches.setStatus({ id: branch.id, status: "abandoned", now });
      }
    }
    await repositories.sessions.setActiveBranch({ id: input.session_id, branchId: snapshot.active_branch_id, now });
    const thoughts = await repositories.thoughts.listBySession(input.session_id, { activeOnly: true });
    if (directionId !== undefined && input.new_direction !== undefined) {
      await repositories.thoughts.append({
        id: directionId,
        session_id: input.session_id,
        branch_id: snapshot.active_branch_id,
        parent_id: thoughts.at(-1)?.id ?? null,
        mode: "checkpoint",
        content: input.new_direction,
        metadata: { restored_from: checkpoint.id },
        created_at: now,
      });
    }
    return {
      checkpoint_id: checkpoint.id,
      session_id: input.session_id,
      restored_state: {
        checkpoint_id: checkpoint.id,
        active_branch_id: snapshot.active_branch_id,
        thought_count: thoughts.length,
        superseded_thought_count: superseded,
        recent_thoughts: thoughts.slice(-5).map((thought) => ({ id: thought.id, content: thought.content })),
        ...(directionId !== undefined ? { new_direction_thought_id: directionId } : {}),
      },
    };
  });
}

export const checkpointHandler = defineHandler(checkpointTool, async (input, context) => {
  switch (input.operation) {
    case "create":
      return create(
        {
          session_id: input.session_id,
          name: input.name as string,
          ...(input.description !== undefined ? { description: input.description } : {}),
        },
        context,
      );
    case "list":
      return list(input, context);
    case "restore":
      return restore(
        {
          session_id: input.session_id,
          checkpoint_id: input.checkpoint_id as string,
          ...(input.new_direction !== undefined ? { new_direction: input.new_direction } : {}),
        },
        context,
      );
  }
});
