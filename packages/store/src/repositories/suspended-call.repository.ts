import { DeliberateError } from "@deliberate/base";
import type { DatabaseExecutor } from "../executor.ts";
import { parseJsonColumn } from "../json-column.ts";
import type { SuspendedCallRow } from "../tables/suspended-call.table.ts";

export interface SuspendedCall {
  id: string;
  tool: string;
  arguments: unknown;
  answers: Record<string, unknown>;
  pending: Array<{ id: string; name: string; system: string; user: string; schema: Record<string, unknown> }>;
  rounds: number;
  created_at: string;
  updated_at: string;
  expires_at: string;
}

function toSuspendedCall(row: SuspendedCallRow): SuspendedCall {
  const { claimed_until: _claim, ...rest } = row;
  return {
    ...rest,
    arguments: parseJsonColumn(row.arguments, `suspended call ${row.id} arguments`),
    answers: parseJsonColumn<Record<string, unknown>>(row.answers, `suspended call ${row.id} answers`),
    pending: parseJsonColumn<SuspendedCall["pending"]>(row.pending, `suspended call ${row.id} pending`),
  };
}

/** Suspended host-executed calls, keyed by resume token. */
export function createSuspendedCallRepository(db: DatabaseExecutor) {
  return {
    async save(call: SuspendedCall): Promise<void> {
      const row: SuspendedCallRow = {
        ...call,
        arguments: JSON.stringify(call.arguments),
        answers: JSON.stringify(call.answers),
        pending: JSON.stringify(call.pending),
        // Saving the next step ends any claim on the call.
        claimed_until: null,
      };
      const { id, ...changes } = row;
      const updated = await db.updateTable("suspended_calls").set(changes).where("id", "=", id).executeTakeFirst();
      if (Number(updated.numUpdatedRows) === 0) await db.insertInto("suspended_calls").values(row).execute();
    },

    /** The call for a token, or NOT_FOUND / expired errors that say what to do. */
    async get(id: string, now: string): Promise<SuspendedCall> {
      const row = await db.selectFrom("suspended_calls").selectAll().where("id", "=", id).executeTakeFirst();
      if (!row) {
        throw new DeliberateError({
          code: "NOT_FOUND",
          message: `No suspended call for resume_token ${id}; it may have completed already.`,
          issues: [{ field: "resume_token", message: `unknown resume_token '${id}'` }],
          hint: "Use the resume_token from the latest needs_completion result, or call the tool again.",
        });
      }
      if (row.expires_at <= now) {
        throw new DeliberateError({
          code: "NOT_FOUND",
          message: `The suspended call ${id} expired at ${row.expires_at}.`,
          issues: [{ field: "resume_token", message: "expired" }],
          hint: "Call the tool again to start over.",
        });
      }
      return toSuspendedCall(row);
    },

    /**
     * Claims the call for one submission until `until`; false when another
     * submission holds it. The claim lapses on its own if its holder dies.
     */
    async claim(input: { id: string; now: string; until: string }): Promise<boolean> {
      const result = await db
        .updateTable("suspended_calls")
        .set({ claimed_until: input.until })
        .where("id", "=", input.id)
        .where((expression) =>
          expression.or([expression("claimed_until", "is", null), expression("claimed_until", "<=", input.now)]),
        )
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    async release(id: string): Promise<void> {
      await db.updateTable("suspended_calls").set({ claimed_until: null }).where("id", "=", id).execute();
    },

    async delete(id: string): Promise<void> {
      await db.deleteFrom("suspended_calls").where("id", "=", id).execute();
    },

    async deleteExpired(now: string): Promise<number> {
      const result = await db.deleteFrom("suspended_calls").where("expires_at", "<=", now).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
export type SuspendedCallRepository = ReturnType<typeof createSuspendedCallRepository>;
