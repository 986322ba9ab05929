import type { Migration, MigrationProvider } from "kysely";
import { coreTables } from "./2026-11-22T0500-core-tables.ts";

/**
 * Every migration, keyed by a timestamped name (applied in name order).
 * Register new migrations here; never edit one that has shipped.
 */
export const migrations: Record<string, Migration> = {
  "2026-11-22T0500-core-tables": coreTables,
};

export const inlineMigrationProvider: MigrationProvider = {
  async getMigrations() {
    return migrations;
  },
};
