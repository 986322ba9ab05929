import { parseJsonColumn } from "@deliberate/store";
import type { LearningRecord, LessonVerdict, MetricComparison } from "../../records.ts";
import type { AdjustableSetting, Direction } from "../../types.ts";
import type { DatabaseExecutor } from "../tables.ts";
import type { LearningRow } from "../tables/learning.table.ts";

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

/** Learnings: the learner's verdicts and lessons. */
export function createLearningRepository(db: DatabaseExecutor) {
  return {
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
      const rows = await query
        .orderBy("created_at", "desc")
        .orderBy("id", "desc")
        .limit(filter.limit ?? 100)
        .execute();
      return rows.map(toLearning);
    },
    async forAction(actionId: string): Promise<LearningRecord | undefined> {
      const row = await db
        .selectFrom("self_improvement_learnings")
        .selectAll()
        .where("action_id", "=", actionId)
        .orderBy("created_at", "desc")
        .executeTakeFirst();
      return row ? toLearning(row) : undefined;
    },
  };
}
