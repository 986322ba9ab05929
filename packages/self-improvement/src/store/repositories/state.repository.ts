import { parseJsonColumn } from "@deliberate/store";
import type { DatabaseExecutor } from "../tables.ts";

/** State: small JSON records by key (breaker, pause, service settings). */
export function createStateRepository(db: DatabaseExecutor) {
  return {
    async get<T>(key: string): Promise<T | undefined> {
      const row = await db
        .selectFrom("self_improvement_state")
        .select("value_json")
        .where("key", "=", key)
        .executeTakeFirst();
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
  };
}
