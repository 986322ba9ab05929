import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createCallScope } from "./call-scope.ts";
import { openStore, type Store } from "./store.ts";
import { freshTestDatabase, testDialects } from "./testing/index.ts";

const now = "2026-11-22T10:00:00.000Z";
const opened: Store[] = [];
const folders: string[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close()));
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** Two stores on one database, as two replicas: on SQLite two connections to one file, on Postgres two pools. */
async function twoReplicas(dialect: (typeof testDialects)[number]): Promise<[Store, Store]> {
  let where: { path: string } | { url: string };
  if (dialect === "sqlite") {
    const folder = mkdtempSync(join(tmpdir(), "deliberate-snapshot-"));
    folders.push(folder);
    where = { path: join(folder, "store.db") };
  } else {
    where = await freshTestDatabase("postgres");
  }
  const first = await openStore({ ...where, poolSize: 2 });
  opened.push(first);
  const second = await openStore({ ...where, poolSize: 2 });
  opened.push(second);
  return [first, second];
}

describe.each(testDialects)("snapshot on %s", (dialect) => {
  it("reads one committed state: a commit by another replica between two reads is not seen by the second", async () => {
    const [reader, writer] = await twoReplicas(dialect);
    await writer.sessions.create({ id: "s1", mode: "linear", now });
    await writer.thoughts.append({ id: "t1", session_id: "s1", mode: "linear", content: "one", created_at: now });

    const seen = await reader.snapshot(async (repositories) => {
      const before = await repositories.thoughts.count("s1");
      // Another replica commits in between: deterministic, not a race.
      await writer.thoughts.append({ id: "t2", session_id: "s1", mode: "linear", content: "two", created_at: now });
      const after = await repositories.thoughts.count("s1");
      const session = await repositories.sessions.find("s1");
      return { before, after, session: session?.id };
    });
    expect(seen).toEqual({ before: 1, after: 1, session: "s1" });
    // Outside the snapshot, the commit is there.
    expect(await reader.thoughts.count("s1")).toBe(2);
  });

  it("reads without a snapshot see the commit in between (what the snapshot prevents)", async () => {
    const [reader, writer] = await twoReplicas(dialect);
    await writer.sessions.create({ id: "s1", mode: "linear", now });
    const before = await reader.thoughts.count("s1");
    await writer.thoughts.append({ id: "t1", session_id: "s1", mode: "linear", content: "one", created_at: now });
    expect([before, await reader.thoughts.count("s1")]).toEqual([0, 1]);
  });

  it("inside a call's open transaction, reads that transaction (its own writes included)", async () => {
    const [store] = await twoReplicas(dialect);
    const scope = createCallScope(store);
    await scope.store.transaction(async (repositories) => {
      await repositories.sessions.create({ id: "s1", mode: "linear", now });
    });
    expect(await scope.store.snapshot(async (repositories) => (await repositories.sessions.find("s1"))?.id)).toBe("s1");
    await scope.rollback();
    expect(await store.snapshot(async (repositories) => repositories.sessions.find("s1"))).toBeUndefined();
  });
});
