import type { Kysely } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import type { Database } from "./database.ts";
import { openStore, preparedInsert, type Store } from "./index.ts";
import { testDialects, useTestStores } from "./testing/index.ts";

const stores: Store[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
});

const insertSessions = preparedInsert(
  ["id", "mode", "active_branch_id", "created_at", "updated_at"] as const,
  (db: Kysely<Database>, rows) => db.insertInto("sessions").values(rows as never),
  3,
);
// An upsert: the conflict clause refers to columns only, every value is a row's cell.
const upsertModes = preparedInsert(
  ["id", "mode", "active_branch_id", "created_at", "updated_at"] as const,
  (db: Kysely<Database>, rows) =>
    db
      .insertInto("sessions")
      .values(rows as never)
      .onConflict((conflict) =>
        conflict
          .column("id")
          .doUpdateSet((eb) => ({ mode: eb.ref("excluded.mode"), updated_at: eb.ref("excluded.updated_at") })),
      ),
  10,
);

describe.each(testDialects)("preparedInsert on %s", (dialect) => {
  const memoryStore = useTestStores(dialect);

  it("inserts any number of rows in slices, each cell in its column, undefined as null, also inside a transaction", async () => {
    const store = await memoryStore();
    const rows = Array.from({ length: 7 }, (_, index) => ({
      id: `s${index}`,
      mode: index % 2 === 0 ? "linear" : "tree",
      active_branch_id: index === 3 ? "b3" : undefined,
      created_at: `2026-11-23T10:00:0${index}.000Z`,
      updated_at: `2026-11-23T11:00:0${index}.000Z`,
    }));
    await insertSessions(store.db, rows.slice(0, 5));
    await store.transaction(async (repositories) => insertSessions(repositories.db, rows.slice(5)));
    const stored = await store.db.selectFrom("sessions").selectAll().orderBy("id").execute();
    expect(stored).toEqual(rows.map((row) => ({ ...row, active_branch_id: row.active_branch_id ?? null })));
  });

  it("runs an upsert compiled once per row count with each batch's values", async () => {
    const store = await memoryStore();
    const at = "2026-11-23T10:00:00.000Z";
    await upsertModes(store.db, [
      { id: "a", mode: "linear", active_branch_id: null, created_at: at, updated_at: at },
      { id: "b", mode: "linear", active_branch_id: null, created_at: at, updated_at: at },
    ]);
    await upsertModes(store.db, [
      { id: "b", mode: "tree", active_branch_id: null, created_at: at, updated_at: "2026-11-23T12:00:00.000Z" },
      { id: "c", mode: "graph", active_branch_id: null, created_at: at, updated_at: at },
    ]);
    const stored = await store.db.selectFrom("sessions").select(["id", "mode", "updated_at"]).orderBy("id").execute();
    expect(stored).toEqual([
      { id: "a", mode: "linear", updated_at: at },
      { id: "b", mode: "tree", updated_at: "2026-11-23T12:00:00.000Z" },
      { id: "c", mode: "graph", updated_at: at },
    ]);
  });
});

describe("preparedInsert", () => {
  it("refuses a statement that does not use every cell as a value, and a slice size below one", async () => {
    const store = await openStore({ path: ":memory:" });
    stores.push(store);
    const dropsCells = preparedInsert(
      ["id", "mode"] as const,
      (db: Kysely<Database>, rows) => db.insertInto("sessions").values(rows.slice(1) as never),
      5,
    );
    await expect(
      dropsCells(store.db, [
        { id: "x", mode: "linear" },
        { id: "y", mode: "linear" },
      ]),
    ).rejects.toThrow("every cell must be used exactly once");
    expect(() =>
      preparedInsert(
        ["id"] as const,
        (db: Kysely<Database>, rows) => db.insertInto("sessions").values(rows as never),
        0,
      ),
    ).toThrow("maxRows");
  });
});
