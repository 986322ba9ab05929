import { type Kysely, Migrator } from "kysely";
import { dialogMigrations } from "../store/migrations/index.ts";

/**
 * Applies the dialog module's migrations on a database that already has the shared tables,
 * tracked in their own migration table (until the engine runs module migrations itself).
 */
export async function migrateDialogTables(db: Kysely<unknown>): Promise<void> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => dialogMigrations },
    migrationTableName: "dialog_migration",
    migrationLockTableName: "dialog_migration_lock",
  });
  const { error } = await migrator.migrateToLatest();
  if (error) throw error;
}
