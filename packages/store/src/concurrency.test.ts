import { DeliberateError } from "@deliberate/base";
import { describe, expect, it } from "vitest";
import { createLeaderLock, openStore, readLease, reservePositions, type Store } from "./index.ts";
import { freshTestDatabase, testDialects, useTestStores } from "./testing/index.ts";

const now = "2026-11-22T10:00:00.000Z";

describe.each(testDialects)("writers at once on %s", (dialect) => {
  const open = useTestStores(dialect);

  /**
   * Stores sharing one database, as replicas would: separate pools on Postgres
   * (the caller closes them); on SQLite one connection (its driver waits for
   * locks synchronously, so SQLite replicas are processes, not pools in one).
   */
  async function replicas(count: number): Promise<Store[]> {
    if (dialect === "sqlite") {
      const only = await open();
      return Array.from({ length: count }, () => only);
    }
    const place = await freshTestDatabase("postgres");
    return Promise.all(Array.from({ length: count }, () => openStore({ ...place, poolSize: 4 })));
  }

  it("gives concurrent appends to one session distinct, gapless positions (no max+1 race)", async () => {
    const stores = await replicas(3);
    try {
      const [first] = stores as [Store];
      await first.sessions.create({ id: "s1", mode: "linear", now });
      const appends = Array.from({ length: 60 }, (_, index) => {
        const store = stores[index % stores.length] as Store;
        // Half in their own transactions (with a read before the write), half on their own.
        return index % 2 === 0
          ? store.transaction(async (repositories) => {
              await repositories.thoughts.count("s1");
              return repositories.thoughts.append({
                id: `t${index}`,
                session_id: "s1",
                mode: "linear",
                content: `c${index}`,
                created_at: now,
              });
            })
          : store.thoughts.append({
              id: `t${index}`,
              session_id: "s1",
              mode: "linear",
              content: `c${index}`,
              created_at: now,
            });
      });
      await Promise.all(appends);
      const thoughts = await first.thoughts.listBySession("s1");
      expect(thoughts).toHaveLength(60);
      const positions = await first.db
        .selectFrom("thoughts")
        .select("position")
        .where("session_id", "=", "s1")
        .orderBy("position")
        .execute();
      expect(positions.map((row) => row.position)).toEqual(Array.from({ length: 60 }, (_, index) => index));
    } finally {
      if (dialect === "postgres") await Promise.all(stores.map((store) => store.close()));
    }
  });

  it("starts a sequence after positions written before it existed, and gives rolled-back positions back", async () => {
    const store = await open();
    await store.sessions.create({ id: "s1", mode: "linear", now });
    await store.db
      .insertInto("thoughts")
      .values({
        id: "old",
        session_id: "s1",
        position: 7,
        branch_id: null,
        parent_id: null,
        mode: "linear",
        content: "x",
        confidence: null,
        status: "active",
        metadata: "{}",
        created_at: now,
      })
      .execute();
    expect(
      (await store.thoughts.append({ id: "new", session_id: "s1", mode: "linear", content: "y", created_at: now })).id,
    ).toBe("new");
    const sequence = {
      scope: "thoughts",
      key: "s1",
      table: "thoughts",
      keyColumn: "session_id",
      positionColumn: "position",
    };
    await expect(
      store.transaction(async (repositories) => {
        await reservePositions(repositories.db, sequence, 5);
        throw new Error("undo");
      }),
    ).rejects.toThrow("undo");
    expect(await reservePositions(store.db, sequence, 2)).toBe(9);
    await expect(reservePositions(store.db, sequence, 0)).rejects.toThrow(/count/);
  });

  it("lets one submission at a time claim a suspended call", async () => {
    const stores = await replicas(3);
    try {
      const [first] = stores as [Store];
      await first.suspendedCalls.save({
        id: "r1",
        tool: "t",
        arguments: { a: 1 },
        answers: {},
        pending: [],
        rounds: 1,
        created_at: now,
        updated_at: now,
        expires_at: "2026-11-22T11:00:00.000Z",
      });
      const claims = await Promise.all(
        Array.from({ length: 12 }, (_, index) =>
          (stores[index % stores.length] as Store).suspendedCalls.claim({
            id: "r1",
            now,
            until: "2026-11-22T10:01:00.000Z",
          }),
        ),
      );
      expect(claims.filter(Boolean)).toHaveLength(1);
      // A lapsed claim can be taken again.
      expect(
        await first.suspendedCalls.claim({
          id: "r1",
          now: "2026-11-22T10:02:00.000Z",
          until: "2026-11-22T10:03:00.000Z",
        }),
      ).toBe(true);
      const missing = await first.suspendedCalls.get("nope", now).catch((error: unknown) => error);
      expect(DeliberateError.isInstance(missing) && missing.code).toBe("NOT_FOUND");
    } finally {
      if (dialect === "postgres") await Promise.all(stores.map((store) => store.close()));
    }
  });

  it("elects one leader among contenders, keeps it while renewed, and hands over when its lease lapses or it resigns", async () => {
    const stores = await replicas(3);
    try {
      let time = Date.parse(now);
      const locks = stores.map((store, index) =>
        createLeaderLock(store.db, {
          name: "self-improvement",
          holder: `replica-${index}`,
          ttlMs: 10_000,
          now: () => time,
        }),
      );
      const first = await Promise.all(locks.map((lock) => lock.acquire()));
      expect(first.filter(Boolean)).toHaveLength(1);
      const leader = locks[first.indexOf(true)]!;
      const others = locks.filter((lock) => lock !== leader);
      time += 5_000;
      expect(await leader.acquire()).toBe(true); // renewal
      expect(await others[0]!.acquire()).toBe(false);
      // Renewal extends the lease but keeps when leadership began.
      expect(await leader.current()).toEqual({
        holder: leader.holder,
        acquired_at: now,
        expires_at: new Date(time + 10_000).toISOString(),
      });
      time += 12_000; // the leader stopped renewing: its lease lapsed
      expect(await leader.current()).toBeUndefined();
      const second = await Promise.all(others.map((lock) => lock.acquire()));
      expect(second.filter(Boolean)).toHaveLength(1);
      const next = others[second.indexOf(true)]!;
      expect(await leader.acquire()).toBe(false);
      await next.release();
      expect(await leader.acquire()).toBe(true);
      // Another name is another election.
      expect(
        await createLeaderLock(stores[0]!.db, { name: "other", holder: "x", ttlMs: 1000, now: () => time }).acquire(),
      ).toBe(true);
      expect(() => createLeaderLock(stores[0]!.db, { name: "bad", holder: "x", ttlMs: 0 })).toThrow(/ttlMs/);
    } finally {
      if (dialect === "postgres") await Promise.all(stores.map((store) => store.close()));
    }
  });

  it("claims say whose lease stands: the winner's to every contender, a lapsed lease stays readable until taken", async () => {
    const stores = await replicas(3);
    try {
      let time = Date.parse(now);
      const locks = stores.map((store, index) =>
        createLeaderLock(store.db, { name: "loop", holder: `replica-${index}`, ttlMs: 10_000, now: () => time }),
      );
      const claims = await Promise.all(locks.map((lock) => lock.claim()));
      const winner = claims.find((claim) => claim.held)!;
      expect(claims.filter((claim) => claim.held)).toHaveLength(1);
      // Every loser names the one winner and its expiry.
      for (const [index, claim] of claims.entries())
        expect(claim).toEqual({
          held: locks[index]!.holder === winner.holder,
          holder: winner.holder,
          acquired_at: now,
          expires_at: "2026-11-22T10:00:10.000Z",
        });
      time += 11_000; // lapsed: nobody leads, but the row still says who led
      expect(await locks[0]!.current()).toBeUndefined();
      expect(await readLease(stores[0]!.db, "loop")).toEqual({
        holder: winner.holder,
        acquired_at: now,
        expires_at: "2026-11-22T10:00:10.000Z",
      });
      const loser = locks.find((lock) => lock.holder !== winner.holder)!;
      expect(await loser.claim()).toEqual({
        held: true,
        holder: loser.holder,
        acquired_at: "2026-11-22T10:00:11.000Z",
        expires_at: "2026-11-22T10:00:21.000Z",
      });
      await loser.release();
      expect(await readLease(stores[1]!.db, "loop")).toBeUndefined();
      // In a transaction the lease changes with it: rolled back, nothing was taken.
      const rolledBack = stores[0]!.transaction(async ({ db }) => {
        expect(
          await createLeaderLock(db, {
            name: "loop",
            holder: "in-transaction",
            ttlMs: 1_000,
            now: () => time,
          }).acquire(),
        ).toBe(true);
        throw new Error("undo");
      });
      await expect(rolledBack).rejects.toThrow("undo");
      expect(await readLease(stores[0]!.db, "loop")).toBeUndefined();
    } finally {
      if (dialect === "postgres") await Promise.all(stores.map((store) => store.close()));
    }
  });
});
