import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { createFakeModelServer, type FakeModelServer } from "@deliberate/providers/testing";
import type { TestPostgres } from "@deliberate/store/testing/postgres";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type CallbackReceiver,
  createJsonPoster,
  forEachLimited,
  type Replica,
  startCallbackReceiver,
  startReplica,
  waitFor,
} from "../src/index.ts";
import { runPostgres } from "./support/postgres.ts";

// Two deliberate-api and two deliberate-mcp --http processes on one Postgres:
// 1,000 async intents (heuristic) and 500 writing tool calls spread over all
// four (250 reasoning_linear over MCP appending to 10 sessions from both MCP
// replicas at once, 250 reasoning_checkpoint creates over REST), one API
// replica SIGKILLed mid-run. Then: every accepted job completed once and was
// called back, every acknowledged write is in the database, and the database
// checks hold.
//
// One replica of each service runs from a deployed folder: `pnpm --filter
// <service> deploy --prod <dir>` yields a folder that runs on its own, outside
// the workspace (the deploy test shares this file's replicas rather than
// starting two processes of its own).

const intents = 1000;
const sessions = 10;
const mcpWrites = 250; // reasoning_linear over MCP (10 of them open the sessions)
const restWrites = 250; // reasoning_checkpoint create over REST, on the API replicas (one of which is killed)
const killAfter = 400; // intents submitted before one API replica is SIGKILLed
const leaseMs = 10_000; // long enough that a stalled (not killed) replica on a busy machine keeps its leases
const apiWorkers = 8;

const run = promisify(execFile);
const workspace = fileURLToPath(new URL("../../..", import.meta.url));
const directory = mkdtempSync(join(tmpdir(), "deliberate-deploy-"));
const deployed = { api: join(directory, "api"), mcp: join(directory, "mcp") };

let postgres: TestPostgres;
let model: FakeModelServer;
let callbacks: CallbackReceiver;
const processes: Replica[] = [];
const clients: Client[] = [];
// The load's REST requests (intents and checkpoint creates) go through node:http: fetch cost the test
// process several times the CPU per request.
const poster = createJsonPoster({ maxSockets: 24 });

// The README's command. The two settings make pnpm deploy from the workspace lockfile (the folder gets
// the exact versions the workspace tested, with a lockfile of its own) instead of resolving every
// dependency again (the legacy deploy the workspace config falls back to): a third of the CPU.
// The store is the one the workspace was installed from (node_modules/.modules.yaml records it): left to
// itself, pnpm picks a store by the target's filesystem and the environment, which CI may set differently.
// A failure shows pnpm's own output (its errors go to stdout).
async function deploy(service: string, target: string): Promise<void> {
  const fromLockfile = ["--config.inject-workspace-packages=true", "--config.force-legacy-deploy=false"];
  const { storeDir } = JSON.parse(readFileSync(join(workspace, "node_modules", ".modules.yaml"), "utf8")) as {
    storeDir: string;
  };
  const args = [
    "--filter",
    service,
    "deploy",
    "--prod",
    "--prefer-offline",
    `--store-dir=${storeDir}`,
    ...fromLockfile,
    target,
  ];
  try {
    await run("pnpm", args, { cwd: workspace, maxBuffer: 16 * 1024 * 1024, env: { ...process.env, CI: "1" } });
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string };
    throw new Error(
      `pnpm ${args.join(" ")} failed (better-sqlite3 builds again in the folder: set npm_config_nodedir when Node's headers cannot be downloaded):\n${failed.stderr ?? ""}\n${failed.stdout ?? ""}`,
      { cause: error },
    );
  }
}

beforeAll(async () => {
  [postgres, model, callbacks] = await Promise.all([
    runPostgres(),
    createFakeModelServer({
      respond: (request) => ({
        object: {
          content: `Continuation ${request.index}: the constraint rules out option B.`,
          confidence: 0.8,
          next_step: "Check option A.",
        },
      }),
    }),
    startCallbackReceiver(),
    deploy("@deliberate/http-api", deployed.api),
    deploy("@deliberate/mcp-server", deployed.mcp),
  ]);
});

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
  await Promise.all(processes.map((replica) => replica.kill()));
  await Promise.all([callbacks?.close(), model?.close()]);
  poster.close();
  // The two deployed folders hold some twenty thousand files: rm -rf removes them for a quarter of the CPU rmSync spends.
  if (process.platform === "win32") rmSync(directory, { recursive: true, force: true });
  else await run("rm", ["-rf", directory]);
});

async function query<T extends pg.QueryResultRow>(url: string, text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

describe("deployable services", () => {
  it("deploys each service to a folder of its own, its dependencies inside it", () => {
    for (const folder of [deployed.api, deployed.mcp]) {
      expect(existsSync(join(folder, "dist", "main.js"))).toBe(true);
      // Its dependencies live inside the folder, not in the workspace.
      for (const dependency of ["pg", "kysely", "better-sqlite3"])
        expect(realpathSync(join(folder, "node_modules", dependency)).startsWith(realpathSync(folder))).toBe(true);
    }
  });
});

describe("several replicas on one Postgres", () => {
  it("completes every accepted job once and keeps every acknowledged write when a replica is killed mid-run", async () => {
    const phases: string[] = [];
    let mark = performance.now();
    const phase = (name: string) => {
      const now = performance.now();
      phases.push(`${name} ${((now - mark) / 1000).toFixed(1)} s`);
      mark = now;
    };
    const databaseUrl = await postgres.createDatabase("replicas");
    const common = { DATABASE_URL: databaseUrl, DATABASE_POOL_SIZE: "6", LOG_LEVEL: "warn" };
    const apiEnv = {
      ...common,
      REASONING_CALLBACK_ALLOWLIST: "127.0.0.1",
      // The limit is shared through the database (the default store on Postgres): high enough not to refuse this load.
      REASONING_API_RATE_LIMIT: "1000000",
      REASONING_QUEUE_LEASE_MS: String(leaseMs),
      // Enqueues and finished jobs wake a replica's claim loop at once; the poll only finds work queued
      // elsewhere (the killed replica's requeued jobs, retried callbacks), so a slow one costs no coverage.
      REASONING_QUEUE_POLL_MS: "250",
      REASONING_QUEUE_WORKERS: String(apiWorkers),
      REASONING_CALLBACK_BACKOFF_MS: "50",
    };
    const mcpEnv = { ...common, OPENAI_BASE_URL: model.openaiBaseURL, OPENAI_API_KEY: "test-key" };

    // All four start at once on an empty database, so they migrate it concurrently. api-1 and mcp-1
    // run from their deployed folders (api-1 is the replica that lives through the run).
    const started = await Promise.all([
      startReplica({ kind: "api", env: apiEnv, name: "api-1", entry: join(deployed.api, "dist", "main.js") }),
      startReplica({ kind: "api", env: apiEnv, name: "api-2" }),
      startReplica({ kind: "mcp", env: mcpEnv, name: "mcp-1", entry: join(deployed.mcp, "dist", "main.js") }),
      startReplica({ kind: "mcp", env: mcpEnv, name: "mcp-2" }),
    ]);
    processes.push(...started);
    const [api1, api2, mcp1, mcp2] = started as [Replica, Replica, Replica, Replica];
    const migrations = await query<{ owner: string; name: string }>(
      databaseUrl,
      "select owner, name from deliberate_migrations",
    );
    expect(migrations.map((row) => row.owner).sort()).toEqual(
      expect.arrayContaining(["agent-intent", "base", "reasoning"]),
    );

    phase("start");
    for (const replica of [mcp1, mcp2]) {
      const client = new Client({ name: "replica-test", version: "1.0.0" });
      await client.connect(new StreamableHTTPClientTransport(new URL(replica.url)));
      clients.push(client);
    }

    // The deployed folders answer: a synchronous intent, the MCP tool list, a refusal.
    const intent = await fetch(`${api1.url}/agent_intent`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ goal_text: "search project for TODOs" }),
    });
    expect(intent.status).toBe(200);
    expect(((await intent.json()) as { status: string }).status).toBe("ok");
    const deployedClient = clients[0] as Client;
    const { tools } = await deployedClient.listTools();
    expect(tools.map((tool) => tool.name)).toContain("reasoning_checkpoint");
    const refusedCall = await deployedClient.callTool({
      name: "reasoning_checkpoint",
      arguments: { operation: "list", session_id: "missing" },
    });
    expect(refusedCall.isError).toBe(true);

    // Intents: round-robin over the live API replicas; api-2 is SIGKILLed after `killAfter` submissions.
    const live = [api1, api2];
    const accepted: string[] = [];
    let refused = 0;
    const refusals = new Map<string, number>();
    // What the killed replica held when it died (its owner id is host:pid:random): only these may be redone.
    let killed: Promise<Set<string>> | undefined;
    const intentLoad = forEachLimited(
      Array.from({ length: intents }, (_, index) => index),
      24,
      async (index) => {
        if (index === killAfter) {
          live.splice(live.indexOf(api2), 1);
          killed = api2.kill().then(async () => {
            const held = await query<{ id: string }>(
              databaseUrl,
              "select id from reasoning_queue where owner like $1 and (status = 'processing' or callback_status = 'pending')",
              [`%:${api2.child.pid}:%`],
            );
            return new Set(held.map((row) => row.id));
          });
        }
        const target = live[index % live.length] as Replica;
        try {
          const answer = await poster.post(`${target.url}/agent_intent_async`, {
            goal_text: `search project for TODOs ${index}`,
            correlation_id: `c-${index}`,
            callback_url: callbacks.url,
          });
          const body = (answer.body ?? {}) as { job_id?: string; error?: { code?: string } };
          if (answer.status === 202 && body.job_id) accepted.push(body.job_id);
          else {
            refused += 1;
            refusals.set(
              `HTTP ${answer.status} ${body.error?.code ?? ""}`,
              (refusals.get(`HTTP ${answer.status} ${body.error?.code ?? ""}`) ?? 0) + 1,
            );
          }
        } catch (error) {
          refused += 1; // the killed replica's connections: not acknowledged
          const reason = `${target === api2 ? "api-2" : "api-1"}: ${(error as { code?: string }).code ?? String(error)}`;
          refusals.set(reason, (refusals.get(reason) ?? 0) + 1);
        }
      },
    );

    // Writes: 10 sessions, then appends spread over both MCP replicas, all sessions written at once.
    const sessionIds: string[] = [];
    for (let index = 0; index < sessions; index += 1) {
      const client = clients[index % clients.length] as Client;
      const result = await client.callTool({
        name: "reasoning_linear",
        arguments: { content: `Open session ${index}.` },
      });
      expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
      sessionIds.push((result.structuredContent as { session_id: string }).session_id);
    }
    const acknowledged: Array<{ thought_id: string; session_id: string }> = [];
    const writeOutcomes = await forEachLimited(
      Array.from({ length: mcpWrites - sessions }, (_, index) => index),
      8,
      async (index) => {
        const client = clients[index % clients.length] as Client;
        const sessionId = sessionIds[index % sessions] as string;
        const result = await client.callTool({
          name: "reasoning_linear",
          arguments: { content: `Step ${index}.`, session_id: sessionId },
        });
        if (result.isError) throw new Error(JSON.stringify(result.content));
        acknowledged.push(result.structuredContent as { thought_id: string; session_id: string });
      },
    );
    const checkpoints: Array<{ checkpoint_id: string; session_id: string }> = [];
    let unacknowledgedCheckpoints = 0;
    const checkpointLoad = forEachLimited(
      Array.from({ length: restWrites }, (_, index) => index),
      8,
      async (index) => {
        const target = live[index % live.length] as Replica;
        try {
          const answer = await poster.post(`${target.url}/v1/tools/reasoning_checkpoint`, {
            operation: "create",
            session_id: sessionIds[index % sessions],
            name: `checkpoint ${index}`,
          });
          const body = (answer.body ?? {}) as { checkpoint_id?: string; session_id: string };
          if (answer.status === 200 && body.checkpoint_id)
            checkpoints.push({ checkpoint_id: body.checkpoint_id, session_id: body.session_id });
          else unacknowledgedCheckpoints += 1;
        } catch {
          unacknowledgedCheckpoints += 1;
        }
      },
    );
    await checkpointLoad;
    phase("writes");
    await intentLoad;
    const heldByKilled = (await killed) ?? new Set<string>();
    phase("intents");
    const failedWrites = writeOutcomes.filter((outcome) => outcome.status === "rejected");
    expect(failedWrites, String((failedWrites[0] as PromiseRejectedResult | undefined)?.reason)).toEqual([]);
    expect(accepted.length + refused).toBe(intents);
    expect(accepted.length, `refused: ${JSON.stringify(Object.fromEntries(refusals))}`).toBeGreaterThan(intents * 0.9);

    // Every accepted job is called back (the killed replica's jobs after their lease lapsed).
    await waitFor(
      () => {
        const delivered = callbacks.byJob();
        return accepted.every((id) => delivered.has(id));
      },
      45_000,
      "a callback for every accepted job",
    );
    phase("callbacks");
    const delivered = callbacks.byJob();
    const duplicated = accepted.filter((id) => (delivered.get(id)?.length ?? 0) > 1);
    for (const id of accepted) {
      const bodies = new Set((delivered.get(id) ?? []).map((delivery) => delivery.body));
      expect(bodies.size, `job ${id} was called back with different results`).toBe(1);
      // Re-deliveries (by another replica too) carry the same idempotency key.
      const keys = new Set((delivered.get(id) ?? []).map((delivery) => delivery.deliveryId));
      expect(
        [...keys].every((key) => /^dlv_[0-9a-f]{24}$/.test(key)) && keys.size === 1,
        `job ${id} delivery ids ${[...keys].join(", ")}`,
      ).toBe(true);
      const body = JSON.parse([...bodies][0] as string) as { job_id: string; status: string };
      expect(body).toMatchObject({ job_id: id, status: "ok" });
    }
    // A redelivery can only be of a callback the killed replica was delivering when it died.
    expect(duplicated.filter((id) => !heldByKilled.has(id))).toEqual([]);

    // The database afterwards.
    const jobs = await query<{
      id: string;
      status: string;
      callback_status: string;
      attempts: number;
      result: string | null;
    }>(databaseUrl, "select id, status, callback_status, attempts, result::text as result from reasoning_queue");
    const byId = new Map(jobs.map((job) => [job.id, job]));
    for (const id of accepted) {
      const job = byId.get(id);
      expect(job, `accepted job ${id} is missing`).toBeDefined();
      expect([job?.status, job?.callback_status]).toEqual(["done", "delivered"]);
      expect(JSON.parse(job?.result ?? "null")).toMatchObject({ status: "ok" });
    }
    // Jobs accepted whose answer was lost with the killed replica still ran.
    expect(jobs.filter((job) => job.status !== "done")).toEqual([]);
    const completions = await query<{ job_id: string; count: string }>(
      databaseUrl,
      "select job_id, count(*) as count from reasoning_logs where event = 'job.completed' group by job_id having count(*) > 1",
    );
    expect(completions).toEqual([]);

    const thoughts = await query<{
      id: string;
      session_id: string;
      position: number;
      parent_id: string | null;
      mode: string;
    }>(databaseUrl, "select id, session_id, position, parent_id, mode from thoughts order by session_id, position");
    const thoughtById = new Map(thoughts.map((thought) => [thought.id, thought]));
    for (const write of acknowledged) {
      const thought = thoughtById.get(write.thought_id);
      expect(thought?.session_id, `acknowledged thought ${write.thought_id}`).toBe(write.session_id);
    }
    for (const sessionId of sessionIds) {
      const own = thoughts.filter((thought) => thought.session_id === sessionId);
      // Contiguous positions, and each call's two thoughts side by side (input, then its continuation).
      expect(own.map((thought) => thought.position)).toEqual(own.map((_, index) => index));
      for (let index = 0; index < own.length; index += 2) {
        expect([own[index]?.mode, own[index + 1]?.mode, own[index + 1]?.parent_id]).toEqual([
          "input",
          "linear",
          own[index]?.id,
        ]);
      }
    }
    expect(thoughts).toHaveLength(mcpWrites * 2);
    const storedCheckpoints = await query<{ id: string; session_id: string }>(
      databaseUrl,
      "select id, session_id from checkpoints",
    );
    const checkpointSessions = new Map(storedCheckpoints.map((row) => [row.id, row.session_id]));
    for (const checkpoint of checkpoints)
      expect(
        checkpointSessions.get(checkpoint.checkpoint_id),
        `acknowledged checkpoint ${checkpoint.checkpoint_id}`,
      ).toBe(checkpoint.session_id);
    expect(checkpoints.length + unacknowledgedCheckpoints).toBe(restWrites);
    expect(checkpoints.length).toBeGreaterThan(restWrites * 0.9);
    const sequences = await query<{ key: string; next_position: number }>(
      databaseUrl,
      "select key, next_position from deliberate_sequences where scope = 'thoughts'",
    );
    expect(sequences.map((row) => row.next_position).sort()).toEqual(
      sessionIds.map((id) => thoughts.filter((thought) => thought.session_id === id).length).sort(),
    );
    const invocations = await query<{ count: string }>(
      databaseUrl,
      "select count(*) as count from invocations where tool = 'reasoning_linear' and success",
    );
    expect(Number(invocations[0]?.count)).toBe(mcpWrites);

    const takenOver = jobs.filter((job) => job.attempts > 1).length;
    process.stdout.write(
      `multi-replica: ${accepted.length} intents accepted (${refused} refused by the killed replica), ${heldByKilled.size} held by it when killed, ${takenOver} run again after its lease lapsed, ` +
        `${callbacks.deliveries.length} callbacks (${duplicated.length} redelivered), ${acknowledged.length + sessions + checkpoints.length} writes acknowledged (${unacknowledgedCheckpoints} lost with the killed replica); ${phases.join(", ")}\n`,
    );
  });
});
