import { parseJsonColumn } from "@deliberate/store";
import type { Trigger } from "../../monitor.ts";
import type { DiagnosisRecord, DiagnosisStatus, SuggestedAction } from "../../records.ts";
import type { MetricName, Severity } from "../../types.ts";
import type { DatabaseExecutor } from "../tables.ts";
import type { DiagnosisRow } from "../tables/diagnosis.table.ts";
import { notFound } from "./not-found.ts";

function toDiagnosis(row: DiagnosisRow): DiagnosisRecord {
  return {
    id: row.id,
    created_at: row.created_at,
    updated_at: row.updated_at,
    tool: row.tool,
    metric: row.metric as MetricName,
    severity: row.severity as Severity,
    deviation_pct: Number(row.deviation_pct),
    trigger: parseJsonColumn<Trigger>(row.trigger_json, `diagnosis ${row.id} trigger`),
    description: row.description,
    suspected_cause: row.suspected_cause,
    action: parseJsonColumn<SuggestedAction>(row.action_json, `diagnosis ${row.id} action`),
    rationale: row.rationale,
    analyzer: row.analyzer === "model" ? "model" : "rules",
    rule: row.rule,
    status: row.status as DiagnosisStatus,
    status_reason: row.status_reason,
    action_id: row.action_id,
  };
}

/** Diagnoses: what the analyzer found and proposed, and their status. */
export function createDiagnosisRepository(db: DatabaseExecutor) {
  return {
    async insert(record: DiagnosisRecord): Promise<void> {
      await db
        .insertInto("self_improvement_diagnoses")
        .values({
          id: record.id,
          created_at: record.created_at,
          updated_at: record.updated_at,
          tool: record.tool,
          metric: record.metric,
          severity: record.severity,
          deviation_pct: record.deviation_pct,
          trigger_json: JSON.stringify(record.trigger),
          description: record.description,
          suspected_cause: record.suspected_cause,
          action_json: JSON.stringify(record.action),
          rationale: record.rationale,
          analyzer: record.analyzer,
          rule: record.rule,
          status: record.status,
          status_reason: record.status_reason,
          action_id: record.action_id,
        })
        .execute();
    },
    async get(id: string): Promise<DiagnosisRecord> {
      const row = await db.selectFrom("self_improvement_diagnoses").selectAll().where("id", "=", id).executeTakeFirst();
      if (!row)
        throw notFound(
          "diagnosis",
          "diagnosis_id",
          id,
          "List diagnoses with `deliberate self-improve diagnostics` or GET /v1/self-improvement/diagnostics.",
        );
      return toDiagnosis(row);
    },
    async setStatus(
      id: string,
      update: { status: DiagnosisStatus; status_reason: string | null; updated_at: string; action_id?: string },
    ): Promise<void> {
      await db
        .updateTable("self_improvement_diagnoses")
        .set({
          status: update.status,
          status_reason: update.status_reason,
          updated_at: update.updated_at,
          ...(update.action_id !== undefined ? { action_id: update.action_id } : {}),
        })
        .where("id", "=", id)
        .execute();
    },
    /** Newest first. */
    async list(filter: { status?: DiagnosisStatus; since?: string; limit?: number } = {}): Promise<DiagnosisRecord[]> {
      let query = db.selectFrom("self_improvement_diagnoses").selectAll();
      if (filter.status !== undefined) query = query.where("status", "=", filter.status);
      if (filter.since !== undefined) query = query.where("created_at", ">=", filter.since);
      const rows = await query
        .orderBy("created_at", "desc")
        .orderBy("id", "desc")
        .limit(filter.limit ?? 100)
        .execute();
      return rows.map(toDiagnosis);
    },
    async count(status: DiagnosisStatus): Promise<number> {
      const row = await db
        .selectFrom("self_improvement_diagnoses")
        .select((eb) => eb.fn.countAll<number>().as("count"))
        .where("status", "=", status)
        .executeTakeFirstOrThrow();
      return Number(row.count);
    },
    /** Marks diagnoses awaiting approval since before `before` as expired; returns how many. */
    async expirePending(before: string, now: string): Promise<number> {
      const result = await db
        .updateTable("self_improvement_diagnoses")
        .set({ status: "expired", status_reason: "not approved in time", updated_at: now })
        .where("status", "=", "pending")
        .where("created_at", "<", before)
        .executeTakeFirst();
      return Number(result.numUpdatedRows ?? 0);
    },
  };
}
