import BetterSqlite3 from "better-sqlite3";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { withStatementCache } from "./statement-cache.ts";

describe("withStatementCache: least recently used first out", () => {
  it("keeps what was used last, whatever order the texts first came in, and never more than its capacity", () => {
    const connection = new BetterSqlite3(":memory:");
    const database = withStatementCache(connection, 3);
    const [a, b, c] = ["select 1", "select 2", "select 3"].map((text) => database.prepare(text));
    // a is used again: b is now the least recently used, and the fourth text evicts it.
    expect(database.prepare("select 1")).toBe(a);
    database.prepare("select 4");
    expect(database.prepare("select 3")).toBe(c);
    expect(database.prepare("select 1")).toBe(a);
    expect(database.prepare("select 2")).not.toBe(b);
    database.close();
  });

  it("agrees with a plain list model on every sequence of texts (hits hand out the cached statement, misses a new one)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5 }),
        fc.array(fc.integer({ min: 0, max: 7 }), { maxLength: 60 }),
        (capacity, uses) => {
          const connection = new BetterSqlite3(":memory:");
          const database = withStatementCache(connection, capacity);
          // The model: texts from least to most recently used, with the statement each was cached with.
          const model: Array<{ text: string; statement: unknown }> = [];
          for (const use of uses) {
            const text = `select ${use}`;
            const statement = database.prepare(text);
            const index = model.findIndex((entry) => entry.text === text);
            if (index >= 0) {
              expect(statement).toBe(model[index]?.statement);
              model.push(...model.splice(index, 1));
            } else {
              expect(model.some((entry) => entry.statement === statement)).toBe(false);
              model.push({ text, statement });
              if (model.length > capacity) model.shift();
            }
          }
          connection.close();
        },
      ),
    );
  });
});
