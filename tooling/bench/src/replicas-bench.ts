import { mkdtempSync, rmSync } from "node:fs";
import { Agent, request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { type Replica, startReplica } from "@deliberate/replicas";
import { openStore } from "@deliberate/store";
import { startTestPostgres } from "@deliberate/store/testing/postgres";
import { startRoundTripCounter } from "./postgres-round-trips.ts";
import { quantile } from "./statistics.ts";
import { benchDecisionInput } from "./decision-input.ts";

// Scale-out: the built deliberate-api on SQLite (one process, the embedded
// default) and on Postgres with 1 and with 2 replicas, in the same run, for
//   (r1) POST /agent_intent, heuristic (no model): validation, decision, telemetry;
//   (r2) POST /v1/tools/reasoning_checkpoint create: a writing tool (reads the
//        session's thoughts, writes a checkpoint and an invocation row).
// Load: `connections` keep-alive connections spread round-robin over the
// replicas, from this process; everything shares one machine (Postgres too),
// so a second replica adds processes, not cores. Rate limiting is off. The
// setups run side by side and are measured in alternating rounds.
// Run alone: pnpm build && pnpm --filter @deliberate/bench exec tsx src/replicas-bench.ts

export interface ReplicaBenchOptions {
  connections?: number;
  durationMs?: number;
  warmupMs?: number;
  /** Rounds alternating the setups (default 3; the median round is reported). */
  rounds?: number;
}

export interface SeriesResult {
  requests: number;
  errors: number;
  requestsPerSecond: number;
  p50: number;
  p99: number;
}

export interface ReplicaBenchRow {
  setup: string;
  intent: SeriesResult;
  write: SeriesResult;
  /** Postgres: round trips per request, counted at the protocol (see {@link countRoundTrips}). */
  roundTrips?: RoundTripsPerRequest;
}

/** Round trips between one replica and Postgres per request, requests sent one at a time. */
export interface RoundTripsPerRequest {
  /** (r2) reasoning_checkpoint create. */
  checkpoint: number;
  /** reasoning_decision with scores: a new session and its thought. */
  decision: number;
}

const sessions = 50;
const intentBody = JSON.stringify({ session_id: "s1", persona: {}, goal_text: "search project for TODOs" });

function send(agent: Agent, url: URL, body: string): Promise<number> {
  return new Promise((resolve) => {
    const started = performance.now();
    const outgoing = request(
      url,
      {
        method: "POST",
        agent,
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
      },
      (response) => {
        response.resume();
        response.on("end", () =>
          resolve(response.statusCode !== undefined && response.statusCode < 300 ? performance.now() - started : -1),
        );
        response.on("error", () => resolve(-1));
      },
    );
    outgoing.on("error", () => resolve(-1));
    outgoing.end(body);
  });
}

/** `connections` loops, each bound to one replica in turn, sending back to back for `durationMs`. */
async function load(
  targets: readonly URL[],
  body: (index: number) => string,
  connections: number,
  durationMs: number,
): Promise<SeriesResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const latencies: number[] = [];
  let errors = 0;
  let sent = 0;
  const started = performance.now();
  const deadline = started + durationMs;
  await Promise.all(
    Array.from({ length: connections }, async (_, connection) => {
      const target = targets[connection % targets.length] as URL;
      while (performance.now() < deadline) {
        const latency = await send(agent, target, body(sent++));
        if (latency < 0) errors += 1;
        else latencies.push(latency);
      }
    }),
  );
  const elapsedMs = performance.now() - started;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length,
    errors,
    requestsPerSecond: latencies.length / (elapsedMs / 1000),
    p50: latencies.length > 0 ? quantile(latencies, 0.5) : Number.NaN,
    p99: latencies.length > 0 ? quantile(latencies, 0.99) : Number.NaN,
  };
}

const decisionBody = JSON.stringify(benchDecisionInput);

/**
 * One more replica on `url`'s database, through a proxy counting what it sends Postgres: `requests` writes of
 * each kind one at a time, then the round trips per request (its invocation rows included, batched as in
 * service; anything else it sent meanwhile too, e.g. a lease renewal, so the figure is an upper bound).
 */
async function countRoundTrips(
  url: string,
  base: Record<string, string>,
  requests = 100,
): Promise<RoundTripsPerRequest> {
  const counter = await startRoundTripCounter(url);
  const replica = await startReplica({ kind: "api", env: { ...base, DATABASE_URL: counter.url } });
  await seed({ url });
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const per = async (path: string, body: (index: number) => string) => {
      const target = new URL(`${replica.url}${path}`);
      for (let index = 0; index < 10; index += 1) await send(agent, target, body(index));
      const before = counter.count();
      for (let index = 0; index < requests; index += 1) {
        if ((await send(agent, target, body(index))) < 0) throw new Error(`round-trip count: ${path} failed`);
      }
      // The last batch of invocation rows is written at most 20 ms later.
      await new Promise((resolve) => setTimeout(resolve, 100));
      return (counter.count() - before) / requests;
    };
    const checkpoint = await per("/v1/tools/reasoning_checkpoint", (index) =>
      JSON.stringify({ operation: "create", session_id: `bench-${index % sessions}`, name: `count ${index}` }),
    );
    const decision = await per("/v1/tools/reasoning_decision", () => decisionBody);
    return { checkpoint, decision };
  } finally {
    agent.destroy();
    await replica.stop();
    await counter.stop();
  }
}

/** Sessions with a few thoughts each, for the checkpoint writes. */
async function seed(target: { path: string } | { url: string }): Promise<void> {
  const store = await openStore({ ...target });
  try {
    const now = new Date().toISOString();
    for (let index = 0; index < sessions; index += 1) {
      await store.transaction(async (repositories) => {
        await repositories.sessions.create({ id: `bench-${index}`, mode: "linear", now });
        for (let step = 0; step < 5; step += 1) {
          await repositories.thoughts.append({
            id: `bench-${index}-${step}`,
            session_id: `bench-${index}`,
            mode: "linear",
            content: `Step ${step} of session ${index}.`,
            created_at: now,
          });
        }
      });
    }
  } finally {
    await store.close();
  }
}

interface Setup {
  name: string;
  replicas: Replica[];
  intents: SeriesResult[];
  writes: SeriesResult[];
}

function combine(results: readonly SeriesResult[]): SeriesResult {
  const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
  return {
    requests: results.reduce((total, result) => total + result.requests, 0),
    errors: results.reduce((total, result) => total + result.errors, 0),
    requestsPerSecond: median(results.map((result) => result.requestsPerSecond)),
    p50: median(results.map((result) => result.p50)),
    p99: median(results.map((result) => result.p99)),
  };
}

async function measureRound(setup: Setup, options: Required<ReplicaBenchOptions>): Promise<void> {
  const intentTargets = setup.replicas.map((replica) => new URL(`${replica.url}/agent_intent`));
  const writeTargets = setup.replicas.map((replica) => new URL(`${replica.url}/v1/tools/reasoning_checkpoint`));
  const writeBody = (index: number) =>
    JSON.stringify({ operation: "create", session_id: `bench-${index % sessions}`, name: `bench ${index}` });
  await load(intentTargets, () => intentBody, options.connections, options.warmupMs);
  setup.intents.push(await load(intentTargets, () => intentBody, options.connections, options.durationMs));
  await load(writeTargets, writeBody, options.connections, options.warmupMs);
  setup.writes.push(await load(writeTargets, writeBody, options.connections, options.durationMs));
}

/**
 * Starts the three setups side by side (idle ones cost next to nothing) and
 * measures them in alternating rounds, so drift in the machine's load hits
 * all alike; reports the median round. The services must be built.
 */
export async function runReplicaBench(options: ReplicaBenchOptions = {}): Promise<ReplicaBenchRow[]> {
  const settings = {
    connections: options.connections ?? 32,
    durationMs: options.durationMs ?? 3000,
    warmupMs: options.warmupMs ?? 500,
    rounds: options.rounds ?? 3,
  };
  const base = { LOG_LEVEL: "warn", REASONING_API_RATE_LIMIT: "0", REASONING_QUEUE_WORKER: "0" };
  const directory = mkdtempSync(join(tmpdir(), "deliberate-replica-bench-"));
  const postgres = await startTestPostgres();
  const setups: Setup[] = [];
  try {
    const sqlitePath = join(directory, "bench.db");
    await seed({ path: sqlitePath });
    setups.push({
      name: "SQLite, 1 replica",
      replicas: [await startReplica({ kind: "api", env: { ...base, DATABASE_PATH: sqlitePath } })],
      intents: [],
      writes: [],
    });
    for (const count of [1, 2]) {
      const url = await postgres.createDatabase(`bench${count}`);
      const env = { ...base, DATABASE_URL: url };
      // The first replica migrates; the seed goes in before the others start.
      const replicas = [await startReplica({ kind: "api", env })];
      setups.push({ name: `Postgres, ${count} replica${count > 1 ? "s" : ""}`, replicas, intents: [], writes: [] });
      await seed({ url });
      for (let index = 1; index < count; index += 1) replicas.push(await startReplica({ kind: "api", env }));
    }
    for (let round = 0; round < settings.rounds; round += 1) {
      for (const setup of setups) await measureRound(setup, settings);
    }
    const roundTrips = await countRoundTrips(await postgres.createDatabase("benchtrips"), base, 100).catch(
      async (error: unknown) => {
        process.stderr.write(`round-trip count failed: ${(error as Error).message}\n`);
        return undefined;
      },
    );
    return setups.map((setup) => ({
      setup: setup.name,
      intent: combine(setup.intents),
      write: combine(setup.writes),
      ...(setup.name.startsWith("Postgres, 1") && roundTrips !== undefined ? { roundTrips } : {}),
    }));
  } finally {
    await Promise.all(setups.flatMap((setup) => setup.replicas.map((replica) => replica.stop())));
    await postgres.stop();
    rmSync(directory, { recursive: true, force: true });
  }
}

/** The figures as a table. */
export function formatReplicaBench(rows: readonly ReplicaBenchRow[], connections = 32): string {
  const cell = (value: number, digits = 0) => value.toFixed(digits).padStart(9);
  const lines = [
    `Scale-out: deliberate-api on SQLite and on Postgres with 1 and 2 replicas, ${connections} keep-alive connections round-robin over the replicas, one 2-core machine (median of alternating rounds)`,
    `                       ${"(r1) POST /agent_intent, heuristic".padEnd(38)}${"(r2) reasoning_checkpoint create (write)"}`,
    `                       ${"req/s".padStart(9)}${"p50 ms".padStart(9)}${"p99 ms".padStart(9)}${"errors".padStart(9)}  ${"req/s".padStart(9)}${"p50 ms".padStart(9)}${"p99 ms".padStart(9)}${"errors".padStart(9)}`,
  ];
  for (const row of rows) {
    lines.push(
      `  ${row.setup.padEnd(21)}${cell(row.intent.requestsPerSecond)}${cell(row.intent.p50, 2)}${cell(row.intent.p99, 2)}${cell(row.intent.errors)}  ${cell(row.write.requestsPerSecond)}${cell(row.write.p50, 2)}${cell(row.write.p99, 2)}${cell(row.write.errors)}`,
    );
  }
  for (const row of rows) {
    if (row.roundTrips === undefined) continue;
    lines.push(
      `  Postgres round trips per request (one replica, requests one at a time, counted at the protocol, invocation rows included): (r2) checkpoint create ${row.roundTrips.checkpoint.toFixed(2)}, reasoning_decision with scores ${row.roundTrips.decision.toFixed(2)}`,
    );
  }
  return lines.join("\n");
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runReplicaBench().then(
    (rows) => process.stdout.write(`${formatReplicaBench(rows)}\n`),
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exit(1);
    },
  );
}
