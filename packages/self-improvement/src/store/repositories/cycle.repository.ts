import { parseJsonColumn } from "@deliberate/store";
import type { CycleOutcome, CycleRecord } from "../../records.ts";
import type { DatabaseExecutor } from "../tables.ts";
import type { CycleRow } from "../tables/cycle.table.ts";

function toCycle(row: CycleRow): CycleRecord {
  return {
    id: row.id,
    started_at: row.started_at,
    finished_at: row.finished_at,
    holder: row.holder,
    outcome: row.outcome as CycleOutcome,
    reason: row.reason,
    diagnosis_id: row.diagnosis_id,
    action_id: row.action_id,
    details: parseJsonColumn<Record<string, unknown>>(row.details_json, `cycle ${row.id} details`),
  };
}

/** Cycles: what each cycle did and why. */
export function createCycleRepository(db: DatabaseExecutor) {
  return {
    async insert(record: CycleRecord): Promise<void> {
      await db
        .insertInto("self_improvement_cycles")
        .values({
          id: record.id,
          started_at: record.started_at,
          finished_at: record.finished_at,
          holder: record.holder,
          outcome: record.outcome,
          reason: record.reason,
          diagnosis_id: record.diagnosis_id,
          action_id: record.action_id,
          details_json: JSON.stringify(record.details),
        })
        .execute();
    },
    /** Newest first. */
    async list(limit = 20): Promise<CycleRecord[]> {
      const rows = await db
        .selectFrom("self_improvement_cycles")
        .selectAll()
        .orderBy("started_at", "desc")
        .orderBy("id", "desc")
        .limit(limit)
        .execute();
      return rows.map(toCycle);
    },
    /** Keeps the newest `keep` cycles. */
    async prune(keep: number): Promise<void> {
      const cutoff = await db
        .selectFrom("self_improvement_cycles")
        .select("started_at")
        .orderBy("started_at", "desc")
        .offset(keep)
        .limit(1)
        .executeTakeFirst();
      if (cutoff) await db.deleteFrom("self_improvement_cycles").where("started_at", "<=", cutoff.started_at).execute();
    },
  };
}
