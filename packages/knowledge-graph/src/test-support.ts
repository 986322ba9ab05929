import { type Database, migrations as baseMigrations, openSqliteDatabase } from "@deliberate/store";
import { type Kysely, Migrator } from "kysely";
import { knowledgeGraphMigrations } from "./storage/migrations.ts";

/**
 * In-memory SQLite with the base tables and this module's tables, migrated
 * the way the engine's migrator will: base and module migrations in name order.
 */
export async function openTestDatabase(): Promise<Kysely<Database>> {
  const db = await openSqliteDatabase({ path: ":memory:" });
  const migrator = new Migrator({ db, provider: { getMigrations: async () => ({ ...baseMigrations, ...knowledgeGraphMigrations }) } });
  const { error } = await migrator.migrateToLatest();
  if (error) throw error;
  return db;
}
