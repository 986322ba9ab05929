import fc from "fast-check";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore, type Store } from "./index.ts";

let store: Store;
const ids = Array.from({ length: 30 }, (_, index) => `s${String(index).padStart(2, "0")}`);

beforeAll(async () => {
  store = await openStore({ path: ":memory:" });
  for (const id of ids) await store.sessions.create({ id, mode: "linear", now: "2026-11-27T10:00:00.000Z" });
});
afterAll(() => store.close());

describe("the SQLite compiler's LIMIT", () => {
  it("is written behind a unary plus, so SQLite does not re-plan the statement for each value", () => {
    const compiled = store.db.selectFrom("sessions").select("id").orderBy("id").limit(10).offset(5).compile();
    expect(compiled.sql).toMatch(/ limit \+\? offset \?$/);
    expect(compiled.parameters).toEqual([10, 5]);
    // A limit written as SQL is the caller's and stays as written.
    expect(store.db.selectFrom("sessions").select("id").limit(sql<number>`3`).compile().sql).toMatch(/ limit 3$/);
  });

  it("returns the window of rows a plain LIMIT returns, for any limit and offset (a negative limit is no limit)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: -1, max: 40 }), fc.integer({ min: 0, max: 40 }), async (limit, offset) => {
        const rows = await store.db
          .selectFrom("sessions")
          .select("id")
          .orderBy("id")
          .limit(limit)
          .offset(offset)
          .execute();
        const expected = limit < 0 ? ids.slice(offset) : ids.slice(offset, offset + limit);
        expect(rows.map((row) => row.id)).toEqual(expected);
      }),
      { numRuns: 60 },
    );
  });

  it("refuses a limit that is not a number as SQLite does", async () => {
    await expect(
      store.db
        .selectFrom("sessions")
        .select("id")
        .limit("many" as unknown as number)
        .execute(),
    ).rejects.toThrow(/datatype mismatch/);
  });
});
