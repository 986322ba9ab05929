import { DeliberateError } from "@deliberate/contracts";
import { reservePositions } from "@deliberate/store";
import type { DatabaseExecutor } from "../tables.ts";
import { parseJsonColumn, parseJsonObject } from "@deliberate/store";
import type { TimelineBranchRow } from "../tables/timeline-branch.table.ts";
import type { TimelineMergeRow } from "../tables/timeline-merge.table.ts";
import type { TimelineRow } from "../tables/timeline.table.ts";

export type TimelineBranchStatus = "active" | "merged";
export type TimelineMergeStrategy = "synthesize" | "prefer_source" | "prefer_target" | "interleave";

export interface Timeline {
  id: string;
  session_id: string;
  current_branch_id: string;
  metadata: Record<string, unknown>;
  created_at: string;
  updated_at: string;
}

export interface TimelineBranch {
  id: string;
  timeline_id: string;
  parent_branch_id: string | null;
  position: number;
  label: string;
  content: string;
  status: TimelineBranchStatus;
  merged_into_id: string | null;
  metadata: Record<string, unknown>;
  created_at: string;
  updated_at: string;
}

export interface TimelineMergeConflict {
  source: string;
  target: string;
  kept: "source" | "target" | "both";
}

export interface TimelineMerge {
  id: string;
  timeline_id: string;
  source_branch_id: string;
  target_branch_id: string;
  strategy: TimelineMergeStrategy;
  target_content_before: string;
  merged_content: string;
  conflicts: TimelineMergeConflict[];
  created_at: string;
}

function toTimeline(row: TimelineRow): Timeline {
  return { ...row, metadata: parseJsonObject(row.metadata, `timeline ${row.id}`) };
}

function toBranch(row: TimelineBranchRow): TimelineBranch {
  return {
    ...row,
    status: row.status === "merged" ? "merged" : "active",
    metadata: parseJsonObject(row.metadata, `timeline branch ${row.id}`),
  };
}

function toMerge(row: TimelineMergeRow): TimelineMerge {
  return {
    ...row,
    strategy: row.strategy as TimelineMergeStrategy,
    conflicts: parseJsonColumn<TimelineMergeConflict[]>(row.conflicts, `timeline merge ${row.id} conflicts`),
  };
}

/** Timelines: parallel paths (branches) that can be compared and merged. */
export function createTimelineRepository(db: DatabaseExecutor) {
  return {
    async createTimeline(input: {
      id: string;
      session_id: string;
      current_branch_id: string;
      metadata: Record<string, unknown>;
      now: string;
    }): Promise<Timeline> {
      const row: TimelineRow = {
        id: input.id,
        session_id: input.session_id,
        current_branch_id: input.current_branch_id,
        metadata: JSON.stringify(input.metadata),
        created_at: input.now,
        updated_at: input.now,
      };
      await db.insertInto("timelines").values(row).execute();
      return toTimeline(row);
    },

    /** The timeline, or NOT_FOUND naming timeline_id. */
    async getTimeline(id: string): Promise<Timeline> {
      const row = await db.selectFrom("timelines").selectAll().where("id", "=", id).executeTakeFirst();
      if (!row) {
        throw new DeliberateError({
          code: "NOT_FOUND",
          message: `Timeline not found: ${id}`,
          issues: [{ field: "timeline_id", message: `no timeline with id '${id}'` }],
          hint: "Pass a timeline_id returned by reasoning_timeline 'create', or create a new timeline.",
        });
      }
      return toTimeline(row);
    },

    async listBySession(sessionId: string): Promise<Timeline[]> {
      const rows = await db
        .selectFrom("timelines")
        .selectAll()
        .where("session_id", "=", sessionId)
        .orderBy("created_at", "asc")
        .orderBy("id", "asc")
        .execute();
      return rows.map(toTimeline);
    },

    async setCurrentBranch(input: { id: string; branchId: string; now: string }): Promise<void> {
      await db
        .updateTable("timelines")
        .set({ current_branch_id: input.branchId, updated_at: input.now })
        .where("id", "=", input.id)
        .execute();
    },

    /** Appends a branch after the timeline's existing ones. */
    async insertBranch(input: {
      id: string;
      timeline_id: string;
      parent_branch_id: string | null;
      label: string;
      content: string;
      metadata?: Record<string, unknown>;
      now: string;
    }): Promise<TimelineBranch> {
      const position = await reservePositions(db, {
        scope: "timeline_branches",
        key: input.timeline_id,
        table: "timeline_branches",
        keyColumn: "timeline_id",
        positionColumn: "position",
      });
      const row: TimelineBranchRow = {
        id: input.id,
        timeline_id: input.timeline_id,
        parent_branch_id: input.parent_branch_id,
        position,
        label: input.label,
        content: input.content,
        status: "active",
        merged_into_id: null,
        metadata: JSON.stringify(input.metadata ?? {}),
        created_at: input.now,
        updated_at: input.now,
      };
      await db.insertInto("timeline_branches").values(row).execute();
      return toBranch(row);
    },

    /** A branch of the timeline, or NOT_FOUND naming `field`. */
    async getBranch(timelineId: string, id: string, field: string): Promise<TimelineBranch> {
      const row = await db
        .selectFrom("timeline_branches")
        .selectAll()
        .where("id", "=", id)
        .where("timeline_id", "=", timelineId)
        .executeTakeFirst();
      if (!row) {
        throw new DeliberateError({
          code: "NOT_FOUND",
          message: `Branch not found in timeline ${timelineId}: ${id}`,
          issues: [{ field, message: `no branch '${id}' in timeline '${timelineId}'` }],
          hint: "Use a branch id returned by reasoning_timeline for this timeline (create returns the main branch; branch returns each new one).",
        });
      }
      return toBranch(row);
    },

    /** Every branch of the timeline in creation order. */
    async listBranches(timelineId: string): Promise<TimelineBranch[]> {
      const rows = await db
        .selectFrom("timeline_branches")
        .selectAll()
        .where("timeline_id", "=", timelineId)
        .orderBy("position", "asc")
        .execute();
      return rows.map(toBranch);
    },

    async setBranchContent(input: { id: string; content: string; now: string }): Promise<void> {
      await db
        .updateTable("timeline_branches")
        .set({ content: input.content, updated_at: input.now })
        .where("id", "=", input.id)
        .execute();
    },

    async markMerged(input: { id: string; intoId: string; now: string }): Promise<void> {
      await db
        .updateTable("timeline_branches")
        .set({ status: "merged", merged_into_id: input.intoId, updated_at: input.now })
        .where("id", "=", input.id)
        .execute();
    },

    async recordMerge(input: Omit<TimelineMerge, "created_at"> & { now: string }): Promise<TimelineMerge> {
      const row: TimelineMergeRow = {
        id: input.id,
        timeline_id: input.timeline_id,
        source_branch_id: input.source_branch_id,
        target_branch_id: input.target_branch_id,
        strategy: input.strategy,
        target_content_before: input.target_content_before,
        merged_content: input.merged_content,
        conflicts: JSON.stringify(input.conflicts),
        created_at: input.now,
      };
      await db.insertInto("timeline_merges").values(row).execute();
      return toMerge(row);
    },

    async listMerges(timelineId: string): Promise<TimelineMerge[]> {
      const rows = await db
        .selectFrom("timeline_merges")
        .selectAll()
        .where("timeline_id", "=", timelineId)
        .orderBy("created_at", "asc")
        .orderBy("id", "asc")
        .execute();
      return rows.map(toMerge);
    },
  };
}
export type TimelineRepository = ReturnType<typeof createTimelineRepository>;
