import { testDialects, useTestStores } from "@deliberate/store/testing";
import { describe, expect, it } from "vitest";
import { agentIntentModule } from "../../agent-intent-module.ts";
import type { ApiRepositories } from "../contribution.ts";

const t0 = "2026-11-22T10:00:00.000Z";
const t1 = "2026-11-22T10:00:01.000Z";
const later = "2026-11-22T10:05:00.000Z";
const lease = "2026-11-22T10:01:00.000Z";
const messages = {
  pinnedLost: { code: "CANCELLED", message: "pinned lost" },
  attemptsExhausted: { code: "INTERNAL", message: "exhausted" },
};

describe.each(testDialects)("job repository on %s", (dialect) => {
  const memoryStore = useTestStores<ApiRepositories>(dialect, { modules: [agentIntentModule] });

  it("hands each queued job to exactly one of many concurrent claimers, oldest first", async () => {
    const store = await memoryStore();
    for (let index = 0; index < 10; index += 1) {
      await store.jobs.enqueue({
        id: `j${index}`,
        type: "agent_intent",
        payload: { n: index },
        max_attempts: 3,
        now: `2026-11-22T10:00:0${index}.000Z`,
      });
    }
    const claims = await Promise.all(
      Array.from({ length: 25 }, (_, index) =>
        store.jobs.claimNext({ owner: `w${index}`, now: later, leaseUntil: lease }),
      ),
    );
    const claimed = claims.filter((job) => job !== undefined).map((job) => job.id);
    expect(claimed.sort()).toEqual(Array.from({ length: 10 }, (_, index) => `j${index}`).sort());
    expect(new Set(claimed).size).toBe(10);
    expect((await store.jobs.countByStatus()).processing).toBe(10);
    const first = await store.jobs.get("j0");
    expect(first.attempts).toBe(1);
    expect(first.payload).toEqual({ n: 0 });
  });

  it("never lets a stale worker overwrite a canceled job", async () => {
    const store = await memoryStore();
    await store.jobs.enqueue({
      id: "j1",
      type: "agent_intent",
      correlation_id: "c1",
      payload: {},
      callback_url: "http://x/cb",
      max_attempts: 3,
      now: t0,
    });
    await store.jobs.claimNext({ owner: "w1", now: t1, leaseUntil: lease });
    expect(await store.jobs.cancel({ correlationId: "c1", now: t1 })).toEqual(["j1"]);
    expect(await store.jobs.renewLeases({ owner: "w1", now: t1, leaseUntil: lease, processing: ["j1"] })).toEqual([]);
    const finished = await store.jobs.finish({
      id: "j1",
      owner: "w1",
      now: t1,
      leaseUntil: lease,
      outcome: { status: "done", result: { ok: true } },
    });
    expect(finished).toBe(false);
    const job = await store.jobs.get("j1");
    expect(job.status).toBe("canceled");
    expect(job.result).toBeNull();
    expect(job.callback_status).toBe("none");
    expect(await store.jobs.cancel({ correlationId: "c1", now: t1 })).toEqual([]);
  });

  it("finishes a job, making its callback pending, and records delivery", async () => {
    const store = await memoryStore();
    await store.jobs.enqueue({
      id: "j1",
      type: "agent_intent",
      payload: {},
      callback_url: "http://x/cb",
      max_attempts: 3,
      now: t0,
    });
    await store.jobs.claimNext({ owner: "w1", now: t1, leaseUntil: lease });
    expect(
      await store.jobs.finish({
        id: "j1",
        owner: "w1",
        now: t1,
        leaseUntil: lease,
        outcome: { status: "done", result: { a: 1 } },
      }),
    ).toBe(true);
    let job = await store.jobs.get("j1");
    expect([job.status, job.callback_status, job.result]).toEqual(["done", "pending", { a: 1 }]);
    // Leased to w1 while it delivers: nobody else can claim the callback.
    expect(await store.jobs.claimCallback({ owner: "w2", now: t1, leaseUntil: lease })).toBeUndefined();
    await store.jobs.recordCallback({ id: "j1", owner: "w1", now: t1, status: "delivered", attempts: 1, error: null });
    job = await store.jobs.get("j1");
    expect([job.callback_status, job.callback_attempts, job.lease_expires_at]).toEqual(["delivered", 1, null]);
  });

  it("requeues a job whose worker died, fails it once attempts run out, and hands its callback to another worker", async () => {
    const store = await memoryStore();
    await store.jobs.enqueue({
      id: "j1",
      type: "agent_intent",
      payload: {},
      callback_url: "http://x/cb",
      max_attempts: 2,
      now: t0,
    });
    await store.jobs.claimNext({ owner: "dead", now: t1, leaseUntil: lease });
    expect(await store.jobs.recoverExpired({ now: t1, messages })).toEqual({ requeued: [], failed: [] });
    expect(await store.jobs.recoverExpired({ now: later, messages })).toEqual({ requeued: ["j1"], failed: [] });
    await store.jobs.claimNext({ owner: "dead-again", now: later, leaseUntil: "2026-11-22T10:06:00.000Z" });
    expect(await store.jobs.recoverExpired({ now: "2026-11-22T10:07:00.000Z", messages })).toEqual({
      requeued: [],
      failed: ["j1"],
    });
    const job = await store.jobs.get("j1");
    expect([job.status, job.error, job.callback_status]).toEqual(["failed", messages.attemptsExhausted, "pending"]);
    const claimed = await store.jobs.claimCallback({
      owner: "w3",
      now: "2026-11-22T10:07:00.000Z",
      leaseUntil: "2026-11-22T10:08:00.000Z",
    });
    expect(claimed?.id).toBe("j1");
  });

  it("keeps a pinned job to its owner and fails it when the owner's lease lapses", async () => {
    const store = await memoryStore();
    await store.jobs.enqueue({
      id: "j1",
      type: "agent_intent",
      payload: {},
      max_attempts: 3,
      pinned: { owner: "a", lease_until: lease },
      now: t0,
    });
    expect(await store.jobs.claimNext({ owner: "b", now: t1, leaseUntil: lease })).toBeUndefined();
    await store.jobs.renewLeases({ owner: "a", now: t1, leaseUntil: "2026-11-22T10:10:00.000Z", processing: [] });
    expect(await store.jobs.recoverExpired({ now: later, messages })).toEqual({ requeued: [], failed: [] });
    expect(await store.jobs.recoverExpired({ now: "2026-11-22T10:11:00.000Z", messages })).toEqual({
      requeued: [],
      failed: ["j1"],
    });
    expect((await store.jobs.get("j1")).error).toEqual(messages.pinnedLost);
  });

  it("renews only the leases of work still running here, so a stalled callback is taken over", async () => {
    const store = await memoryStore();
    await store.jobs.enqueue({
      id: "j1",
      type: "agent_intent",
      payload: {},
      max_attempts: 1,
      callback_url: "https://example.com/hook",
      now: t0,
    });
    await store.jobs.claimNext({ owner: "w1", now: t1, leaseUntil: lease });
    // Finishing leaves the callback pending and leased to w1, which starts delivering it…
    expect(
      await store.jobs.finish({
        id: "j1",
        owner: "w1",
        now: t1,
        leaseUntil: lease,
        outcome: { status: "done", result: { ok: true } },
      }),
    ).toBe(true);
    // …but the delivery died without recording anything: w1 no longer lists it, so its lease is not renewed.
    await store.jobs.renewLeases({
      owner: "w1",
      now: t1,
      leaseUntil: "2026-11-22T11:00:00.000Z",
      processing: [],
      delivering: [],
    });
    expect(
      (await store.jobs.claimCallback({ owner: "w2", now: later, leaseUntil: "2026-11-22T11:00:00.000Z" }))?.id,
    ).toBe("j1");
  });

  it("releases a job back to the queue without counting the attempt", async () => {
    const store = await memoryStore();
    await store.jobs.enqueue({ id: "j1", type: "agent_intent", payload: {}, max_attempts: 3, now: t0 });
    await store.jobs.claimNext({ owner: "w1", now: t1, leaseUntil: lease });
    expect(await store.jobs.release({ id: "j1", owner: "w1", now: t1 })).toBe(true);
    const job = await store.jobs.get("j1");
    expect([job.status, job.attempts, job.owner]).toEqual(["queued", 0, null]);
    await expect(store.jobs.get("nope")).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("records and lists telemetry events", async () => {
    const store = await memoryStore();
    await store.reasoningLogs.record({
      id: "l1",
      created_at: t0,
      level: "info",
      event: "intent.decided",
      intent_id: "i1",
      data: { tool_name: "x" },
    });
    await store.reasoningLogs.record({
      id: "l2",
      created_at: t1,
      level: "info",
      event: "http.request",
      request_id: "r1",
    });
    expect((await store.reasoningLogs.list()).map((entry) => entry.id)).toEqual(["l2", "l1"]);
    expect((await store.reasoningLogs.list({ event: "intent.decided" }))[0]?.data).toEqual({ tool_name: "x" });
    expect(await store.reasoningLogs.deleteOlderThan(t1)).toBe(1);
    await store.reasoningLogs.recordMany(
      Array.from({ length: 1200 }, (_, index) => ({
        id: `m${index}`,
        created_at: later,
        level: "info" as const,
        event: "bulk",
      })),
    );
    expect(await store.reasoningLogs.list({ event: "bulk", limit: 5000 })).toHaveLength(1200);
  });

  it("spreads a queue over replicas claiming at once: every job taken once, none left behind", async () => {
    const store = await memoryStore();
    const replicas = [store, await memoryStore({ replicaOf: store }), await memoryStore({ replicaOf: store })];
    for (let index = 0; index < 40; index += 1) {
      await store.jobs.enqueue({
        id: `j${String(index).padStart(2, "0")}`,
        type: "agent_intent",
        payload: { n: index },
        max_attempts: 3,
        now: t0,
      });
    }
    const claimed: string[] = [];
    await Promise.all(
      Array.from({ length: 12 }, async (_, worker) => {
        const replica = replicas[worker % replicas.length]!;
        for (;;) {
          const job = await replica.jobs.claimNext({ owner: `w${worker}`, now: t1, leaseUntil: lease });
          if (!job) return;
          claimed.push(job.id);
          expect(
            await replica.jobs.finish({
              id: job.id,
              owner: `w${worker}`,
              now: t1,
              leaseUntil: lease,
              outcome: { status: "done", result: { by: worker } },
            }),
          ).toBe(true);
        }
      }),
    );
    expect(claimed).toHaveLength(40);
    expect(new Set(claimed).size).toBe(40);
    expect(await store.jobs.countByStatus()).toMatchObject({ queued: 0, processing: 0, done: 40 });
    expect((await store.jobs.list({ limit: 100 })).every((job) => job.attempts === 1)).toBe(true);
  });

  it("counts one client's requests across replicas in one window and starts over in the next", async () => {
    const store = await memoryStore();
    const replicas = [store, await memoryStore({ replicaOf: store })];
    const windowMs = 60_000;
    const start = Date.parse("2026-11-22T10:00:00.000Z");
    const counts = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        replicas[index % 2]!.rateLimits.hit({ key: "10.0.0.1", windowMs, nowMs: start + index }),
      ),
    );
    expect(counts.map((count) => count.count).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 20 }, (_, index) => index + 1),
    );
    expect(new Set(counts.map((count) => count.windowStartMs))).toEqual(new Set([start]));
    expect((await store.rateLimits.hit({ key: "10.0.0.2", windowMs, nowMs: start })).count).toBe(1);
    expect((await store.rateLimits.hit({ key: "10.0.0.1", windowMs, nowMs: start + windowMs + 5 })).count).toBe(1);
    expect(await store.rateLimits.sweep(new Date(start + windowMs).toISOString())).toBe(1);
  });
});
