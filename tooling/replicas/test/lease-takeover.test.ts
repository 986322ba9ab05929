import { createFakeModelServer, type FakeModelServer } from "@deliberate/providers/testing";
import type { TestPostgres } from "@deliberate/store/testing/postgres";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CallbackReceiver, type Replica, startCallbackReceiver, startReplica, waitFor } from "../src/index.ts";
import { runPostgres } from "./support/postgres.ts";

// A replica dies (SIGKILL) while it holds jobs; another replica takes them over
// once their leases lapse, runs them, and calls back once per job.

let postgres: TestPostgres;
let stalled: FakeModelServer;
let callbacks: CallbackReceiver;
const processes: Replica[] = [];

beforeAll(async () => {
  // The first replica's model never answers in time: its jobs stay in its hands until it dies.
  [postgres, stalled, callbacks] = await Promise.all([
    runPostgres(),
    createFakeModelServer({ respond: { delayMs: 120_000 } }),
    startCallbackReceiver(),
  ]);
});

afterAll(async () => {
  await Promise.all(processes.map((replica) => replica.kill()));
  await Promise.all([callbacks?.close(), stalled?.close()]);
});

async function jobRows(
  url: string,
): Promise<Array<{ id: string; status: string; owner: string | null; attempts: number; callback_status: string }>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query("select id, status, owner, attempts, callback_status from reasoning_queue order by id"))
      .rows;
  } finally {
    await client.end();
  }
}

describe("lease takeover on Postgres", () => {
  it("runs a killed replica's jobs on another replica after their leases lapse, each once", async () => {
    const databaseUrl = await postgres.createDatabase("lease");
    const env = {
      DATABASE_URL: databaseUrl,
      LOG_LEVEL: "warn",
      REASONING_CALLBACK_ALLOWLIST: "127.0.0.1",
      REASONING_QUEUE_LEASE_MS: "1500",
      REASONING_QUEUE_POLL_MS: "25",
    };
    const doomed = await startReplica({
      kind: "api",
      name: "doomed",
      env: { ...env, OPENAI_BASE_URL: stalled.openaiBaseURL, OPENAI_API_KEY: "test-key", REASONING_QUEUE_WORKERS: "3" },
    });
    processes.push(doomed);
    const jobIds: string[] = [];
    for (let index = 0; index < 3; index += 1) {
      const response = await fetch(`${doomed.url}/agent_intent_async`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          goal_text: `search project for TODOs ${index}`,
          correlation_id: `lease-${index}`,
          callback_url: callbacks.url,
        }),
      });
      expect(response.status).toBe(202);
      jobIds.push(((await response.json()) as { job_id: string }).job_id);
    }
    await waitFor(
      async () => (await jobRows(databaseUrl)).filter((job) => job.status === "processing").length === 3,
      20_000,
      "the doomed replica to claim all three jobs",
    );
    await doomed.kill();
    const held = await jobRows(databaseUrl);
    expect(held.every((job) => job.status === "processing" && job.owner?.includes(`:${doomed.child.pid}:`))).toBe(true);

    // A healthy replica (heuristic decisions) joins; it must wait out the leases, then take the jobs over.
    const rescuer = await startReplica({ kind: "api", name: "rescuer", env });
    processes.push(rescuer);
    await waitFor(() => jobIds.every((id) => callbacks.byJob().has(id)), 30_000, "callbacks for the three jobs");
    await waitFor(
      async () => (await jobRows(databaseUrl)).every((job) => job.callback_status === "delivered"),
      10_000,
      "deliveries to be recorded",
    );
    const after = await jobRows(databaseUrl);
    expect(after.map((job) => [job.status, job.attempts, job.callback_status])).toEqual(
      jobIds.map(() => ["done", 2, "delivered"]),
    );
    expect(after.every((job) => !job.owner?.includes(`:${doomed.child.pid}:`))).toBe(true);
    for (const id of jobIds)
      expect(
        callbacks
          .byJob()
          .get(id)
          ?.map((delivery) => JSON.parse(delivery.body).status),
      ).toEqual(["ok"]);
  });
});
