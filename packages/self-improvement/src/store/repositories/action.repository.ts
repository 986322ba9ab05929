import { parseJsonColumn } from "@deliberate/store";
import type { MetricsSnapshot } from "../../metrics.ts";
import type { ActionRecord, ActionStatus } from "../../records.ts";
import type { AdjustableSetting, Direction, MetricName } from "../../types.ts";
import type { DatabaseExecutor } from "../tables.ts";
import type { ActionRow } from "../tables/action.table.ts";
import { notFound } from "./not-found.ts";

function toAction(row: ActionRow): ActionRecord {
  return {
    id: row.id,
    diagnosis_id: row.diagnosis_id,
    scope: row.scope,
    setting: row.setting as AdjustableSetting,
    direction: row.direction as Direction,
    from_value: Number(row.from_value),
    to_value: Number(row.to_value),
    previous_override: row.previous_override === null ? null : Number(row.previous_override),
    previous_action_id: row.previous_action_id,
    tools: parseJsonColumn<string[]>(row.tools_json, `action ${row.id} tools`),
    metric: row.metric as MetricName,
    before_from: row.before_from,
    applied_at: row.applied_at,
    applied_by: row.applied_by === "operator" ? "operator" : "loop",
    status: row.status as ActionStatus,
    status_reason: row.status_reason,
    evaluated_at: row.evaluated_at,
    rolled_back_at: row.rolled_back_at,
    rolled_back_by: row.rolled_back_by === "learner" || row.rolled_back_by === "operator" ? row.rolled_back_by : null,
    reward: row.reward === null ? null : Number(row.reward),
    confidence: row.confidence === null ? null : Number(row.confidence),
    pre_metrics: parseJsonColumn<MetricsSnapshot>(row.pre_metrics_json, `action ${row.id} pre_metrics`),
    post_metrics:
      row.post_metrics_json === null
        ? null
        : parseJsonColumn<MetricsSnapshot>(row.post_metrics_json, `action ${row.id} post_metrics`),
  };
}

/** Actions: setting changes applied, measured, kept or rolled back. */
export function createActionRepository(db: DatabaseExecutor) {
  return {
    async insert(record: ActionRecord): Promise<void> {
      await db
        .insertInto("self_improvement_actions")
        .values({
          id: record.id,
          diagnosis_id: record.diagnosis_id,
          scope: record.scope,
          setting: record.setting,
          direction: record.direction,
          from_value: record.from_value,
          to_value: record.to_value,
          previous_override: record.previous_override,
          previous_action_id: record.previous_action_id,
          tools_json: JSON.stringify(record.tools),
          metric: record.metric,
          before_from: record.before_from,
          applied_at: record.applied_at,
          applied_by: record.applied_by,
          status: record.status,
          status_reason: record.status_reason,
          evaluated_at: record.evaluated_at,
          rolled_back_at: record.rolled_back_at,
          rolled_back_by: record.rolled_back_by,
          reward: record.reward,
          confidence: record.confidence,
          pre_metrics_json: JSON.stringify(record.pre_metrics),
          post_metrics_json: record.post_metrics === null ? null : JSON.stringify(record.post_metrics),
        })
        .execute();
    },
    async get(id: string): Promise<ActionRecord> {
      const row = await db.selectFrom("self_improvement_actions").selectAll().where("id", "=", id).executeTakeFirst();
      if (!row)
        throw notFound(
          "action",
          "action_id",
          id,
          "List actions with `deliberate self-improve history` or GET /v1/self-improvement/history.",
        );
      return toAction(row);
    },
    async update(
      id: string,
      update: Partial<
        Pick<
          ActionRecord,
          | "status"
          | "status_reason"
          | "evaluated_at"
          | "rolled_back_at"
          | "rolled_back_by"
          | "reward"
          | "confidence"
          | "post_metrics"
        >
      >,
    ): Promise<void> {
      const { post_metrics, ...rest } = update;
      await db
        .updateTable("self_improvement_actions")
        .set({
          ...rest,
          ...(post_metrics !== undefined
            ? { post_metrics_json: post_metrics === null ? null : JSON.stringify(post_metrics) }
            : {}),
        })
        .where("id", "=", id)
        .execute();
    },
    /** Newest first. */
    async list(filter: { status?: ActionStatus; since?: string; limit?: number } = {}): Promise<ActionRecord[]> {
      let query = db.selectFrom("self_improvement_actions").selectAll();
      if (filter.status !== undefined) query = query.where("status", "=", filter.status);
      if (filter.since !== undefined) query = query.where("applied_at", ">=", filter.since);
      const rows = await query
        .orderBy("applied_at", "desc")
        .orderBy("id", "desc")
        .limit(filter.limit ?? 100)
        .execute();
      return rows.map(toAction);
    },
    async countAppliedSince(since: string): Promise<number> {
      const row = await db
        .selectFrom("self_improvement_actions")
        .select((eb) => eb.fn.countAll<number>().as("count"))
        .where("applied_at", ">=", since)
        .executeTakeFirstOrThrow();
      return Number(row.count);
    },
  };
}
