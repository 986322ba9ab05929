import { DeliberateError } from "@deliberate/base";
import { type Kysely, type Migration, sql } from "kysely";
import { columnTypes } from "./column-types.ts";
import type { Database } from "./database.ts";
import { dialectOf } from "./dialect.ts";
import { baseMigrations } from "./migrations/index.ts";
import type { StoreContribution } from "./store-contribution.ts";

/** The owner name of the shared tables' migrations. */
export const baseOwner = "base";

const migrationTable = "deliberate_migrations";

interface PendingMigration {
  owner: string;
  name: string;
  migration: Migration;
}

/**
 * Every migration of the base and the given contributions, in timestamp (name)
 * order; the base goes first among equal names since modules reference its tables.
 */
export function orderedMigrations(contributions: readonly StoreContribution[]): PendingMigration[] {
  const owners = new Set<string>([baseOwner]);
  const all: PendingMigration[] = Object.entries(baseMigrations).map(([name, migration]) => ({
    owner: baseOwner,
    name,
    migration,
  }));
  for (const contribution of contributions) {
    if (owners.has(contribution.name)) throw new Error(`Two store contributions are named '${contribution.name}'`);
    owners.add(contribution.name);
    for (const [name, migration] of Object.entries(contribution.migrations ?? {}))
      all.push({ owner: contribution.name, name, migration });
  }
  return all.sort((a, b) =>
    a.name === b.name ? (a.owner === baseOwner ? -1 : b.owner === baseOwner ? 1 : 0) : a.name < b.name ? -1 : 1,
  );
}

/**
 * Applies every pending migration of the base and the contributions, each in
 * its own transaction, recorded per (owner, name). Migrations of owners this
 * process does not compose are left alone, so services composing different
 * modules share one database. A database migrated before migrations had owners
 * (kysely's own table) counts each recorded name as applied for every owner
 * that has a migration of that name (the names were kept when tables moved to
 * their modules).
 */
export async function migrateToLatest(
  db: Kysely<Database>,
  contributions: readonly StoreContribution[] = [],
): Promise<void> {
  const all = orderedMigrations(contributions);
  if (dialectOf(db) === "sqlite") return migrateOn(db, all);
  // Postgres: replicas starting at once take turns. The advisory lock is held by
  // one connection for the whole run (its transactions run on that connection),
  // and keyed by schema, so databases sharing a server do not wait on each other.
  await db.connection().execute(async (connection) => {
    await sql`select pg_advisory_lock(${advisoryLockClass}, hashtext(current_schema()))`.execute(connection);
    try {
      await migrateOn(connection, all);
    } finally {
      await sql`select pg_advisory_unlock(${advisoryLockClass}, hashtext(current_schema()))`
        .execute(connection)
        .catch(() => undefined);
    }
  });
}

/** The first key of the migrations' advisory lock on Postgres ("DELI"); the second is the schema's hash. */
export const advisoryLockClass = 0x44454c49;

async function migrateOn(db: Kysely<Database>, all: readonly PendingMigration[]): Promise<void> {
  await db.schema
    .createTable(migrationTable)
    .ifNotExists()
    .addColumn("owner", "text", (column) => column.notNull())
    .addColumn("name", "text", (column) => column.notNull())
    .addColumn("executed_at", columnTypes(db).timestamp, (column) => column.notNull())
    .addPrimaryKeyConstraint("deliberate_migrations_pk", ["owner", "name"])
    .execute();
  const untyped = db as unknown as Kysely<Record<string, { owner: string; name: string; executed_at: string }>>;
  const applied = new Set(
    (await untyped.selectFrom(migrationTable).select(["owner", "name"]).execute()).map(
      (row) => `${row.owner}/${row.name}`,
    ),
  );
  const unapplied = all.filter((pending) => !applied.has(`${pending.owner}/${pending.name}`));
  // The usual start: everything applied, known from that one query.
  if (unapplied.length === 0) return;
  const legacy = await legacyNames(db);
  for (const pending of unapplied) {
    const executedAt = new Date().toISOString();
    try {
      await db.transaction().execute(async (transaction) => {
        // Another process may have applied it meanwhile: the row is the claim.
        const inserted = await (transaction as unknown as typeof untyped)
          .insertInto(migrationTable)
          .values({ owner: pending.owner, name: pending.name, executed_at: executedAt })
          .onConflict((conflict) => conflict.columns(["owner", "name"]).doNothing())
          .executeTakeFirst();
        if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) return;
        if (!legacy.has(pending.name)) await pending.migration.up(transaction);
      });
    } catch (error) {
      throw new DeliberateError({
        code: "STORAGE",
        message: `Migration ${pending.owner}/${pending.name} failed: ${(error as Error).message ?? String(error)}`,
        cause: error,
      });
    }
  }
}

/** Names recorded by kysely's Migrator before migrations had owners (empty when there is no such table). */
async function legacyNames(db: Kysely<Database>): Promise<ReadonlySet<string>> {
  if (dialectOf(db) === "postgres") {
    // A failed statement would abort nothing here, but checking first keeps the server log clean.
    const exists = await sql<{ found: string | null }>`select to_regclass('kysely_migration')::text as found`.execute(
      db,
    );
    if (exists.rows[0]?.found === null || exists.rows[0]?.found === undefined) return new Set();
  }
  try {
    const rows = await sql<{ name: string }>`select name from kysely_migration`.execute(db);
    return new Set(rows.rows.map((row) => row.name));
  } catch {
    return new Set();
  }
}
