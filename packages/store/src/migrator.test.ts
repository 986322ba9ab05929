import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Generated, type Kysely, type Migration, sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import {
  columnTypes,
  type Database,
  type DialectName,
  openStore,
  type Store,
  type StoreContribution,
} from "./index.ts";
import { openSqliteDatabase } from "./open-database.ts";
import { openPostgresDatabase } from "./open-postgres.ts";
import { freshTestDatabase, testDialects } from "./testing/index.ts";

const stores: Store[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
});

async function open(options: Parameters<typeof openStore>[0]): Promise<Store> {
  const store = await openStore(options);
  stores.push(store);
  return store;
}

function tableMigration(table: string): Migration {
  return {
    async up(db: Kysely<unknown>) {
      const types = columnTypes(db);
      await db.schema
        .createTable(table)
        .addColumn("id", "text", (column) => column.primaryKey())
        .addColumn("done", types.boolean, (column) => column.notNull().defaultTo(types.false))
        .addColumn("at", types.timestamp)
        .addColumn("data", types.json)
        .execute();
    },
  };
}

const notes: StoreContribution<{ notes: { count(): Promise<number> } }> = {
  name: "notes",
  migrations: { "2026-12-01T0000-notes": tableMigration("notes") },
  repositories: (db: Kysely<Database>) => ({
    notes: {
      async count() {
        const row = await db
          .withTables<{ notes: { id: string } }>()
          .selectFrom("notes")
          .select((eb) => eb.fn.countAll<number>().as("n"))
          .executeTakeFirstOrThrow();
        return Number(row.n);
      },
    },
  }),
};

async function tables(store: Store): Promise<string[]> {
  const rows =
    store.dialect === "postgres"
      ? await sql<{
          name: string;
        }>`select table_name as name from information_schema.tables where table_schema = current_schema() order by table_name`.execute(
          store.db,
        )
      : await sql<{ name: string }>`select name from sqlite_master where type = 'table' order by name`.execute(
          store.db,
        );
  return rows.rows.map((row) => row.name);
}

/** A database two stores can share: a file for SQLite, one schema for Postgres. */
async function sharedPlace(dialect: DialectName): Promise<{ path: string } | { url: string }> {
  if (dialect === "sqlite") return { path: join(mkdtempSync(join(tmpdir(), "deliberate-migrator-")), "shared.db") };
  return freshTestDatabase("postgres");
}

async function rawDatabase(place: { path: string } | { url: string }): Promise<Kysely<Database>> {
  return "path" in place
    ? openSqliteDatabase({ path: place.path })
    : openPostgresDatabase({ url: place.url, poolSize: 2 });
}

describe.each(testDialects)("migrations contributed by modules, on %s", (dialect) => {
  it("creates a module's tables and binds its repositories, in one transaction with the shared ones", async () => {
    const store = (await open({ ...(await freshTestDatabase(dialect)), modules: [notes] })) as Store<{
      notes: { count(): Promise<number> };
    }>;
    expect(await tables(store)).toEqual(
      expect.arrayContaining([
        "notes",
        "sessions",
        "thoughts",
        "deliberate_migrations",
        "deliberate_sequences",
        "deliberate_leases",
      ]),
    );
    expect(await store.notes.count()).toBe(0);
    expect(await store.transaction((repositories) => repositories.notes.count())).toBe(0);
    expect([...store.contributors]).toEqual(["notes"]);
    expect(store.dialect).toBe(dialect);
  });

  it("lets services composing different modules share one database", async () => {
    const place = await sharedPlace(dialect);
    await open({ ...place, modules: [notes] });
    // A service that does not compose "notes" starts on the same database: the notes migration is not its concern.
    const without = await open(place);
    const owners = await sql<{
      owner: string;
      name: string;
    }>`select owner, name from deliberate_migrations order by owner, name`.execute(without.db);
    expect(owners.rows.filter((row) => row.owner === "notes")).toEqual([
      { owner: "notes", name: "2026-12-01T0000-notes" },
    ]);
  });

  // SQLite's driver waits for locks synchronously, so replicas are processes there, not pools in one process.
  it.runIf(dialect === "postgres")(
    "lets replicas migrate one database at once: every migration runs exactly once",
    async () => {
      const place = await sharedPlace(dialect);
      let runs = 0;
      const counted: StoreContribution = {
        name: "counted",
        migrations: {
          "2026-12-03T0000-counted": {
            async up(db: Kysely<unknown>) {
              runs += 1;
              await db.schema
                .createTable("counted")
                .addColumn("id", "text", (column) => column.primaryKey())
                .execute();
            },
          },
        },
      };
      const replicas = await Promise.all([1, 2, 3].map(() => open({ ...place, modules: [notes, counted] })));
      expect(runs).toBe(1);
      const recorded = await sql<{
        owner: string;
        name: string;
      }>`select owner, name from deliberate_migrations`.execute(replicas[0]!.db);
      const keys = recorded.rows.map((row) => `${row.owner}/${row.name}`);
      expect(new Set(keys).size).toBe(keys.length);
      expect(keys).toContain("counted/2026-12-03T0000-counted");
      expect(keys).toContain("base/2026-11-22T0500-core-tables");
    },
  );

  it("counts migrations recorded by the earlier, ownerless migrator as applied", async () => {
    const place = await sharedPlace(dialect);
    const db = await rawDatabase(place);
    await sql`create table kysely_migration (name varchar(255) primary key, timestamp varchar(255) not null)`.execute(
      db,
    );
    await sql`insert into kysely_migration (name, timestamp) values ('2026-12-01T0000-notes', 'then')`.execute(db);
    await sql`create table notes (id text primary key)`.execute(db);
    await db.destroy();
    // Re-running the migration would fail (the table exists): it must be skipped.
    const store = await open({ ...place, modules: [notes] });
    expect(await tables(store)).toContain("sessions");
  });

  it("refuses two contributions with one name, and names a failing migration", async () => {
    await expect(openStore({ ...(await freshTestDatabase(dialect)), modules: [notes, notes] })).rejects.toThrow(
      /named 'notes'/,
    );
    const broken: StoreContribution = {
      name: "broken",
      migrations: { "2026-12-02T0000-broken": { up: async () => Promise.reject(new Error("boom")) } },
    };
    await expect(openStore({ ...(await freshTestDatabase(dialect)), modules: [broken] })).rejects.toThrow(
      /broken\/2026-12-02T0000-broken failed: boom/,
    );
  });

  it("types booleans, timestamps and JSON natively and hands them over in one shape", async () => {
    const store = await open({ ...(await freshTestDatabase(dialect)), modules: [notes] });
    const db = store.db.withTables<{
      notes: { id: string; done: Generated<number>; at: string | null; data: string | null };
    }>();
    await db
      .insertInto("notes")
      .values({ id: "n1", done: 1, at: "2026-11-22T10:00:00.000Z", data: '{"b":1,"a":[2]}' })
      .execute();
    await db.insertInto("notes").values({ id: "n2", at: null, data: null }).execute();
    const rows = await db.selectFrom("notes").selectAll().orderBy("id").execute();
    expect(rows).toEqual([
      { id: "n1", done: 1, at: "2026-11-22T10:00:00.000Z", data: '{"b":1,"a":[2]}' },
      { id: "n2", done: 0, at: null, data: null },
    ]);
    expect((await db.selectFrom("notes").select("id").where("done", "=", 1).execute()).map((row) => row.id)).toEqual([
      "n1",
    ]);
    expect(
      (await db.selectFrom("notes").select("id").where("at", ">=", "2026-11-22T09:00:00.000Z").execute()).map(
        (row) => row.id,
      ),
    ).toEqual(["n1"]);
    if (dialect === "postgres") {
      const columns = await sql<{ column_name: string; data_type: string }>`
        select column_name, data_type from information_schema.columns where table_schema = current_schema() and table_name in ('notes', 'invocations', 'thoughts')
        and column_name in ('done', 'at', 'data', 'success', 'metadata', 'created_at') order by table_name, column_name`.execute(
        store.db,
      );
      expect(columns.rows.map((row) => `${row.column_name}:${row.data_type}`)).toEqual([
        "created_at:timestamp with time zone",
        "success:boolean",
        "at:timestamp with time zone",
        "data:json",
        "done:boolean",
        "created_at:timestamp with time zone",
        "metadata:json",
      ]);
      // Postgres checks what SQLite would store blindly.
      await expect(db.insertInto("notes").values({ id: "bad", data: "{not json" }).execute()).rejects.toThrow(/json/i);
      await expect(db.insertInto("notes").values({ id: "bad", at: "yesterday-ish" }).execute()).rejects.toThrow();
    }
  });
});
