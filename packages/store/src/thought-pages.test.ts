import fc from "fast-check";
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import type { Thought } from "@deliberate/contracts";
import type { Store } from "./index.ts";
import { thoughtCounts } from "./migrations/2026-11-27T2000-thought-counts.ts";
import { testDialects, useTestStores } from "./testing/index.ts";

const now = "2026-11-22T10:00:00.000Z";

/** A session of `count` thoughts; `gapsAfter` lists indexes after which a position is reserved and never used, leaving a hole. */
async function seed(
  store: Store,
  sessionId: string,
  count: number,
  options: { gapsAfter?: readonly number[]; superseded?: readonly number[] } = {},
): Promise<void> {
  await store.sessions.create({ id: sessionId, mode: "linear", now });
  for (let index = 0; index < count; index += 1) {
    await store.thoughts.append({
      id: `${sessionId}-t${index}`,
      session_id: sessionId,
      mode: "linear",
      content: `thought ${index}`,
      confidence: index % 3 === 0 ? null : 0.25 * (index % 4),
      metadata: index % 2 === 0 ? {} : { index },
      created_at: now,
    });
    if (options.gapsAfter?.includes(index)) {
      // A position reserved and never used (an append that failed after its reservation, outside a transaction).
      await sql`update deliberate_sequences set next_position = next_position + 1 where scope = 'thoughts' and key = ${sessionId}`.execute(
        store.db,
      );
    }
  }
  if (options.superseded && options.superseded.length > 0) {
    const superseded = new Set(options.superseded);
    await store.thoughts.supersedeExcept(
      sessionId,
      Array.from({ length: count }, (_, index) => index)
        .filter((index) => !superseded.has(index))
        .map((index) => `${sessionId}-t${index}`),
    );
  }
}

/** Walks a session by keyset pages of `size` and returns every thought read. */
async function walk(store: Store, sessionId: string, size: number) {
  const { lastPosition } = await store.thoughts.extent(sessionId);
  const read: Thought[] = [];
  let after: number | null = null;
  if (lastPosition === null) return read;
  for (;;) {
    const page = await store.thoughts.after(sessionId, {
      afterPosition: after,
      throughPosition: lastPosition,
      limit: size,
    });
    read.push(...page.thoughts);
    if (page.lastPosition === null) return read;
    expect(page.thoughts.length).toBeLessThanOrEqual(size);
    after = page.lastPosition;
  }
}

describe.each(testDialects)("thought pages on %s", (dialect) => {
  const open = useTestStores(dialect);

  it("a window is the same slice of the full list, with or without holes in the positions", async () => {
    const store = await open();
    await seed(store, "dense", 23, { superseded: [2, 3, 20] });
    await seed(store, "holes", 23, { gapsAfter: [0, 7, 22] });
    await seed(store, "empty", 0);
    for (const sessionId of ["dense", "holes", "empty"]) {
      const all = await store.thoughts.listBySession(sessionId);
      await fc.assert(
        fc.asyncProperty(fc.nat({ max: 30 }), fc.integer({ min: 1, max: 30 }), async (offset, limit) => {
          const page = await store.thoughts.window(sessionId, { offset, limit });
          expect(page).toEqual({ thoughts: all.slice(offset, offset + limit), total: all.length });
        }),
        { numRuns: 40 },
      );
    }
    // The holes are real: positions skip, and the window still counts thoughts, not positions.
    expect(await store.thoughts.extent("holes")).toEqual({ total: 23, lastPosition: 24 });
    expect(await store.thoughts.extent("dense")).toEqual({ total: 23, lastPosition: 22 });
    expect(await store.thoughts.extent("empty")).toEqual({ total: 0, lastPosition: null });
    expect(await store.thoughts.extent("no-such-session")).toEqual({ total: 0, lastPosition: null });
  });

  it("keyset pages walk every thought once, in order, at every page size", async () => {
    const store = await open();
    await seed(store, "s1", 17, { gapsAfter: [4, 5], superseded: [0] });
    const all = await store.thoughts.listBySession("s1");
    for (const size of [1, 2, 5, 16, 17, 18, 1000]) expect(await walk(store, "s1", size)).toEqual(all);
    expect(await walk(store, "missing", 10)).toEqual([]);
  });

  it("a keyset page stops at the bound it was given, so thoughts appended during an export stay out of it", async () => {
    const store = await open();
    await seed(store, "s1", 5);
    const { lastPosition } = await store.thoughts.extent("s1");
    await store.thoughts.append({
      id: "late",
      session_id: "s1",
      mode: "linear",
      content: "appended meanwhile",
      created_at: now,
    });
    const page = await store.thoughts.after("s1", {
      afterPosition: 2,
      throughPosition: lastPosition as number,
      limit: 10,
    });
    expect(page.thoughts.map((thought) => thought.id)).toEqual(["s1-t3", "s1-t4"]);
    expect(page.lastPosition).toBe(4);
    expect(await store.thoughts.after("s1", { afterPosition: 4, throughPosition: 4, limit: 10 })).toEqual({
      thoughts: [],
      lastPosition: null,
    });
  });

  it("the count follows appends, appends in rolled-back transactions and deleted sessions", async () => {
    const store = await open();
    await seed(store, "s1", 3);
    await seed(store, "s2", 2);
    await expect(
      store.transaction(async (repositories) => {
        await repositories.thoughts.append({
          id: "rolled-back",
          session_id: "s1",
          mode: "linear",
          content: "x",
          created_at: now,
        });
        throw new Error("abandon the call");
      }),
    ).rejects.toThrow("abandon the call");
    expect((await store.thoughts.extent("s1")).total).toBe(3);
    await sql`delete from sessions where id = 's1'`.execute(store.db);
    expect(await store.thoughts.extent("s1")).toEqual({ total: 0, lastPosition: null });
    expect((await store.thoughts.extent("s2")).total).toBe(2);
    const rows = await sql<{ session_id: string }>`select session_id from thought_counts`.execute(store.db);
    expect(rows.rows.map((row) => row.session_id)).toEqual(["s2"]);
  });

  it("the migration counts the thoughts written before it", async () => {
    const store = await open();
    await thoughtCounts.down?.(store.db);
    await seed(store, "old", 4);
    await thoughtCounts.up(store.db);
    expect(await store.thoughts.extent("old")).toEqual({ total: 4, lastPosition: 3 });
    await store.thoughts.append({
      id: "new",
      session_id: "old",
      mode: "linear",
      content: "after the migration",
      created_at: now,
    });
    expect(await store.thoughts.window("old", { offset: 4, limit: 10 })).toMatchObject({
      thoughts: [{ id: "new" }],
      total: 5,
    });
  });

  it("rows whose count is missing are still counted, not reported empty", async () => {
    const store = await open();
    await seed(store, "s1", 3);
    await sql`delete from thought_counts`.execute(store.db);
    expect(await store.thoughts.extent("s1")).toEqual({ total: 3, lastPosition: 2 });
    expect((await store.thoughts.window("s1", { offset: 1, limit: 5 })).thoughts.map((thought) => thought.id)).toEqual([
      "s1-t1",
      "s1-t2",
    ]);
  });
});
