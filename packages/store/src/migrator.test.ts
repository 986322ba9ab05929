import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Kysely, type Migration, sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { type Database, openSqliteDatabase, openStore, type Store, type StoreContribution } from "./index.ts";

const stores: Store[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
});

function tableMigration(table: string): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.createTable(table).addColumn("id", "text", (column) => column.primaryKey()).execute();
    },
  };
}

const notes: StoreContribution<{ notes: { count(): Promise<number> } }> = {
  name: "notes",
  migrations: { "2026-12-01T0000-notes": tableMigration("notes") },
  repositories: (db: Kysely<Database>) => ({
    notes: {
      async count() {
        const row = await db.withTables<{ notes: { id: string } }>().selectFrom("notes").select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow();
        return Number(row.n);
      },
    },
  }),
};

async function tables(store: Store): Promise<string[]> {
  const rows = await sql<{ name: string }>`select name from sqlite_master where type = 'table' order by name`.execute(store.db);
  return rows.rows.map((row) => row.name);
}

describe("migrations contributed by modules", () => {
  it("creates a module's tables and binds its repositories, in one transaction with the shared ones", async () => {
    const store = await openStore<{ notes: { count(): Promise<number> } }>({ path: ":memory:", modules: [notes] });
    stores.push(store);
    expect(await tables(store)).toContain("notes");
    expect(await store.notes.count()).toBe(0);
    expect(await store.transaction((repositories) => repositories.notes.count())).toBe(0);
    expect([...store.contributors]).toEqual(["notes"]);
  });

  it("lets services composing different modules share one database file", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "deliberate-migrator-")), "shared.db");
    const withNotes = await openStore({ path, modules: [notes] });
    stores.push(withNotes);
    // A service that does not compose "notes" starts on the same file: the notes migration is not its concern.
    const without = await openStore({ path });
    stores.push(without);
    const owners = await sql<{ owner: string; name: string }>`select owner, name from deliberate_migrations order by owner, name`.execute(without.db);
    expect(owners.rows.filter((row) => row.owner === "notes")).toEqual([{ owner: "notes", name: "2026-12-01T0000-notes" }]);
  });

  it("counts migrations recorded by the earlier, ownerless migrator as applied", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "deliberate-migrator-")), "legacy.db");
    const db = await openSqliteDatabase({ path });
    await sql`create table kysely_migration (name varchar(255) primary key, timestamp varchar(255) not null)`.execute(db);
    await sql`insert into kysely_migration (name, timestamp) values ('2026-12-01T0000-notes', 'then')`.execute(db);
    await sql`create table notes (id text primary key)`.execute(db);
    await db.destroy();
    // Re-running the migration would fail (the table exists): it must be skipped.
    const store = await openStore({ path, modules: [notes] });
    stores.push(store);
    expect(await tables(store)).toContain("sessions");
  });

  it("refuses two contributions with one name, and names a failing migration", async () => {
    await expect(openStore({ path: ":memory:", modules: [notes, notes] })).rejects.toThrow(/named 'notes'/);
    const broken: StoreContribution = { name: "broken", migrations: { "2026-12-02T0000-broken": { up: async () => Promise.reject(new Error("boom")) } } };
    await expect(openStore({ path: ":memory:", modules: [broken] })).rejects.toThrow(/broken\/2026-12-02T0000-broken failed: boom/);
  });
});
