import { describe, expect, it } from "vitest";
import { joinTransaction } from "./index.ts";
import { testDialects, useTestStores } from "./testing/index.ts";

const now = "2026-11-22T10:00:00.000Z";

describe.each(testDialects)("joinTransaction on %s", (dialect) => {
  const memoryStore = useTestStores(dialect);

  it("runs concurrent nested transactions one at a time inside the outer one, which commits them together", async () => {
    const store = await memoryStore();
    await store.sessions.create({ id: "s1", mode: "linear", now });
    await store.transaction(async (repositories) => {
      const joined = joinTransaction(repositories);
      // Each append reads the last position then inserts: interleaved, they would collide.
      await Promise.all(
        ["a", "b", "c", "d"].map((id) =>
          joined.transaction(async (inner) => {
            await inner.thoughts.append({ id, session_id: "s1", mode: "linear", content: id, created_at: now });
            await inner.thoughts.append({
              id: `${id}2`,
              session_id: "s1",
              mode: "linear",
              content: `${id}2`,
              created_at: now,
            });
          }),
        ),
      );
    });
    const thoughts = await store.thoughts.listBySession("s1");
    expect(thoughts.map((thought) => thought.id)).toEqual(["a", "a2", "b", "b2", "c", "c2", "d", "d2"]);
  });

  it("rolls back only a failing nested transaction, and everything when the outer one fails", async () => {
    const store = await memoryStore();
    await store.sessions.create({ id: "s1", mode: "linear", now });
    await store.transaction(async (repositories) => {
      const joined = joinTransaction(repositories);
      await joined.transaction((inner) =>
        inner.thoughts.append({ id: "kept", session_id: "s1", mode: "linear", content: "kept", created_at: now }),
      );
      await expect(
        joined.transaction(async (inner) => {
          await inner.thoughts.append({
            id: "undone",
            session_id: "s1",
            mode: "linear",
            content: "undone",
            created_at: now,
          });
          throw new Error("step failed");
        }),
      ).rejects.toThrow("step failed");
    });
    expect((await store.thoughts.listBySession("s1")).map((thought) => thought.id)).toEqual(["kept"]);

    await expect(
      store.transaction(async (repositories) => {
        const joined = joinTransaction(repositories);
        await joined.transaction((inner) =>
          inner.thoughts.append({ id: "lost", session_id: "s1", mode: "linear", content: "lost", created_at: now }),
        );
        throw new Error("suspended");
      }),
    ).rejects.toThrow("suspended");
    expect((await store.thoughts.listBySession("s1")).map((thought) => thought.id)).toEqual(["kept"]);
  });
});
