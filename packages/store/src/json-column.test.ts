import { DeliberateError } from "@deliberate/base";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseJsonColumn, parseJsonObject } from "./json-column.ts";
import { testDialects, useTestStores } from "./testing/index.ts";

function storageErrorOf(run: () => unknown): DeliberateError {
  try {
    run();
  } catch (error) {
    if (DeliberateError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("expected a STORAGE error");
}

describe("parseJsonColumn", () => {
  it("gives back every JSON value it stored", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(parseJsonColumn(JSON.stringify(value), "t.c")).toEqual(JSON.parse(JSON.stringify(value)));
      }),
    );
  });

  it("refuses text that is not JSON as STORAGE, naming where the bad value sits", () => {
    fc.assert(
      fc.property(
        fc.string().filter((text) => {
          try {
            JSON.parse(text);
            return false;
          } catch {
            return true;
          }
        }),
        (text) => {
          const error = storageErrorOf(() => parseJsonColumn(text, "suspended call rt_1 answers"));
          expect(error.code).toBe("STORAGE");
          expect(error.message).toBe("Corrupt JSON in suspended call rt_1 answers");
        },
      ),
    );
  });

  it("parseJsonObject refuses JSON that is not an object", () => {
    for (const text of ["[1]", "null", "3", '"x"']) {
      const error = storageErrorOf(() => parseJsonObject(text, "thought t1"));
      expect(error.code).toBe("STORAGE");
      expect(error.message).toBe("Corrupt JSON in thought t1: not an object");
    }
    expect(parseJsonObject('{"a":1}', "thought t1")).toEqual({ a: 1 });
  });
});

// Postgres keeps these columns as json and refuses bad text on write; SQLite stores any text, so a damaged
// file (or a hand edit) can hold one.
describe.runIf(testDialects.includes("sqlite"))("a corrupt JSON column on sqlite", () => {
  const memoryStore = useTestStores("sqlite");

  it("fails the read with STORAGE naming the row and column", async () => {
    const store = await memoryStore();
    const now = "2026-11-22T10:00:00.000Z";
    await store.suspendedCalls.save({
      id: "rt_corrupt",
      tool: "reasoning_linear",
      arguments: {},
      answers: {},
      pending: [],
      rounds: 1,
      created_at: now,
      updated_at: now,
      expires_at: "2026-11-22T11:00:00.000Z",
    });
    await store.db
      .updateTable("suspended_calls")
      .set({ answers: "{not json" })
      .where("id", "=", "rt_corrupt")
      .execute();
    const error = await store.suspendedCalls.get("rt_corrupt", now).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(DeliberateError.isInstance(error)).toBe(true);
    expect((error as DeliberateError).code).toBe("STORAGE");
    expect((error as DeliberateError).message).toBe("Corrupt JSON in suspended call rt_corrupt answers");
  });
});
