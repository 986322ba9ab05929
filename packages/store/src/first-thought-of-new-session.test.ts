import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import type { Store } from "./index.ts";
import { testDialects, useTestStores } from "./testing/index.ts";

const now = "2026-11-28T00:00:00.000Z";

const thought = (id: string, sessionId = "s1") => ({
  id,
  session_id: sessionId,
  mode: "decision",
  content: `thought ${id}`,
  created_at: now,
});

async function positions(store: Store, sessionId = "s1"): Promise<number[]> {
  const result = await sql<{ position: number }>`
    select position from thoughts where session_id = ${sessionId} order by position`.execute(store.db);
  return result.rows.map((row) => Number(row.position));
}

async function counterRows(store: Store, sessionId = "s1"): Promise<number> {
  const result = await sql<{ count: number }>`
    select count(*) as count from deliberate_sequences where scope = 'thoughts' and key = ${sessionId}`.execute(
    store.db,
  );
  return Number(result.rows[0]?.count);
}

describe.each(testDialects)("the first thought of a session made in the same transaction (%s)", (dialect) => {
  const memoryStore = useTestStores(dialect);

  it("takes position 0; later appends continue at 1, 2 (the counter starts after the rows there)", async () => {
    const store = await memoryStore();
    await store.transaction(async (repositories) => {
      await repositories.sessions.create({ id: "s1", mode: "decision", now });
      await repositories.thoughts.append(thought("t0"), { firstOfNewSession: true });
    });
    expect(await positions(store)).toEqual([0]);
    // On SQLite the hint saves the counter's row (Postgres writes it in the same statement as the thought).
    if (dialect === "sqlite") expect(await counterRows(store)).toBe(0);
    await store.transaction(async (repositories) => {
      await repositories.thoughts.append(thought("t1"));
    });
    await store.thoughts.append(thought("t2"));
    expect(await positions(store)).toEqual([0, 1, 2]);
    expect(await store.thoughts.count("s1")).toBe(3);
    expect((await store.thoughts.listBySession("s1")).map((row) => row.id)).toEqual(["t0", "t1", "t2"]);
  });

  // Postgres ignores the hint (its append reserves the position in the same statement anyway).
  it.runIf(dialect === "sqlite")(
    "given wrongly (the session already has a thought), the append fails and writes nothing",
    async () => {
      const store = await memoryStore();
      await store.sessions.create({ id: "s1", mode: "decision", now });
      await store.thoughts.append(thought("t0"));
      await expect(
        store.transaction(async (repositories) => {
          await repositories.thoughts.append(thought("wrong"), { firstOfNewSession: true });
        }),
      ).rejects.toThrow(/UNIQUE/);
      expect(await positions(store)).toEqual([0]);
      expect(await store.thoughts.find("wrong")).toBeUndefined();
    },
  );
});
