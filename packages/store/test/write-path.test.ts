import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { createCallScope, openStore, type Store } from "../src/index.ts";
import { testDialects, useTestStores } from "../src/testing/index.ts";

const now = "2026-11-27T10:00:00.000Z";
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A call's writes as a tool records them: a session, then a thought in it (the thought's id may collide, to fail). */
async function writeCall(store: Store, session: string, thoughtId: string) {
  const scope = createCallScope(store);
  try {
    await scope.store.transaction(async (repositories) => {
      await repositories.sessions.create({ id: session, mode: "decision", now });
      await repositories.thoughts.append({
        id: thoughtId,
        session_id: session,
        mode: "decision",
        content: `in ${session}`,
        created_at: now,
      });
    });
    await scope.commit();
  } catch (error) {
    await scope.rollback();
    throw error;
  }
}

async function sessionIds(store: Store): Promise<string[]> {
  const rows = await store.db.selectFrom("sessions").select("id").orderBy("id").execute();
  return rows.map((row) => row.id);
}

describe.each(testDialects)("the write path on %s: nothing acknowledged that is not committed", (dialect) => {
  const open = useTestStores(dialect);

  it("a statement failing mid-call leaves nothing of the call and the caller gets the error; the store stays usable", async () => {
    const store = await open();
    await writeCall(store, "ses_first", "th_same");
    // The session insert succeeds, then the thought's id collides: the whole call must go.
    await expect(writeCall(store, "ses_second", "th_same")).rejects.toThrow();
    expect(await sessionIds(store)).toEqual(["ses_first"]);
    expect((await store.thoughts.listBySession("ses_first")).map((thought) => thought.id)).toEqual(["th_same"]);
    await writeCall(store, "ses_third", "th_other");
    expect(await sessionIds(store)).toEqual(["ses_first", "ses_third"]);
    // Positions given back by the failed call are used again: the session's thoughts number from 0 without a gap.
    const positions = await store.db
      .selectFrom("thoughts")
      .select(["session_id", "position"])
      .orderBy("session_id")
      .execute();
    expect(positions).toEqual([
      { session_id: "ses_first", position: 0 },
      { session_id: "ses_third", position: 0 },
    ]);
  });

  it("text with U+0000 written on the direct path is stored as U+FFFD, as on every path", async () => {
    const store = await open();
    const scope = createCallScope(store);
    await scope.store.transaction(async (repositories) => {
      await repositories.sessions.create({ id: "ses_nul", mode: "a\u0000b", now });
      await repositories.thoughts.append({
        id: "th_nul",
        session_id: "ses_nul",
        mode: "m",
        content: "x\u0000y",
        metadata: { note: "p\u0000q" },
        created_at: now,
      });
    });
    await scope.commit();
    expect((await store.sessions.get("ses_nul")).mode).toBe("a\uFFFDb");
    const [thought] = await store.thoughts.listBySession("ses_nul");
    expect(thought?.content).toBe("x\uFFFDy");
    expect(thought?.metadata).toEqual({ note: "p\u0000q" });
  });

  it("appends return what a read returns (metadata included) and number a session's thoughts in order across calls", async () => {
    const store = await open();
    const scope = createCallScope(store);
    const appended = await scope.store.transaction(async (repositories) => {
      await repositories.sessions.create({ id: "ses_order", mode: "m", now });
      const first = await repositories.thoughts.append({
        id: "th_1",
        session_id: "ses_order",
        mode: "m",
        content: "one",
        metadata: { n: 1, nested: { list: [1, "two"] } },
        created_at: now,
      });
      const second = await repositories.thoughts.append({
        id: "th_2",
        session_id: "ses_order",
        mode: "m",
        content: "two",
        confidence: 0.5,
        created_at: now,
      });
      return [first, second];
    });
    await scope.commit();
    expect(await store.thoughts.listBySession("ses_order")).toEqual(appended);
    await writeThought(store, "ses_order", "th_3");
    expect((await store.thoughts.listBySession("ses_order")).map((thought) => thought.id)).toEqual([
      "th_1",
      "th_2",
      "th_3",
    ]);
  });

  it("a call's transaction holds exactly the works that succeeded, landing only on commit (any sequence of works)", async () => {
    const store = await open();
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(fc.boolean(), { minLength: 1, maxLength: 5 }), fc.boolean(), async (works, commit) => {
        run += 1;
        const scope = createCallScope(store);
        const expected: string[] = [];
        for (const [index, succeeds] of works.entries()) {
          const id = `ses_p${run}_${index}`;
          const result = scope.store.transaction(async (repositories) => {
            await repositories.sessions.create({ id, mode: "m", now });
            if (!succeeds) throw new Error("work failed");
          });
          if (succeeds) {
            await result;
            expected.push(id);
          } else await expect(result).rejects.toThrow("work failed");
        }
        if (commit) await scope.commit();
        else await scope.rollback();
        expect(scope.hasOpenTransaction()).toBe(false);
        const landed = (await sessionIds(store)).filter((id) => id.startsWith(`ses_p${run}_`));
        expect(landed).toEqual(commit ? expected.sort() : []);
      }),
      { numRuns: dialect === "postgres" ? 15 : 40 },
    );
  });
});

async function writeThought(store: Store, session: string, id: string) {
  const scope = createCallScope(store);
  await scope.store.transaction((repositories) =>
    repositories.thoughts
      .append({ id, session_id: session, mode: "m", content: id, created_at: now })
      .then(() => undefined),
  );
  await scope.commit();
}

describe("a process killed mid-call (SQLite file, group commit)", () => {
  it("leaves nothing of the call it had not committed", async () => {
    const directory = mkdtempSync(join(tmpdir(), "deliberate-crash-"));
    cleanups.push(() => rmSync(directory, { recursive: true, force: true }));
    const path = join(directory, "store.db");
    const fixture = fileURLToPath(new URL("./fixtures/crash-mid-call.ts", import.meta.url));
    const child = spawnSync(process.execPath, ["--import", "tsx", fixture, path], {
      encoding: "utf8",
      timeout: 60_000,
      cwd: fileURLToPath(new URL("..", import.meta.url)),
    });
    expect(child.stdout).toBe("written\n");
    expect(child.signal).toBe("SIGKILL");
    const store = await openStore({ path });
    cleanups.push(() => store.close());
    expect(await store.sessions.find("ses_crashed")).toBeUndefined();
    expect(await store.thoughts.find("th_crashed")).toBeUndefined();
  }, 90_000);
});
