import type { OverrideRecord } from "../../records.ts";
import type { AdjustableSetting } from "../../types.ts";
import type { DatabaseExecutor } from "../tables.ts";

/** Overrides: the setting values in force. */
export function createOverrideRepository(db: DatabaseExecutor) {
  return {
    async all(): Promise<OverrideRecord[]> {
      const rows = await db
        .selectFrom("self_improvement_overrides")
        .selectAll()
        .orderBy("scope")
        .orderBy("setting")
        .execute();
      return rows.map((row) => ({
        scope: row.scope,
        setting: row.setting as AdjustableSetting,
        value: Number(row.value),
        action_id: row.action_id,
        updated_at: row.updated_at,
      }));
    },
    async get(scope: string, setting: AdjustableSetting): Promise<OverrideRecord | undefined> {
      const row = await db
        .selectFrom("self_improvement_overrides")
        .selectAll()
        .where("scope", "=", scope)
        .where("setting", "=", setting)
        .executeTakeFirst();
      return row
        ? {
            scope: row.scope,
            setting: row.setting as AdjustableSetting,
            value: Number(row.value),
            action_id: row.action_id,
            updated_at: row.updated_at,
          }
        : undefined;
    },
    async put(record: OverrideRecord): Promise<void> {
      await db
        .insertInto("self_improvement_overrides")
        .values(record)
        .onConflict((conflict) =>
          conflict
            .columns(["scope", "setting"])
            .doUpdateSet({ value: record.value, action_id: record.action_id, updated_at: record.updated_at }),
        )
        .execute();
    },
    async delete(scope: string, setting: AdjustableSetting): Promise<void> {
      await db
        .deleteFrom("self_improvement_overrides")
        .where("scope", "=", scope)
        .where("setting", "=", setting)
        .execute();
    },
  };
}
