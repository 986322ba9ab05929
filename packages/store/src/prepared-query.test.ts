import type { Kysely } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import type { Database } from "./database.ts";
import { openStore, preparedQuery, type Store } from "./index.ts";

const stores: Store[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
});

const now = "2026-11-22T10:00:00.000Z";
const sessionsOfMode = preparedQuery((db: Kysely<Database>, mode: string, limit: number) =>
  db
    .selectFrom("sessions")
    .selectAll()
    .where("mode", "=", mode)
    .where("id", "!=", "excluded")
    .orderBy("id")
    .limit(limit),
);

describe("preparedQuery", () => {
  it("runs the query compiled once with each call's values, also inside a transaction", async () => {
    const store = await openStore({ path: ":memory:" });
    stores.push(store);
    for (const [id, mode] of [
      ["a", "linear"],
      ["b", "linear"],
      ["c", "tree"],
      ["excluded", "linear"],
    ] as const)
      await store.sessions.create({ id, mode, now });
    const direct = await store.db
      .selectFrom("sessions")
      .selectAll()
      .where("mode", "=", "linear")
      .where("id", "!=", "excluded")
      .orderBy("id")
      .limit(5)
      .execute();
    expect(await sessionsOfMode(store.db, "linear", 5)).toEqual(direct);
    expect((await sessionsOfMode(store.db, "linear", 1)).map((row) => row.id)).toEqual(["a"]);
    expect((await sessionsOfMode(store.db, "tree", 5)).map((row) => row.id)).toEqual(["c"]);
    await store.transaction(async (repositories) => {
      await repositories.sessions.create({ id: "d", mode: "tree", now });
      expect((await sessionsOfMode(repositories.db, "tree", 5)).map((row) => row.id)).toEqual(["c", "d"]);
    });
    expect(await store.sessions.find("d")).toMatchObject({ id: "d", mode: "tree" });
    expect(await store.sessions.find("missing")).toBeUndefined();
  });

  it("refuses a placeholder that is not used as a value", async () => {
    const store = await openStore({ path: ":memory:" });
    stores.push(store);
    const unused = preparedQuery((db: Kysely<Database>, _id: string) => db.selectFrom("sessions").selectAll());
    await expect(unused(store.db, "x")).rejects.toThrow("every placeholder must be used exactly once");
  });
});
