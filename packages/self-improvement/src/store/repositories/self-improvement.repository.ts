import { DeliberateError } from "@deliberate/base";
import { type Database, type Lease, parseJsonColumn, readLease } from "@deliberate/store";
import { type Kysely, sql } from "kysely";
import type { MetricsSnapshot } from "../../metrics.ts";
import type { Trigger } from "../../monitor.ts";
import type {
  ActionRecord,
  ActionStatus,
  CycleOutcome,
  CycleRecord,
  DiagnosisRecord,
  DiagnosisStatus,
  LearningRecord,
  LessonVerdict,
  MetricComparison,
  OverrideRecord,
  SuggestedAction,
} from "../../records.ts";
import type { AdjustableSetting, Direction, InvocationSample, MetricName, Severity } from "../../types.ts";
import type { DatabaseExecutor, SelfImprovementTables } from "../tables.ts";
import type { ActionRow } from "../tables/action.table.ts";
import type { CycleRow } from "../tables/cycle.table.ts";
import type { DiagnosisRow } from "../tables/diagnosis.table.ts";
import type { LearningRow } from "../tables/learning.table.ts";

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
    post_metrics: row.post_metrics_json === null ? null : parseJsonColumn<MetricsSnapshot>(row.post_metrics_json, `action ${row.id} post_metrics`),
  };
}

function toLearning(row: LearningRow): LearningRecord {
  return {
    id: row.id,
    created_at: row.created_at,
    action_id: row.action_id,
    diagnosis_id: row.diagnosis_id,
    tool: row.tool,
    scope: row.scope,
    setting: row.setting as AdjustableSetting,
    direction: row.direction as Direction,
    verdict: row.verdict as LessonVerdict,
    reward: row.reward === null ? null : Number(row.reward),
    confidence: row.confidence === null ? null : Number(row.confidence),
    breakdown: parseJsonColumn<MetricComparison[]>(row.breakdown_json, `learning ${row.id} breakdown`),
    lessons: parseJsonColumn<string[]>(row.lessons_json, `learning ${row.id} lessons`),
  };
}

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

function toSample(row: {
  id: string;
  tool: string;
  operation: string | null;
  success: number;
  error_code: string | null;
  error_message: string | null;
  latency_ms: number;
  quality: number | null;
  model_calls: number;
  created_at: string;
  started_at: string;
}): InvocationSample {
  return {
    ...row,
    success: Number(row.success) === 1,
    latency_ms: Number(row.latency_ms),
    quality: row.quality === null ? null : Number(row.quality),
    model_calls: Number(row.model_calls),
  };
}

function notFound(kind: string, field: string, id: string, hint: string): DeliberateError {
  return new DeliberateError({ code: "NOT_FOUND", message: `No ${kind} '${id}'.`, issues: [{ field, message: `no ${kind} '${id}'` }], hint });
}

/** Everything the loop stores, bound to a database handle or an open transaction. */
export function createSelfImprovementRepository(handle: Kysely<Database>) {
  const db = handle.withTables<SelfImprovementTables>() as DatabaseExecutor;
  const startedAt = sql<string>`coalesce(started_at, created_at)`;
  const selectSamples = () =>
    db
      .selectFrom("invocations")
      .select(["id", "tool", "operation", "success", "error_code", "error_message", "latency_ms", "quality", "model_calls", "created_at"])
      .select(startedAt.as("started_at"));
  return {
    diagnoses: {
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
        if (!row) throw notFound("diagnosis", "diagnosis_id", id, "List diagnoses with `deliberate self-improve diagnostics` or GET /v1/self-improvement/diagnostics.");
        return toDiagnosis(row);
      },
      async setStatus(id: string, update: { status: DiagnosisStatus; status_reason: string | null; updated_at: string; action_id?: string }): Promise<void> {
        await db
          .updateTable("self_improvement_diagnoses")
          .set({ status: update.status, status_reason: update.status_reason, updated_at: update.updated_at, ...(update.action_id !== undefined ? { action_id: update.action_id } : {}) })
          .where("id", "=", id)
          .execute();
      },
      /** Newest first. */
      async list(filter: { status?: DiagnosisStatus; since?: string; limit?: number } = {}): Promise<DiagnosisRecord[]> {
        let query = db.selectFrom("self_improvement_diagnoses").selectAll();
        if (filter.status !== undefined) query = query.where("status", "=", filter.status);
        if (filter.since !== undefined) query = query.where("created_at", ">=", filter.since);
        const rows = await query.orderBy("created_at", "desc").orderBy("id", "desc").limit(filter.limit ?? 100).execute();
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
    },

    actions: {
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
        if (!row) throw notFound("action", "action_id", id, "List actions with `deliberate self-improve history` or GET /v1/self-improvement/history.");
        return toAction(row);
      },
      async update(
        id: string,
        update: Partial<Pick<ActionRecord, "status" | "status_reason" | "evaluated_at" | "rolled_back_at" | "rolled_back_by" | "reward" | "confidence" | "post_metrics">>,
      ): Promise<void> {
        const { post_metrics, ...rest } = update;
        await db
          .updateTable("self_improvement_actions")
          .set({ ...rest, ...(post_metrics !== undefined ? { post_metrics_json: post_metrics === null ? null : JSON.stringify(post_metrics) } : {}) })
          .where("id", "=", id)
          .execute();
      },
      /** Newest first. */
      async list(filter: { status?: ActionStatus; since?: string; limit?: number } = {}): Promise<ActionRecord[]> {
        let query = db.selectFrom("self_improvement_actions").selectAll();
        if (filter.status !== undefined) query = query.where("status", "=", filter.status);
        if (filter.since !== undefined) query = query.where("applied_at", ">=", filter.since);
        const rows = await query.orderBy("applied_at", "desc").orderBy("id", "desc").limit(filter.limit ?? 100).execute();
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
    },

    learnings: {
      async insert(record: LearningRecord): Promise<void> {
        await db
          .insertInto("self_improvement_learnings")
          .values({
            id: record.id,
            created_at: record.created_at,
            action_id: record.action_id,
            diagnosis_id: record.diagnosis_id,
            tool: record.tool,
            scope: record.scope,
            setting: record.setting,
            direction: record.direction,
            verdict: record.verdict,
            reward: record.reward,
            confidence: record.confidence,
            breakdown_json: JSON.stringify(record.breakdown),
            lessons_json: JSON.stringify(record.lessons),
          })
          .execute();
      },
      /** Newest first. */
      async list(filter: { since?: string; limit?: number } = {}): Promise<LearningRecord[]> {
        let query = db.selectFrom("self_improvement_learnings").selectAll();
        if (filter.since !== undefined) query = query.where("created_at", ">=", filter.since);
        const rows = await query.orderBy("created_at", "desc").orderBy("id", "desc").limit(filter.limit ?? 100).execute();
        return rows.map(toLearning);
      },
      async forAction(actionId: string): Promise<LearningRecord | undefined> {
        const row = await db.selectFrom("self_improvement_learnings").selectAll().where("action_id", "=", actionId).orderBy("created_at", "desc").executeTakeFirst();
        return row ? toLearning(row) : undefined;
      },
    },

    overrides: {
      async all(): Promise<OverrideRecord[]> {
        const rows = await db.selectFrom("self_improvement_overrides").selectAll().orderBy("scope").orderBy("setting").execute();
        return rows.map((row) => ({ scope: row.scope, setting: row.setting as AdjustableSetting, value: Number(row.value), action_id: row.action_id, updated_at: row.updated_at }));
      },
      async get(scope: string, setting: AdjustableSetting): Promise<OverrideRecord | undefined> {
        const row = await db.selectFrom("self_improvement_overrides").selectAll().where("scope", "=", scope).where("setting", "=", setting).executeTakeFirst();
        return row ? { scope: row.scope, setting: row.setting as AdjustableSetting, value: Number(row.value), action_id: row.action_id, updated_at: row.updated_at } : undefined;
      },
      async put(record: OverrideRecord): Promise<void> {
        await db
          .insertInto("self_improvement_overrides")
          .values(record)
          .onConflict((conflict) => conflict.columns(["scope", "setting"]).doUpdateSet({ value: record.value, action_id: record.action_id, updated_at: record.updated_at }))
          .execute();
      },
      async delete(scope: string, setting: AdjustableSetting): Promise<void> {
        await db.deleteFrom("self_improvement_overrides").where("scope", "=", scope).where("setting", "=", setting).execute();
      },
    },

    state: {
      async get<T>(key: string): Promise<T | undefined> {
        const row = await db.selectFrom("self_improvement_state").select("value_json").where("key", "=", key).executeTakeFirst();
        return row ? parseJsonColumn<T>(row.value_json, `state ${key}`) : undefined;
      },
      async put(key: string, value: unknown, now: string): Promise<void> {
        const value_json = JSON.stringify(value);
        await db
          .insertInto("self_improvement_state")
          .values({ key, value_json, updated_at: now })
          .onConflict((conflict) => conflict.column("key").doUpdateSet({ value_json, updated_at: now }))
          .execute();
      },
    },

    leases: {
      /** The leader lease as stored (the store's `deliberate_leases`, taken by `loopLeaderLock`), lapsed or not. */
      get(name: string): Promise<Lease | undefined> {
        return readLease(db, name);
      },
    },

    cycles: {
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
        const rows = await db.selectFrom("self_improvement_cycles").selectAll().orderBy("started_at", "desc").orderBy("id", "desc").limit(limit).execute();
        return rows.map(toCycle);
      },
      /** Keeps the newest `keep` cycles. */
      async prune(keep: number): Promise<void> {
        const cutoff = await db.selectFrom("self_improvement_cycles").select("started_at").orderBy("started_at", "desc").offset(keep).limit(1).executeTakeFirst();
        if (cutoff) await db.deleteFrom("self_improvement_cycles").where("started_at", "<=", cutoff.started_at).execute();
      },
    },

    toolModes: {
      /** Adds observed calls of `tool` that asked `mode`. */
      async observe(input: { tool: string; mode: string; calls: number; now: string }): Promise<void> {
        await db
          .insertInto("self_improvement_tool_modes")
          .values({ tool: input.tool, mode: input.mode, calls: input.calls, first_seen_at: input.now, last_seen_at: input.now })
          .onConflict((conflict) => conflict.columns(["tool", "mode"]).doUpdateSet((eb) => ({ calls: eb("self_improvement_tool_modes.calls", "+", input.calls), last_seen_at: input.now })))
          .execute();
      },
      /** Tool -> its modes, most used first. */
      async all(): Promise<Map<string, string[]>> {
        const rows = await db.selectFrom("self_improvement_tool_modes").selectAll().orderBy("tool").orderBy("calls", "desc").orderBy("mode").execute();
        const map = new Map<string, string[]>();
        for (const row of rows) map.set(row.tool, [...(map.get(row.tool) ?? []), row.mode]);
        return map;
      },
    },

    invocations: {
      /**
       * Rows of calls started at or after `since`, oldest first by start; at most
       * `limit`, the newest kept. A row without a start (written without one) starts at its finish.
       */
      async since(input: { since: string; limit: number; tools?: readonly string[] }): Promise<InvocationSample[]> {
        // A call that started at `since` finished no earlier: the (tool, created_at) index narrows, the start decides.
        let query = selectSamples().where("created_at", ">=", input.since).where(startedAt, ">=", input.since);
        if (input.tools !== undefined) query = query.where("tool", "in", input.tools.length > 0 ? [...input.tools] : [""]);
        const rows = await query.orderBy(startedAt, "desc").orderBy("id", "desc").limit(input.limit).execute();
        return rows.reverse().map(toSample);
      },
      /**
       * Rows of `tools` whose calls STARTED in [from, to), oldest first: the last `limit`
       * before `to`, or the first `limit` from `from` (`take`). A call is attributed to
       * the settings in force when it started, not when it finished.
       */
      async between(input: { tools: readonly string[]; from: string; to?: string; limit: number; take: "first" | "last" }): Promise<InvocationSample[]> {
        let query = selectSamples()
          .where("tool", "in", input.tools.length > 0 ? [...input.tools] : [""])
          .where("created_at", ">=", input.from)
          .where(startedAt, ">=", input.from);
        if (input.to !== undefined) query = query.where(startedAt, "<", input.to);
        const direction = input.take === "first" ? "asc" : "desc";
        const rows = await query.orderBy(startedAt, direction).orderBy("id", direction).limit(input.limit).execute();
        const ordered = input.take === "first" ? rows : rows.reverse();
        return ordered.map(toSample);
      },
    },
  };
}

/** The module's repository as it appears in `store.selfImprovement`. */
export type SelfImprovementRepository = ReturnType<typeof createSelfImprovementRepository>;

/** What the module adds to the store. */
export interface SelfImprovementRepositories {
  selfImprovement: SelfImprovementRepository;
}

export function createSelfImprovementRepositories(db: Kysely<Database>): SelfImprovementRepositories {
  return { selfImprovement: createSelfImprovementRepository(db) };
}
