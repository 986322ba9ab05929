import { mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { DeliberateClientError } from "../errors.ts";
import { createFileOutbox } from "../node/file-outbox.ts";
import { createAgentIntentClient } from "./agent-intent-client.ts";
import { createMemoryOutbox, type OutboxEntry } from "./outbox.ts";

// The agent-intent client's tool validation and queue fallback against a loopback server playing the API: it can be
// down (connections dropped), up (jobs accepted, one per correlation id, as the service's idempotency key makes
// them), or refusing (400). The same against the real deliberate-api: test/agent-intent.e2e.test.ts.

type Mode = "down" | "up" | "refuse";
let mode: Mode = "up";
let decision: Record<string, unknown> = {};
const jobs = new Map<string, string>();
const posts: Array<Record<string, unknown>> = [];
const sockets = new Set<Socket>();
let server: Server;
let baseUrl: string;

beforeAll(async () => {
  server = createServer((request, response) => {
    if (mode === "down") {
      request.socket.destroy();
      return;
    }
    let body = "";
    request.on("data", (chunk) => (body += chunk));
    request.on("end", () => {
      const parsed = body === "" ? {} : (JSON.parse(body) as Record<string, unknown>);
      if (mode === "refuse") {
        response.writeHead(400, { "content-type": "application/json" }).end(
          JSON.stringify({
            error: {
              code: "INVALID_INPUT",
              message: "goal_text is too long",
              issues: [{ field: "goal_text", message: "too long" }],
              retryable: false,
            },
          }),
        );
        return;
      }
      if (request.url === "/agent_intent_async") {
        posts.push(parsed);
        const key = String(parsed["correlation_id"]);
        const jobId = jobs.get(key) ?? `job-${jobs.size + 1}`;
        jobs.set(key, jobId);
        response
          .writeHead(202, { "content-type": "application/json" })
          .end(JSON.stringify({ status: "accepted", job_id: jobId, correlation_id: parsed["correlation_id"] ?? null }));
        return;
      }
      response.writeHead(200, { "content-type": "application/json" }).end(
        JSON.stringify({
          status: "ok",
          duration_ms: 1,
          intent_id: "i-1",
          reasoning: "r",
          finish: false,
          final_text: null,
          trace: [],
          decided_by: "model",
          ...decision,
        }),
      );
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => {
  mode = "up";
  jobs.clear();
  posts.length = 0;
});

async function failureOf(promise: Promise<unknown>): Promise<DeliberateClientError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!DeliberateClientError.isInstance(error)) throw new Error(`expected a client error, got ${String(error)}`);
  return error;
}

describe("tool validation is on by default", () => {
  it("with no tools listed anywhere, a decision is checked against what the service offers a request with no tools", async () => {
    const intents = createAgentIntentClient({ baseUrl, env: {}, retries: 0 });
    decision = { tool_name: "shell.exec", tool_args: { command: "rm -rf /" } };
    const notOffered = await failureOf(intents.agentIntent({ goal_text: "Find auth logic" }));
    expect(notOffered).toMatchObject({
      code: "INTENT_VALIDATION",
      issues: [{ field: "tool_name", message: "'shell.exec' was not offered" }],
    });
    decision = { tool_name: "context.fts_search", tool_args: {} };
    const badArguments = await failureOf(intents.agentIntent({ goal_text: "Find auth logic" }));
    expect(badArguments.issues.map((issue) => issue.field)).toEqual(["tool_args.query"]);
    decision = { tool_name: "context.fts_search", tool_args: { query: "auth" } };
    expect((await intents.agentIntent({ goal_text: "Find auth logic" })).tool_name).toBe("context.fts_search");
    // A forced tool is what the service takes by name when no tools are listed.
    decision = { tool_name: "fs.read_file", tool_args: {}, decided_by: "forced_tool" };
    expect((await intents.agentIntent({ goal_text: "Makefile", forced_tool: "fs.read_file" })).tool_name).toBe(
      "fs.read_file",
    );
    // Off only when asked.
    decision = { tool_name: "shell.exec", tool_args: {} };
    expect((await intents.agentIntent({ goal_text: "x" }, { validateTools: false })).tool_name).toBe("shell.exec");
    expect(
      (await createAgentIntentClient({ baseUrl, env: {}, validateTools: false }).agentIntent({ goal_text: "x" }))
        .tool_name,
    ).toBe("shell.exec");
  });
});

describe("the queue fallback (outbox)", () => {
  it("without an outbox, an API that is down is the caller's error", async () => {
    mode = "down";
    const intents = createAgentIntentClient({ baseUrl, env: {}, retries: 0 });
    expect(
      (await failureOf(intents.agentIntentAsync({ goal_text: "x", callback_url: "http://127.0.0.1:1/cb" }))).code,
    ).toBe("CONNECTION_FAILED");
    expect(intents.outbox).toBeNull();
  });

  it("keeps an intent the API cannot take, and sends it once the API returns (one job, its correlation id kept)", async () => {
    mode = "down";
    const outbox = createMemoryOutbox();
    const delivered: string[] = [];
    const intents = createAgentIntentClient({
      baseUrl,
      env: {},
      retries: 0,
      outbox,
      outboxRetryMs: 20,
      outboxMaxRetryMs: 50,
      onOutboxDelivered: (entry) => delivered.push(entry.id),
    });
    const queued = await intents.agentIntentAsync({
      goal_text: "List Makefile targets",
      callback_url: "http://127.0.0.1:1/cb",
      correlation_id: "run-1",
    });
    expect(queued).toMatchObject({
      status: "queued",
      job_id: null,
      correlation_id: "run-1",
      reason: { code: "CONNECTION_FAILED" },
    });
    const anonymous = await intents.agentIntentAsync({ goal_text: "Second", callback_url: "http://127.0.0.1:1/cb" });
    // With an outbox every intent gets a correlation id: the service's idempotency key.
    expect(anonymous.correlation_id).toMatch(/^outbox-/);
    expect((await intents.outbox?.pending())?.map((entry) => entry.id)).toEqual(["run-1", anonymous.correlation_id]);
    // Still down: the drain keeps them, counting attempts.
    await expect.poll(async () => (await outbox.get("run-1"))?.attempts ?? 0, { timeout: 20_000 }).toBeGreaterThan(1);
    mode = "up";
    if (queued.status !== "queued") throw new Error("expected queued");
    const job = await queued.delivered();
    expect(job).toMatchObject({ status: "accepted", correlation_id: "run-1" });
    await expect.poll(() => delivered.length, { timeout: 20_000 }).toBe(2);
    expect(await intents.outbox?.pending()).toEqual([]);
    expect(posts.filter((post) => post["correlation_id"] === "run-1")).toHaveLength(1);
    expect(posts.find((post) => post["correlation_id"] === "run-1")).toMatchObject({
      goal_text: "List Makefile targets",
      callback_url: "http://127.0.0.1:1/cb",
    });
    intents.outbox?.close();
  });

  it("an intent the API refuses (4xx) is kept as rejected, reported, and never sent again", async () => {
    mode = "down";
    const outbox = createMemoryOutbox();
    const rejected: Array<[OutboxEntry, string]> = [];
    const intents = createAgentIntentClient({
      baseUrl,
      env: {},
      retries: 0,
      outbox,
      outboxRetryMs: 20,
      onOutboxRejected: (entry, error) => rejected.push([entry, error.code]),
    });
    const queued = await intents.agentIntentAsync({
      goal_text: "x",
      callback_url: "http://127.0.0.1:1/cb",
      correlation_id: "bad-1",
    });
    mode = "refuse";
    if (queued.status !== "queued") throw new Error("expected queued");
    expect((await failureOf(queued.delivered())).code).toBe("INVALID_INPUT");
    expect(rejected.map(([entry, code]) => [entry.id, entry.state, code])).toEqual([
      ["bad-1", "rejected", "INVALID_INPUT"],
    ]);
    expect(await outbox.get("bad-1")).toMatchObject({ state: "rejected", lastError: { code: "INVALID_INPUT" } });
    mode = "up";
    expect(await intents.outbox?.flush()).toEqual({ delivered: 0, rejected: 0, remaining: 0 });
    expect(posts).toEqual([]);
    intents.outbox?.close();
  });

  it("cancelling a queued intent removes it from the outbox", async () => {
    mode = "down";
    const outbox = createMemoryOutbox();
    const intents = createAgentIntentClient({ baseUrl, env: {}, retries: 0, outbox, outboxRetryMs: 60_000 });
    const queued = await intents.agentIntentAsync({
      goal_text: "x",
      callback_url: "http://127.0.0.1:1/cb",
      correlation_id: "gone-1",
    });
    expect(await queued.cancel()).toEqual({ ok: true, canceled: [] });
    expect(await outbox.list()).toEqual([]);
    intents.outbox?.close();
  });

  it("on disk: nothing is lost when the process restarts; a new client sends what the old one queued", async () => {
    const directory = mkdtempSync(join(tmpdir(), "deliberate-outbox-"));
    try {
      mode = "down";
      const before = createAgentIntentClient({
        baseUrl,
        env: {},
        retries: 0,
        outbox: createFileOutbox({ directory }),
        outboxRetryMs: 60_000,
      });
      for (const id of ["a-1", "a-2", "a-3"])
        await before.agentIntentAsync({
          goal_text: `goal ${id}`,
          callback_url: "http://127.0.0.1:1/cb",
          correlation_id: id,
        });
      // The old process is gone (its timer stopped, its memory lost); the files are complete JSON.
      before.outbox?.close();
      expect(readdirSync(directory).filter((file) => file.endsWith(".json"))).toHaveLength(3);
      expect(readdirSync(directory).filter((file) => file.endsWith(".tmp"))).toEqual([]);
      mode = "up";
      const delivered: string[] = [];
      const after = createAgentIntentClient({
        baseUrl,
        env: {},
        retries: 0,
        outbox: createFileOutbox({ directory }),
        onOutboxDelivered: (entry) => delivered.push(entry.id),
      });
      await expect.poll(() => delivered.length, { timeout: 20_000 }).toBe(3);
      expect([...delivered].sort()).toEqual(["a-1", "a-2", "a-3"]);
      expect(posts.map((post) => post["correlation_id"]).sort()).toEqual(["a-1", "a-2", "a-3"]);
      expect(readdirSync(directory)).toEqual([]);
      after.outbox?.close();
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it("on disk: a write cut off before its rename leaves no entry and no trace once stale", async () => {
    const directory = mkdtempSync(join(tmpdir(), "deliberate-outbox-"));
    try {
      const store = createFileOutbox({ directory, staleTemporaryMs: 60_000 });
      const entry: OutboxEntry = {
        id: "c-1",
        kind: "agent_intent_async",
        request: {
          goal_text: "x",
          callback_url: "http://127.0.0.1:1/cb",
          correlation_id: "c-1",
        } as OutboxEntry["request"],
        queuedAt: new Date().toISOString(),
        attempts: 1,
        state: "queued",
        nextAttemptAt: new Date().toISOString(),
        lastError: null,
      };
      await store.put(entry);
      // A crash mid-write of a new version: half a file under a temporary name, beside the complete one.
      const [file] = readdirSync(directory);
      const partial = join(directory, `${file}.123.abc.tmp`);
      writeFileSync(partial, '{"id":"c-1","kind":"agent_int');
      // A fresh one may be another process's write in progress: left alone.
      expect(await store.list()).toEqual([entry]);
      expect(readdirSync(directory)).toHaveLength(2);
      // A stale one is a left-over: removed.
      utimesSync(partial, new Date(Date.now() - 120_000), new Date(Date.now() - 120_000));
      expect(await store.list()).toEqual([entry]);
      expect(readdirSync(directory)).toEqual([file]);
      expect(await store.get("c-1")).toEqual(entry);
      await store.put({ ...entry, attempts: 2 });
      expect((await store.get("c-1"))?.attempts).toBe(2);
      await store.delete("c-1");
      expect(await store.get("c-1")).toBeUndefined();
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
