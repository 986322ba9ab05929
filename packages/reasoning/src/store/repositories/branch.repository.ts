import { type BranchStatus, DeliberateError } from "@deliberate/contracts";
import { reservePositions } from "@deliberate/store";
import type { DatabaseExecutor } from "../tables.ts";
import type { BranchRow } from "../tables/branch.table.ts";

export interface Branch {
  id: string;
  session_id: string;
  parent_branch_id: string | null;
  content: string;
  score: number;
  status: BranchStatus;
  created_at: string;
  updated_at: string;
}

function toBranch(row: BranchRow): Branch {
  return {
    id: row.id,
    session_id: row.session_id,
    parent_branch_id: row.parent_branch_id,
    content: row.content,
    score: row.score,
    status: row.status as BranchStatus,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** Branches of tree exploration. */
export function createBranchRepository(db: DatabaseExecutor) {
  return {
    async insert(input: {
      id: string;
      session_id: string;
      parent_branch_id: string | null;
      content: string;
      score: number;
      now: string;
    }): Promise<Branch> {
      const position = await reservePositions(db, {
        scope: "branches",
        key: input.session_id,
        table: "branches",
        keyColumn: "session_id",
        positionColumn: "position",
      });
      const row: BranchRow = {
        id: input.id,
        session_id: input.session_id,
        parent_branch_id: input.parent_branch_id,
        position,
        content: input.content,
        score: input.score,
        status: "active",
        created_at: input.now,
        updated_at: input.now,
      };
      await db.insertInto("branches").values(row).execute();
      return toBranch(row);
    },

    async find(id: string): Promise<Branch | undefined> {
      const row = await db.selectFrom("branches").selectAll().where("id", "=", id).executeTakeFirst();
      return row ? toBranch(row) : undefined;
    },

    /** A branch of the given session, or NOT_FOUND naming branch_id. */
    async getInSession(sessionId: string, id: string): Promise<Branch> {
      const row = await db
        .selectFrom("branches")
        .selectAll()
        .where("id", "=", id)
        .where("session_id", "=", sessionId)
        .executeTakeFirst();
      if (!row) {
        throw new DeliberateError({
          code: "NOT_FOUND",
          message: `Branch not found in session ${sessionId}: ${id}`,
          issues: [{ field: "branch_id", message: `no branch '${id}' in session '${sessionId}'` }],
          hint: "Call reasoning_tree with operation 'list' to see the session's branch ids.",
        });
      }
      return toBranch(row);
    },

    async listBySession(sessionId: string): Promise<Branch[]> {
      const rows = await db
        .selectFrom("branches")
        .selectAll()
        .where("session_id", "=", sessionId)
        .orderBy("position", "asc")
        .execute();
      return rows.map(toBranch);
    },

    async setStatus(input: { id: string; status: BranchStatus; now: string }): Promise<void> {
      await db
        .updateTable("branches")
        .set({ status: input.status, updated_at: input.now })
        .where("id", "=", input.id)
        .execute();
    },
  };
}
export type BranchRepository = ReturnType<typeof createBranchRepository>;
