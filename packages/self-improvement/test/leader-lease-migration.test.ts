import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { testStorePlace } from "@deliberate/engine/testing";
import { openStore, readLease, type Store } from "@deliberate/store";
import { sql } from "kysely";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { selfImprovementTables } from "../src/store/migrations/2026-11-24T1000-self-improvement-tables.ts";
import { createSyntheticHarness, type SyntheticHarness } from "./support/synthetic.ts";

// A database from before the loop used the store's leader lock: its lease row in `self_improvement_leases`, held
// by a replica of the old version. The migration carries it over, so the lead does not change hands early.
// On SQLite, and on Postgres with DELIBERATE_TEST_ENGINE_DIALECT=postgres (testStorePlace).

const directory = mkdtempSync(join(tmpdir(), "deliberate-lease-migration-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
const opened: Array<Store | SyntheticHarness> = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((open) => open.close().catch(() => undefined)));
});

const leaseName = "self-improvement";
const start = "2026-11-24T10:00:00.000Z";

/** A database migrated as the version before this one left it, with `leases` in its own lease table. */
async function databaseOfTheOldVersion(
  file: string,
  leases: { old: Array<[string, string, string]>; shared?: Array<[string, string, string]> },
) {
  const place = await testStorePlace(join(directory, file));
  const old = await openStore({
    ...place,
    modules: [
      { name: "self-improvement", migrations: { "2026-11-24T1000-self-improvement-tables": selfImprovementTables } },
    ],
  });
  for (const [name, holder, expiresAt] of leases.old) {
    await sql`insert into self_improvement_leases (name, holder, acquired_at, expires_at) values (${name}, ${holder}, ${start}, ${expiresAt})`.execute(
      old.db,
    );
  }
  for (const [name, holder, expiresAt] of leases.shared ?? []) {
    await sql`insert into deliberate_leases (name, holder, acquired_at, expires_at) values (${name}, ${holder}, ${start}, ${expiresAt})`.execute(
      old.db,
    );
  }
  await old.close();
  return join(directory, file);
}

async function tableNames(store: Store): Promise<string[]> {
  const tables = await store.db.introspection.getTables();
  return tables.map((table) => table.name);
}

describe("the leader lease moving to the store's leader lock", () => {
  it("carries a held lease over: the old leader keeps the lead until it lapses, then another replica takes it", async () => {
    const path = await databaseOfTheOldVersion("held.db", {
      old: [[leaseName, "replica-old", "2026-11-24T10:15:00.000Z"]],
    });
    const upgraded = await createSyntheticHarness({ path, holder: "replica-new" });
    opened.push(upgraded);
    expect(await tableNames(upgraded.store)).not.toContain("self_improvement_leases");
    expect(await readLease(upgraded.store.db, leaseName)).toEqual({
      holder: "replica-old",
      acquired_at: start,
      expires_at: "2026-11-24T10:15:00.000Z",
    });

    const follower = await upgraded.module.runCycle();
    expect(follower).toMatchObject({
      outcome: "not_leader",
      cycle_id: null,
      leader: { holder: "replica-old", expires_at: "2026-11-24T10:15:00.000Z" },
    });
    expect(follower.reason).toBe("replica-old leads until 2026-11-24T10:15:00.000Z");
    expect(await upgraded.module.control(upgraded.store).status()).toMatchObject({
      leader: { holder: "replica-old", live: true },
    });

    upgraded.clock.advance(15 * 60_000); // the old leader's lease lapses
    const taken = await upgraded.module.runCycle();
    expect(taken.outcome).not.toBe("not_leader");
    expect(taken.leader.holder).toBe("replica-new");
    expect(await readLease(upgraded.store.db, leaseName)).toMatchObject({
      holder: "replica-new",
      acquired_at: "2026-11-24T10:15:00.000Z",
    });
  });

  it("keeps the later of two leases of one name, and every other name's lease", async () => {
    const path = await databaseOfTheOldVersion("both.db", {
      old: [
        [leaseName, "replica-old", "2026-11-24T10:15:00.000Z"],
        ["elsewhere", "replica-x", "2026-11-24T10:05:00.000Z"],
      ],
      shared: [
        [leaseName, "lock-user", "2026-11-24T10:10:00.000Z"],
        ["elsewhere", "lock-user", "2026-11-24T10:20:00.000Z"],
      ],
    });
    const upgraded = await createSyntheticHarness({ path, holder: "replica-new" });
    opened.push(upgraded);
    const store = upgraded.store;
    expect(await readLease(store.db, leaseName)).toMatchObject({
      holder: "replica-old",
      expires_at: "2026-11-24T10:15:00.000Z",
    });
    expect(await readLease(store.db, "elsewhere")).toMatchObject({
      holder: "lock-user",
      expires_at: "2026-11-24T10:20:00.000Z",
    });
  });

  it("migrates a database whose lease was released (no row) and one where the loop never ran", async () => {
    const path = await databaseOfTheOldVersion("released.db", { old: [] });
    const upgraded = await createSyntheticHarness({ path, holder: "replica-new" });
    opened.push(upgraded);
    expect(await readLease(upgraded.store.db, leaseName)).toBeUndefined();
    expect((await upgraded.module.runCycle()).leader.holder).toBe("replica-new");
    // A graceful stop releases the store's lease.
    await upgraded.runner.stop();
    expect(await readLease(upgraded.store.db, leaseName)).toBeUndefined();
  });
});
