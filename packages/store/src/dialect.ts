import { type Kysely, PostgresAdapter } from "kysely";

/** The SQL dialects the store runs on: SQLite (embedded default) and Postgres (several replicas). */
export type DialectName = "sqlite" | "postgres";

/** Which dialect a database handle (or an open transaction) speaks. */
// biome-ignore lint/suspicious/noExplicitAny: any table schema
export function dialectOf(db: Kysely<any>): DialectName {
  return db.getExecutor().adapter instanceof PostgresAdapter ? "postgres" : "sqlite";
}
