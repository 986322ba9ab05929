import { type Kysely, sql } from "kysely";

/**
 * Tables whose rows change without a request writing data: telemetry and the
 * rate limiter's counters on every request, and self-improvement's record of the
 * service's settings, written a moment after start.
 */
const bookkeepingTables = ["reasoning_logs", "rate_limits", "self_improvement_state"];

/**
 * Rows in every data table (all but the migrators' and the bookkeeping tables),
 * by table: a rejected call must leave every count unchanged.
 */
export async function countDataRows(store: { db: unknown; dialect?: string }): Promise<Record<string, number>> {
  const db = store.db as Kysely<Record<string, Record<string, unknown>>>;
  const skipped = sql.join(bookkeepingTables.map((name) => sql.lit(name)));
  const tables =
    store.dialect === "postgres"
      ? await sql<{
          name: string;
        }>`select table_name as name from information_schema.tables where table_schema = current_schema() and table_name not like 'kysely_%' and table_name not like '%migrations' and table_name not in (${skipped}) order by table_name`.execute(
          db,
        )
      : await sql<{
          name: string;
        }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%' and name not like 'kysely_%' and name not like '%migrations' and name not in (${skipped}) order by name`.execute(
          db,
        );
  const counts: Record<string, number> = {};
  for (const { name } of tables.rows) {
    const row = await sql<{ count: number | string }>`select count(*) as count from ${sql.table(name)}`.execute(db);
    counts[name] = Number(row.rows[0]?.count ?? 0);
  }
  return counts;
}
