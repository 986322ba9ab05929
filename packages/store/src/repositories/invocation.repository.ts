import type { Invocation } from "@deliberate/contracts";
import type { DatabaseExecutor } from "../executor.ts";
import type { InvocationRow } from "../tables/invocation.table.ts";

export type NewInvocation = Omit<Invocation, "success"> & { success: boolean; error_message: string | null };

export interface InvocationFilter {
  tool?: string;
  sessionId?: string;
  success?: boolean;
  since?: string;
  limit?: number;
}

function toInvocation(row: InvocationRow): Invocation & { error_message: string | null } {
  const { success, ...rest } = row;
  return { ...rest, success: success === 1 };
}

/** One row per tool call; metrics and self-improvement read these. */
export function createInvocationRepository(db: DatabaseExecutor) {
  return {
    async record(input: NewInvocation): Promise<void> {
      await db
        .insertInto("invocations")
        .values({ ...input, success: input.success ? 1 : 0 })
        .execute();
    },

    /** Newest first. */
    async list(filter: InvocationFilter = {}): Promise<Array<Invocation & { error_message: string | null }>> {
      let query = db.selectFrom("invocations").selectAll();
      if (filter.tool !== undefined) query = query.where("tool", "=", filter.tool);
      if (filter.sessionId !== undefined) query = query.where("session_id", "=", filter.sessionId);
      if (filter.success !== undefined) query = query.where("success", "=", filter.success ? 1 : 0);
      if (filter.since !== undefined) query = query.where("created_at", ">=", filter.since);
      const rows = await query.orderBy("created_at", "desc").orderBy("id", "desc").limit(filter.limit ?? 1000).execute();
      return rows.map(toInvocation);
    },
  };
}
export type InvocationRepository = ReturnType<typeof createInvocationRepository>;
