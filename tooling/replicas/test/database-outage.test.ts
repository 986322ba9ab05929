import { createFakeModelServer, type FakeModelServer } from "@deliberate/providers/testing";
import { type RestartableTestPostgres, startEmbeddedPostgres } from "@deliberate/store/testing/postgres";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type CallbackReceiver,
  createJsonPoster,
  type Replica,
  startCallbackReceiver,
  startReplica,
  waitFor,
} from "../src/index.ts";

// Postgres goes away for 5 s under load: two deliberate-api replicas (async intents, REST writes) and one
// deliberate-mcp --http replica (writes over MCP) keep running, refuse calls retryably meanwhile (503 +
// Retry-After over REST, a retryable STORAGE result over MCP), serve again within 10 s of the database's
// return by themselves, and every job they accepted finishes and is called back.
//
// The server is stopped the way an operator's fast shutdown does (SIGINT: 57P01 on every open connection),
// on a Postgres of this file's own (the run's shared one must not go away).

const outageMs = 5000;
const recoveryDeadlineMs = 10_000;
// Short leases, so those held when the database went away have lapsed when it returns and are taken back.
const leaseMs = 3000;

let postgres: RestartableTestPostgres;
let model: FakeModelServer;
let callbacks: CallbackReceiver;
const processes: Replica[] = [];
const clients: Client[] = [];
const poster = createJsonPoster({ maxSockets: 8 });

beforeAll(async () => {
  [postgres, model, callbacks] = await Promise.all([
    startEmbeddedPostgres({ maxConnections: 100 }),
    createFakeModelServer({
      respond: (request) => ({
        object: { content: `Continuation ${request.index}.`, confidence: 0.8, next_step: "Go on." },
      }),
    }),
    startCallbackReceiver(),
  ]);
});

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
  await Promise.all(processes.map((replica) => replica.kill()));
  poster.close();
  await Promise.all([callbacks?.close(), model?.close()]);
  await postgres?.stop();
});

async function query<T extends pg.QueryResultRow>(url: string, text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text)).rows;
  } finally {
    await client.end();
  }
}

/** When a call was made, relative to the outage: only calls sent while the server was down must be refused. */
type Phase = "before" | "down" | "after";
interface Outcome {
  surface: "intent" | "rest" | "mcp";
  phase: Phase;
  /** `ok`, `refused-retryably`, or what else came back (a failure of the test). */
  kind: string;
}

function baseOf(replica: Replica): string {
  return replica.kind === "mcp" ? replica.url.slice(0, -"/mcp".length) : replica.url;
}

async function ready(replica: Replica): Promise<boolean> {
  try {
    const response = await fetch(`${baseOf(replica)}/readyz`, { signal: AbortSignal.timeout(3000) });
    await response.arrayBuffer();
    return response.status === 200;
  } catch {
    return false;
  }
}

describe("the database goes away under load", () => {
  it("keeps every replica up, refuses retryably, recovers within 10 s, and finishes every accepted job", async () => {
    const databaseUrl = await postgres.createDatabase("outage");
    const common = { DATABASE_URL: databaseUrl, DATABASE_POOL_SIZE: "4", LOG_LEVEL: "warn" };
    const apiEnv = {
      ...common,
      REASONING_CALLBACK_ALLOWLIST: "127.0.0.1",
      REASONING_API_RATE_LIMIT: "1000000",
      REASONING_QUEUE_LEASE_MS: String(leaseMs),
      REASONING_QUEUE_POLL_MS: "100",
      REASONING_QUEUE_WORKERS: "4",
      REASONING_CALLBACK_BACKOFF_MS: "50",
    };
    const mcpEnv = { ...common, OPENAI_BASE_URL: model.openaiBaseURL, OPENAI_API_KEY: "test-key" };
    const started = await Promise.all([
      startReplica({ kind: "api", env: apiEnv, name: "api-1" }),
      startReplica({ kind: "api", env: apiEnv, name: "api-2" }),
      startReplica({ kind: "mcp", env: mcpEnv, name: "mcp-1" }),
    ]);
    processes.push(...started);
    const [api1, api2, mcp] = started as [Replica, Replica, Replica];
    const apis = [api1, api2];
    const client = new Client({ name: "outage-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(mcp.url)));
    clients.push(client);
    const opened = await client.callTool({ name: "reasoning_linear", arguments: { content: "Open the session." } });
    expect(opened.isError, JSON.stringify(opened.content)).toBeFalsy();
    const sessionId = (opened.structuredContent as { session_id: string }).session_id;

    let phase: Phase = "before";
    let loading = true;
    const outcomes: Outcome[] = [];
    const accepted: string[] = [];
    const checkpoints: string[] = [];
    const thoughts: string[] = [];
    const unexpected: string[] = [];
    const record = (surface: Outcome["surface"], sentIn: Phase, kind: string) => {
      outcomes.push({ surface, phase: sentIn, kind });
      if (kind !== "ok" && kind !== "refused-retryably" && unexpected.length < 10)
        unexpected.push(`${surface} (${sentIn}): ${kind}`);
    };
    // A REST refusal is retryable when it is 503 with Retry-After and `retryable: true` in the body.
    const restKind = (
      answer: { status: number; body: unknown; headers: Record<string, unknown> },
      okStatus: number,
    ) => {
      if (answer.status === okStatus) return "ok";
      const error = (answer.body as { error?: { code?: string; retryable?: boolean } } | undefined)?.error;
      if (
        answer.status === 503 &&
        error?.retryable === true &&
        error.code === "STORAGE" &&
        Number(answer.headers["retry-after"]) > 0
      )
        return "refused-retryably";
      return `HTTP ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`;
    };
    const pause = () => new Promise((resolve) => setTimeout(resolve, 20));

    // Steady load, a few calls at a time: async intents and checkpoint creates over REST, appends over MCP.
    const intentLoop = async (worker: number) => {
      for (let index = 0; loading; index += 1) {
        const sentIn = phase;
        const target = apis[(worker + index) % apis.length] as Replica;
        try {
          const answer = await poster.post(`${target.url}/agent_intent_async`, {
            goal_text: `search project for TODOs ${worker}-${index}`,
            correlation_id: `o-${worker}-${index}`,
            callback_url: callbacks.url,
          });
          const kind = restKind(answer, 202);
          if (kind === "ok") accepted.push((answer.body as { job_id: string }).job_id);
          record("intent", sentIn, kind);
        } catch (error) {
          record("intent", sentIn, `connection: ${(error as { code?: string }).code ?? String(error)}`);
        }
        await pause();
      }
    };
    const restLoop = async () => {
      for (let index = 0; loading; index += 1) {
        const sentIn = phase;
        const target = apis[index % apis.length] as Replica;
        try {
          const answer = await poster.post(`${target.url}/v1/tools/reasoning_checkpoint`, {
            operation: "create",
            session_id: sessionId,
            name: `checkpoint ${index}`,
          });
          const kind = restKind(answer, 200);
          if (kind === "ok") checkpoints.push((answer.body as { checkpoint_id: string }).checkpoint_id);
          record("rest", sentIn, kind);
        } catch (error) {
          record("rest", sentIn, `connection: ${(error as { code?: string }).code ?? String(error)}`);
        }
        await pause();
      }
    };
    const mcpLoop = async () => {
      for (let index = 0; loading; index += 1) {
        const sentIn = phase;
        try {
          const result = await client.callTool({
            name: "reasoning_linear",
            arguments: { content: `Step ${index}.`, session_id: sessionId },
          });
          if (!result.isError) {
            thoughts.push((result.structuredContent as { thought_id: string }).thought_id);
            record("mcp", sentIn, "ok");
          } else {
            const text = (result.content as Array<{ text?: string }>)[0]?.text ?? "";
            const body = JSON.parse(text) as { code?: string; retryable?: boolean; retry_after_seconds?: number };
            record(
              "mcp",
              sentIn,
              body.code === "STORAGE" && body.retryable === true && (body.retry_after_seconds ?? 0) > 0
                ? "refused-retryably"
                : `result ${text.slice(0, 300)}`,
            );
          }
        } catch (error) {
          record("mcp", sentIn, `thrown: ${String(error).slice(0, 300)}`);
        }
        await pause();
      }
    };
    const load = Promise.all([intentLoop(0), intentLoop(1), restLoop(), mcpLoop()]);

    await waitFor(
      () => accepted.length >= 20 && checkpoints.length >= 10 && thoughts.length >= 5,
      60_000,
      "load before the outage",
    );
    await postgres.halt();
    phase = "down";
    const downSince = performance.now();
    // Liveness stays 200 (the process is fine), readiness says the database is away.
    for (const replica of started) {
      const [live, readiness] = await Promise.all([
        fetch(`${baseOf(replica)}/healthz`),
        fetch(`${baseOf(replica)}/readyz`),
      ]);
      expect([replica.name, live.status, readiness.status, Number(readiness.headers.get("retry-after")) > 0]).toEqual([
        replica.name,
        200,
        503,
        true,
      ]);
      expect(await readiness.json()).toEqual({ status: "unavailable", checks: { database: "unavailable" } });
    }
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, outageMs - (performance.now() - downSince))));
    phase = "after";
    await postgres.resume();
    const back = performance.now();

    // Every replica serves again (readiness and a real call) within the deadline, by itself.
    const recovered = await Promise.all(
      started.map(async (replica) => {
        await waitFor(() => ready(replica), recoveryDeadlineMs, `${replica.name} to be ready again`);
        return Math.round(performance.now() - back);
      }),
    );
    const callsBefore = outcomes.length;
    await waitFor(
      () => outcomes.slice(callsBefore).filter((outcome) => outcome.kind === "ok").length >= 10,
      recoveryDeadlineMs,
      "calls to pass again",
    );
    const servingAgainMs = Math.round(performance.now() - back);
    loading = false;
    await load;

    // No replica exited.
    for (const replica of started)
      expect(replica.child.exitCode, `${replica.name} exited: ${replica.logs.slice(-5).join("\n")}`).toBeNull();
    expect(unexpected).toEqual([]);
    // Calls sent while the database was down were refused retryably, on every surface.
    for (const surface of ["intent", "rest", "mcp"] as const) {
      const down = outcomes.filter((outcome) => outcome.surface === surface && outcome.phase === "down");
      expect(down.length, `${surface} calls during the outage`).toBeGreaterThan(0);
      expect(down.filter((outcome) => outcome.kind !== "refused-retryably")).toEqual([]);
    }
    expect(Math.max(...recovered, servingAgainMs)).toBeLessThanOrEqual(recoveryDeadlineMs);
    for (const replica of [api1, api2])
      expect(replica.logs.some((line) => line.includes("the queue resumed"))).toBe(true);

    // Every accepted job finishes and is called back (those held when the database went away are taken back).
    await waitFor(() => accepted.every((id) => callbacks.byJob().has(id)), 60_000, "a callback for every accepted job");
    const jobs = await query<{ id: string; status: string; callback_status: string }>(
      databaseUrl,
      "select id, status, callback_status from reasoning_queue",
    );
    const byId = new Map(jobs.map((job) => [job.id, job]));
    await waitFor(
      async () =>
        (
          await query<{ n: string }>(
            databaseUrl,
            "select count(*) as n from reasoning_queue where callback_status = 'pending'",
          )
        )[0]?.n === "0",
      30_000,
      "deliveries to be recorded",
    );
    for (const id of accepted) expect([byId.get(id)?.status], `job ${id}`).toEqual(["done"]);
    for (const id of accepted) {
      const deliveries = callbacks.byJob().get(id) ?? [];
      expect(JSON.parse(deliveries[0]?.body ?? "{}")).toMatchObject({ job_id: id, status: "ok" });
      // At least once: a callback sent again (its lease lapsed while the database was away) is the same
      // result under the same idempotency key.
      expect(new Set(deliveries.map((delivery) => `${delivery.deliveryId} ${delivery.body}`)).size, `job ${id}`).toBe(
        1,
      );
    }
    // Acknowledged writes are there.
    const storedCheckpoints = new Set(
      (await query<{ id: string }>(databaseUrl, "select id from checkpoints")).map((row) => row.id),
    );
    expect(checkpoints.filter((id) => !storedCheckpoints.has(id))).toEqual([]);
    const storedThoughts = new Set(
      (await query<{ id: string }>(databaseUrl, "select id from thoughts")).map((row) => row.id),
    );
    expect(thoughts.filter((id) => !storedThoughts.has(id))).toEqual([]);

    const count = (which: Phase, kind: string) =>
      outcomes.filter((outcome) => outcome.phase === which && outcome.kind === kind).length;
    process.stdout.write(
      `database outage: ${count("down", "refused-retryably")} calls refused retryably during ${outageMs} ms down, ${count("before", "ok") + count("after", "ok")} passed around it; ` +
        `ready again after ${recovered.join(" / ")} ms, calls passing after ${servingAgainMs} ms; ${accepted.length} jobs accepted, all called back (${callbacks.deliveries.length} deliveries)\n`,
    );
  });
});
