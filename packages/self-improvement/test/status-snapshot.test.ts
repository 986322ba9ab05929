import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { testStorePlace } from "@deliberate/engine/testing";
import { createLeaderLock, openStore, type Store, type StoreContribution } from "@deliberate/store";
import { afterEach, describe, expect, it } from "vitest";
import { createSelfImprovementModule } from "../src/module.ts";
import type { CycleRecord } from "../src/records.ts";
import { selfImprovementMigrations } from "../src/store/migrations/index.ts";
import {
  createSelfImprovementRepositories,
  type SelfImprovementRepositories,
} from "../src/store/repositories/self-improvement.repository.ts";

// The status is one consistent read, on SQLite and (DELIBERATE_TEST_ENGINE_DIALECT=postgres) on Postgres.
// Deterministic, not by timing: the reading store's lease and cycle reads pass a gate; the first of the two
// to run lets another replica commit a lease hand-over with its cycle before the second may start.

const opened: Store[] = [];
const folders: string[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close()));
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

const module = createSelfImprovementModule({ holder: "replica-a" });
const leaseName = module.config.lease.name;

function cycle(id: string, holder: string, startedAt: string): CycleRecord {
  return {
    id,
    started_at: startedAt,
    finished_at: startedAt,
    holder,
    outcome: "no_action",
    reason: "all within baseline",
    diagnosis_id: null,
    action_id: null,
    details: {},
  };
}

describe("self-improvement status", () => {
  it("is one snapshot: a lease hand-over committed between its reads never shows half done", async () => {
    const folder = mkdtempSync(join(tmpdir(), "deliberate-status-"));
    folders.push(folder);
    // Two replicas on one database: two connections to one SQLite file, or two pools on one Postgres schema.
    const place = await testStorePlace(join(folder, "loop.db"));

    let handOver: (() => Promise<void>) | undefined;
    let firstRead: Promise<void> | undefined;
    const gatedReads: string[] = [];
    async function throughGate<T>(name: string, read: () => Promise<T>): Promise<T> {
      if (handOver === undefined) return read();
      gatedReads.push(name);
      if (firstRead === undefined) {
        const commit = handOver;
        let done = () => {};
        firstRead = new Promise((resolve) => {
          done = resolve;
        });
        const result = await read();
        await commit();
        done();
        return result;
      }
      await firstRead;
      return read();
    }
    // The reading replica's repositories, however bound (the store itself or a transaction of it), pass the gate.
    const gated: StoreContribution<SelfImprovementRepositories> = {
      name: module.name,
      migrations: selfImprovementMigrations,
      repositories: (db) => {
        const bound = createSelfImprovementRepositories(db);
        const { leases, cycles } = bound.selfImprovement;
        return {
          selfImprovement: {
            ...bound.selfImprovement,
            leases: { ...leases, get: (name) => throughGate("lease", () => leases.get(name)) },
            cycles: { ...cycles, list: (limit) => throughGate("cycles", () => cycles.list(limit)) },
          },
        };
      },
    };
    const reader = await openStore<SelfImprovementRepositories>({ ...place, modules: [gated], poolSize: 4 });
    opened.push(reader as Store);
    const writer = await openStore<SelfImprovementRepositories>({ ...place, modules: [module], poolSize: 4 });
    opened.push(writer as Store);

    // Replica A leads and has finished a cycle.
    // Leases of the loop's name taken at `at` that last until long after the test.
    const lease = (db: Store["db"], holder: string, at: string) =>
      createLeaderLock(db, { name: leaseName, holder, ttlMs: 1_000 * 86_400_000, now: () => Date.parse(at) });
    expect(await lease(writer.db, "replica-a", "2026-11-24T10:00:00.000Z").acquire()).toBe(true);
    await writer.selfImprovement.cycles.insert(cycle("sic_a", "replica-a", "2026-11-24T10:00:00.000Z"));
    const control = module.control(reader);
    expect(await control.status()).toMatchObject({
      leader: { holder: "replica-a", live: true },
      last_cycle: { id: "sic_a", holder: "replica-a" },
    });

    // A hands over to B, and B finishes a cycle: one commit of the other replica.
    handOver = () =>
      writer.transaction(async ({ db, selfImprovement }) => {
        await lease(db, "replica-a", "2026-11-24T10:05:00.000Z").release();
        expect(await lease(db, "replica-b", "2026-11-24T10:05:00.000Z").acquire()).toBe(true);
        await selfImprovement.cycles.insert(cycle("sic_b", "replica-b", "2026-11-24T10:05:00.000Z"));
      });
    const during = await control.status();
    expect(gatedReads.sort()).toEqual(["cycles", "lease"]);
    // Both of before the hand-over (the snapshot began with the first read), not the lease of one moment and the cycle of the other.
    expect({ leader: during.leader?.holder, last_cycle: during.last_cycle?.holder }).toEqual({
      leader: "replica-a",
      last_cycle: "replica-a",
    });

    handOver = undefined;
    expect(await control.status()).toMatchObject({
      leader: { holder: "replica-b" },
      last_cycle: { id: "sic_b", holder: "replica-b" },
    });
  });
});
