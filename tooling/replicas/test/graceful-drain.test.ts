import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createFakeModelServer, type FakeModelServer } from "@deliberate/providers/testing";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createJsonPoster, forEachLimited, type Replica, startReplica, waitFor } from "../src/index.ts";
import { runPostgres } from "./support/postgres.ts";

// The queue under a graceful restart: 200 async intents, SIGTERM of the API
// while callbacks are in flight (the receiver holds their answers until the
// process has begun shutting down), then a new process on the same database.
// Every callback must arrive once, none twice, on SQLite and on Postgres. Before the drain the process
// aborted deliveries in flight at once (256 ms into a 5 s grace), recorded them
// as undelivered, and the next process sent them again.

const jobs = 200;

/** A loopback receiver counting callbacks per job; while `holding`, it answers none of them. */
async function startHoldingReceiver() {
  const arrivals = new Map<string, number>();
  const held: ServerResponse[] = [];
  let holding = true;
  const answer = (response: ServerResponse) =>
    response.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}');
  const server = createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      const jobId = String(request.headers["x-deliberate-job-id"] ?? "");
      arrivals.set(jobId, (arrivals.get(jobId) ?? 0) + 1);
      if (holding) held.push(response);
      else answer(response);
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`,
    arrivals,
    get total() {
      return [...arrivals.values()].reduce((sum, count) => sum + count, 0);
    },
    get held() {
      return held.length;
    },
    release() {
      holding = false;
      for (const response of held.splice(0)) answer(response);
    },
    /** Back to holding, with no arrivals counted (the next test's run). */
    reset() {
      arrivals.clear();
      holding = true;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

const directory = mkdtempSync(join(tmpdir(), "deliberate-graceful-drain-"));
const processes: Replica[] = [];
let model: FakeModelServer;
let receiver: Awaited<ReturnType<typeof startHoldingReceiver>>;

beforeAll(async () => {
  // Each decision takes 100 ms, so with two workers the queue is still full when the process is stopped.
  model = await createFakeModelServer({
    respond: {
      object: {
        reasoning: "Search first.",
        tool_name: "context.fts_search",
        tool_args: { query: "TODO" },
        final_text: "",
      },
      delayMs: 100,
    },
  });
  receiver = await startHoldingReceiver();
});

afterEach(async () => {
  await Promise.all(processes.splice(0).map((replica) => replica.stop()));
});

afterAll(async () => {
  await Promise.all(processes.map((replica) => replica.kill()));
  await Promise.all([receiver?.close(), model?.close()]);
  rmSync(directory, { recursive: true, force: true });
});

/** The database both processes use: a SQLite file, or a Postgres database of its own. */
async function database(dialect: "sqlite" | "postgres"): Promise<Record<string, string>> {
  return dialect === "sqlite"
    ? { DATABASE_PATH: join(directory, "queue.db") }
    : { DATABASE_URL: await runPostgres().createDatabase("drain") };
}

describe.each(["sqlite", "postgres"] as const)("a graceful restart of the API under load (%s)", (dialect) => {
  beforeEach(() => receiver.reset());

  it(`delivers each of ${jobs} async intents' callbacks once, none twice, across SIGTERM and a restart on the same database`, async () => {
    const env = {
      ...model.environment("openai"),
      MAX_RETRIES: "0",
      ...(await database(dialect)),
      LOG_LEVEL: "info",
      REASONING_LOG_STDOUT: "0",
      REASONING_CALLBACK_ALLOWLIST: "127.0.0.1",
      REASONING_API_RATE_LIMIT: "1000000",
      REASONING_QUEUE_WORKERS: "2",
      REASONING_QUEUE_POLL_MS: "25",
      REASONING_SHUTDOWN_GRACE_MS: "20000",
      DELIBERATE_SELF_IMPROVEMENT_MODE: "off",
    };
    const first = await startReplica({ kind: "api", name: "first", env });
    processes.push(first);
    const poster = createJsonPoster({ maxSockets: 16 });
    const accepted = await forEachLimited(
      Array.from({ length: jobs }, (_, index) => index),
      16,
      (index) =>
        poster.post(`${first.url}/agent_intent_async`, {
          goal_text: `search project for TODOs ${index}`,
          correlation_id: `drain-${index}`,
          callback_url: receiver.url,
        }),
    );
    poster.close();
    const jobIds = accepted.map((result) => {
      if (result.status !== "fulfilled" || result.value.status !== 202)
        throw new Error(`an intent was not accepted: ${JSON.stringify(result)}`);
      return (result.value.body as { job_id: string }).job_id;
    });

    // Mid-run: some callbacks are in flight (held by the receiver), most jobs still queued.
    await waitFor(() => receiver.held >= 10, 60_000, "ten callbacks in flight");
    const stopped = first.stop();
    // The receiver answers once the process says it is draining its deliveries in flight, or has exited without
    // doing so (the old shutdown aborted them, and the next process sent each again).
    const exited = () => first.child.exitCode !== null || first.child.signalCode !== null;
    await waitFor(
      () => exited() || first.logs.some((line) => line.includes('"queue draining"')),
      30_000,
      "the first process to drain or exit",
    );
    const inFlightAtStop = receiver.held;
    receiver.release();
    expect(await stopped).toBe(0);
    const arrivedBeforeRestart = receiver.total;
    expect(arrivedBeforeRestart).toBeLessThan(jobs); // the restart has work left: the SIGTERM came mid-run

    const second = await startReplica({ kind: "api", name: "second", env });
    processes.push(second);
    await waitFor(() => jobIds.every((id) => receiver.arrivals.has(id)), 240_000, `callbacks of all ${jobs} jobs`);
    // Delivered is final: once every job says so, no further callback can come.
    const views = async () =>
      Promise.all(
        jobIds.map(
          async (id) =>
            (await (await fetch(`${second.url}/v1/jobs/${id}`)).json()) as {
              status: string;
              callback: { status: string; attempts: number };
            },
        ),
      );
    await waitFor(
      async () => (await views()).every((view) => view.callback.status === "delivered"),
      60_000,
      "every delivery to be recorded",
    );
    const duplicates = [...receiver.arrivals.entries()].filter(([, count]) => count > 1);
    expect(
      duplicates,
      `callbacks sent twice (${inFlightAtStop} in flight at SIGTERM, ${arrivedBeforeRestart} arrived before the restart)`,
    ).toEqual([]);
    expect(receiver.arrivals.size).toBe(jobs);
    expect((await views()).every((view) => view.status === "done" && view.callback.attempts === 1)).toBe(true);
    const drained = first.logs.find((line) => line.includes('"queue drained"'));
    expect(drained, "the first process's drain report").toBeDefined();
  });
});
