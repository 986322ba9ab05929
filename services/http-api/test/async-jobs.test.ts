import { createFakeModelServer } from "@deliberate/providers/testing";
import { openStore } from "@deliberate/store";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startCallbackReceiver } from "./support/callback-receiver.ts";
import {
  databaseOptions,
  eventually,
  getJson,
  postJson,
  startService,
  temporaryDirectory,
  type RunningService,
} from "./support/service-harness.ts";
import { reasoningModule } from "@deliberate/reasoning";
import { agentIntentModule } from "../src/agent-intent-module.ts";
import type { ApiRepositories } from "../src/store/contribution.ts";
import type { ApiTables } from "../src/store/tables.ts";

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function receiver(respond?: Parameters<typeof startCallbackReceiver>[0]) {
  const started = await startCallbackReceiver(respond);
  cleanups.push(() => started.close());
  return started;
}

async function service(env: Record<string, string> = {}, options: Parameters<typeof startService>[1] = {}) {
  const running = await startService({ REASONING_CALLBACK_ALLOWLIST: "127.0.0.1", ...env }, options);
  cleanups.push(() => running.stop());
  return running;
}

async function jobStatus(running: RunningService, jobId: string) {
  return (await getJson(`${running.url}/v1/jobs/${jobId}`)).json;
}

describe("POST /agent_intent_async", () => {
  it("accepts, processes in the worker pool and POSTs the result with job_id and correlation_id", async () => {
    const callbacks = await receiver();
    const running = await service();
    const accepted = await postJson(`${running.url}/agent_intent_async`, {
      session_id: "s1",
      goal_text: "search project for TODOs",
      callback_url: `${callbacks.url}/hooks/intent`,
      correlation_id: "run-1",
    });
    expect(accepted.status).toBe(202);
    expect(accepted.json).toMatchObject({ status: "accepted", correlation_id: "run-1" });
    const jobId = accepted.json.job_id as string;

    const callback = await eventually(() => callbacks.received[0], 30_000, "the callback");
    expect(callback.path).toBe("/hooks/intent");
    expect(callback.headers["x-deliberate-job-id"]).toBe(jobId);
    expect(callback.body).toMatchObject({
      status: "ok",
      job_id: jobId,
      correlation_id: "run-1",
      tool_name: "context.fts_search",
      tool_args: { query: "search project for TODOs" },
      decided_by: "heuristic",
      finish: false,
    });
    const job = await eventually(async () => {
      const view = await jobStatus(running, jobId);
      return view.callback.status === "delivered" ? view : undefined;
    });
    expect(job).toMatchObject({ status: "done", attempts: 1, callback: { status: "delivered", attempts: 1 } });
    expect(job.result.intent_id).toBe(callback.body.intent_id);
  });

  it("retries a failing callback with backoff, signing each delivery when a secret is set", async () => {
    const seen: Array<Record<string, unknown>> = [];
    const callbacks = await receiver((callback, index) => {
      seen.push(callback.headers);
      return index < 2 ? 503 : 200;
    });
    const running = await service({ REASONING_CALLBACK_SECRET: "callback-signing-secret" });
    const accepted = await postJson(`${running.url}/agent_intent_async`, {
      goal_text: "Refactor the parser",
      callback_url: callbacks.url,
      correlation_id: "run-2",
    });
    const callback = await eventually(() => callbacks.received[0], 30_000, "the retried callback");
    expect(callbacks.attempts).toBe(3);
    expect(callback.headers["x-deliberate-delivery-attempt"]).toBe("3");
    // Every delivery of the result carries the same idempotency key, the job id and its attempt numbers.
    expect(seen.map((headers) => headers["x-deliberate-delivery-attempt"])).toEqual(["1", "2", "3"]);
    const deliveryId = callback.headers["idempotency-key"];
    expect(deliveryId).toMatch(/^dlv_[0-9a-f]{24}$/);
    for (const headers of seen) {
      expect(headers).toMatchObject({
        "idempotency-key": deliveryId,
        "x-deliberate-delivery-id": deliveryId,
        "x-deliberate-job-id": accepted.json.job_id,
        "x-deliberate-job-attempt": "1",
      });
    }
    const { createHmac } = await import("node:crypto");
    const expected = createHmac("sha256", "callback-signing-secret")
      .update(`${callback.headers["x-deliberate-timestamp"]}.${callback.raw}`)
      .digest("hex");
    expect(callback.headers["x-deliberate-signature"]).toBe(`sha256=${expected}`);
    const job = await eventually(async () => {
      const view = await jobStatus(running, accepted.json.job_id);
      return view.callback.status === "delivered" ? view : undefined;
    });
    expect(job.callback.attempts).toBe(3);
  });

  it("reports a failed decision through the callback with the error body", async () => {
    const callbacks = await receiver();
    const running = await service();
    await postJson(`${running.url}/agent_intent_async`, {
      goal_text: "auth",
      forced_tool: "fs.read_file",
      tools: [
        {
          name: "fs.read_file",
          input_schema: { type: "object", properties: { path: { type: "string", enum: ["a"] } }, required: ["path"] },
        },
      ],
      callback_url: callbacks.url,
      correlation_id: "run-3",
    });
    const callback = await eventually(() => callbacks.received[0], 30_000, "the failure callback");
    expect(callback.body).toMatchObject({ status: "error", correlation_id: "run-3", error: { code: "INVALID_INPUT" } });
  });

  it("runs a job with the request's own API key without storing it anywhere", async () => {
    const secretKey = "sk-async-request-key-91c2d7e4";
    const model = await createFakeModelServer({
      apiKey: secretKey,
      respond: {
        object: {
          reasoning: "Search.",
          tool_name: "context.fts_search",
          tool_args: { query: "queue" },
          final_text: "",
        },
      },
    });
    cleanups.push(() => model.close());
    const callbacks = await receiver();
    const running = await service({ OPENAI_BASE_URL: model.openaiBaseURL, MAX_RETRIES: "0" });
    const accepted = await postJson(`${running.url}/agent_intent_async`, {
      goal_text: "find the queue",
      llm: { provider: "openai", model: "gpt-async", api_key: secretKey },
      callback_url: callbacks.url,
      correlation_id: "c-key",
    });
    expect(accepted.status).toBe(202);
    const callback = await eventually(() => callbacks.received[0], 30_000, "the callback");
    expect(callback.body).toMatchObject({
      decided_by: "model",
      model: { provider: "openai", model_id: "gpt-async" },
      tool_args: { query: "queue" },
    });
    await running.service.telemetry.flush();
    const db = running.service.store.db.withTables<ApiTables>();
    for (const table of ["reasoning_queue", "reasoning_logs", "invocations"] as const) {
      expect(JSON.stringify(await db.selectFrom(table).selectAll().execute()), table).not.toContain(secretKey);
    }
    expect(running.logs.join("")).not.toContain(secretKey);
    expect(callback.raw).not.toContain(secretKey);
    const stored = await running.service.store.jobs.get(accepted.json.job_id);
    expect(stored.pinned).toBe(true);
    expect(stored.payload).toMatchObject({ llm: { provider: "openai", model: "gpt-async" } });
  });

  it("refuses callbacks to internal addresses unless the host is allowlisted", async () => {
    const running = await service(
      // No workers: accepted jobs must not call out to these (fake) addresses.
      { REASONING_CALLBACK_ALLOWLIST: "hooks.internal.test", REASONING_QUEUE_WORKER: "0" },
      {
        lookup: async (hostname) =>
          hostname === "metadata.attacker.test"
            ? [
                { address: "203.0.113.7", family: 4 },
                { address: "169.254.169.254", family: 4 },
              ]
            : hostname === "hooks.internal.test"
              ? [{ address: "10.1.2.3", family: 4 }]
              : [{ address: "93.184.216.34", family: 4 }],
      },
    );
    const refused = [
      "http://127.0.0.1:9/cb",
      "http://localhost:9/cb",
      "http://[::1]:9/cb",
      "http://[::ffff:127.0.0.1]/cb",
      "http://169.254.169.254/latest/meta-data",
      "http://0.0.0.0/",
      "http://10.0.0.8/",
      "http://[fd00::1]/",
      "http://metadata.attacker.test/cb",
      "ftp://example.com/",
      "http://user:pass@example.com/",
    ];
    for (const callbackUrl of refused) {
      const response = await postJson(`${running.url}/agent_intent_async`, {
        goal_text: "x",
        callback_url: callbackUrl,
      });
      expect(response.status, callbackUrl).toBe(400);
      expect(response.json.error.issues[0].field).toBe("callback_url");
    }
    const allowlisted = await postJson(`${running.url}/agent_intent_async`, {
      goal_text: "x",
      callback_url: "http://hooks.internal.test/cb",
    });
    expect(allowlisted.status).toBe(202);
    const publicHost = await postJson(`${running.url}/agent_intent_async`, {
      goal_text: "x",
      callback_url: "https://example.com/cb",
    });
    expect(publicHost.status).toBe(202);
    const missing = await postJson(`${running.url}/agent_intent_async`, { goal_text: "x" });
    expect(missing.json.error.issues[0].field).toBe("callback_url");
  });
});

describe("POST /agent_intent_cancel", () => {
  it("cancels a queued job: it is never processed or called back", async () => {
    const callbacks = await receiver();
    const running = await service({ REASONING_QUEUE_WORKER: "0" });
    const accepted = await postJson(`${running.url}/agent_intent_async`, {
      goal_text: "find x",
      callback_url: callbacks.url,
      correlation_id: "c-queued",
    });
    expect((await jobStatus(running, accepted.json.job_id)).status).toBe("queued");
    const canceled = await postJson(`${running.url}/agent_intent_cancel`, { correlation_id: "c-queued" });
    expect(canceled.json).toEqual({ ok: true, canceled: [accepted.json.job_id] });
    expect((await jobStatus(running, accepted.json.job_id)).status).toBe("canceled");
    const again = await postJson(`${running.url}/agent_intent_cancel`, { correlation_id: "c-queued" });
    expect(again.json.ok).toBe(false);
    expect(again.json.error).toMatch(/No queued or processing job/);
    expect(callbacks.attempts).toBe(0);
  });

  it("cancels a running job and aborts its model call", async () => {
    const model = await createFakeModelServer({ respond: { delayMs: 60_000 } });
    cleanups.push(() => model.close());
    const callbacks = await receiver();
    const running = await service({ ...model.environment("openai"), MAX_RETRIES: "0" });
    const accepted = await postJson(`${running.url}/agent_intent_async`, {
      goal_text: "find x",
      callback_url: callbacks.url,
      correlation_id: "c-running",
    });
    await eventually(() => (model.requests.length > 0 ? true : undefined), 30_000, "the model call");
    expect((await jobStatus(running, accepted.json.job_id)).status).toBe("processing");
    const started = Date.now();
    const canceled = await postJson(`${running.url}/agent_intent_cancel`, { correlation_id: "c-running" });
    expect(canceled.json.ok).toBe(true);
    // The worker slot frees long before the model would have answered (60 s; 20 s leaves room for a loaded machine).
    await eventually(() => (running.service.pool?.runningJobs === 0 ? true : undefined), 20_000, "the aborted job");
    expect(Date.now() - started).toBeLessThan(20_000);
    await running.service.telemetry.flush();
    const aborted = await running.service.store.reasoningLogs.list({ event: "job.aborted" });
    expect(aborted[0]?.data).toMatchObject({ reason: "canceled", was_running: true });
    expect((await jobStatus(running, accepted.json.job_id)).status).toBe("canceled");
    expect(callbacks.attempts).toBe(0);
  });
});

describe("durability", () => {
  it("processes a job accepted before a restart", async () => {
    const directory = temporaryDirectory();
    cleanups.push(() => directory.remove());
    const database = join(directory.path, "deliberate.db");
    const callbacks = await receiver();

    const first = await startService({
      DATABASE_PATH: database,
      REASONING_QUEUE_WORKER: "0",
      REASONING_CALLBACK_ALLOWLIST: "127.0.0.1",
    });
    const accepted = await postJson(`${first.url}/agent_intent_async`, {
      goal_text: "find the queue",
      callback_url: callbacks.url,
      correlation_id: "c-restart",
    });
    expect(accepted.status).toBe(202);
    await first.stop();
    expect(callbacks.attempts).toBe(0);

    const second = await service({ DATABASE_PATH: database });
    const callback = await eventually(() => callbacks.received[0], 30_000, "the callback after restart");
    expect(callback.body).toMatchObject({ job_id: accepted.json.job_id, correlation_id: "c-restart", status: "ok" });
    expect((await jobStatus(second, accepted.json.job_id)).status).toBe("done");
  });

  it("a shutdown hands a callback waiting out a retry delay back at once, and the next process delivers it once", async () => {
    const directory = temporaryDirectory();
    cleanups.push(() => directory.remove());
    const database = join(directory.path, "deliberate.db");
    // The first attempt fails; the retry waits a minute: the drain must not wait for it (nor the 60 s grace).
    const callbacks = await receiver((_callback, index) => (index === 0 ? 503 : 200));
    const first = await startService({
      DATABASE_PATH: database,
      REASONING_CALLBACK_ALLOWLIST: "127.0.0.1",
      REASONING_CALLBACK_BACKOFF_MS: "60000",
      REASONING_SHUTDOWN_GRACE_MS: "60000",
    });
    const accepted = await postJson(`${first.url}/agent_intent_async`, {
      goal_text: "find the drain",
      callback_url: callbacks.url,
      correlation_id: "c-drain",
    });
    await eventually(() => (callbacks.attempts === 1 ? true : undefined), 30_000, "the failed first attempt");
    await eventually(
      async () => ((await jobStatus(first, accepted.json.job_id)).callback.attempts === 1 ? true : undefined),
      30_000,
      "the attempt to be recorded",
    );
    await first.stop();
    const drained = first.logs.map((line) => JSON.parse(line)).find((entry) => entry.message === "queue drained");
    expect(drained).toMatchObject({ within_grace: true, jobs_requeued: 0, deliveries_interrupted: 0 });

    const second = await service({ DATABASE_PATH: database });
    const callback = await eventually(() => callbacks.received[0], 30_000, "the handed-back callback");
    expect(callback.body).toMatchObject({ job_id: accepted.json.job_id, correlation_id: "c-drain", status: "ok" });
    const job = await eventually(async () => {
      const view = await jobStatus(second, accepted.json.job_id);
      return view.callback.status === "delivered" ? view : undefined;
    });
    expect(job.callback).toMatchObject({ status: "delivered", attempts: 2 });
    expect(callbacks.received).toHaveLength(1);
  });

  it("a job that finishes while the process drains delivers its callback before the process stops", async () => {
    let release: (() => void) | undefined;
    const answered = new Promise<void>((resolve) => (release = resolve));
    const model = await createFakeModelServer({
      respond: async () => {
        await answered;
        return {
          object: {
            reasoning: "Search.",
            tool_name: "context.fts_search",
            tool_args: { query: "drain" },
            final_text: "",
          },
        };
      },
    });
    cleanups.push(() => model.close());
    const callbacks = await receiver();
    const running = await startService({
      ...model.environment("openai"),
      MAX_RETRIES: "0",
      REASONING_CALLBACK_ALLOWLIST: "127.0.0.1",
      REASONING_SHUTDOWN_GRACE_MS: "60000",
    });
    const accepted = await postJson(`${running.url}/agent_intent_async`, {
      goal_text: "find the drain",
      callback_url: callbacks.url,
      correlation_id: "c-finish-in-drain",
    });
    await eventually(() => (model.requests.length > 0 ? true : undefined), 30_000, "the model call");
    const stopped = running.stop();
    await eventually(
      () => (running.logs.some((line) => line.includes('"queue draining"')) ? true : undefined),
      30_000,
      "the drain",
    );
    release?.();
    await stopped;
    // Before: a job finishing during shutdown left its callback for the next process (after its lease lapsed).
    expect(callbacks.received.map((callback) => callback.body.job_id)).toEqual([accepted.json.job_id]);
    const drained = running.logs.map((line) => JSON.parse(line)).find((entry) => entry.message === "queue drained");
    expect(drained).toMatchObject({ within_grace: true, jobs_requeued: 0, deliveries_interrupted: 0 });
  });

  it("a drain longer than a lease keeps renewing it: another process never takes the draining job over", {
    timeout: 120_000,
  }, async () => {
    const directory = temporaryDirectory();
    cleanups.push(() => directory.remove());
    const database = join(directory.path, "deliberate.db");
    let release: (() => void) | undefined;
    const answered = new Promise<void>((resolve) => (release = resolve));
    // The model answers only when the test says so: the job runs through the first process's drain.
    const model = await createFakeModelServer({
      respond: async () => {
        await answered;
        return {
          object: {
            reasoning: "Search.",
            tool_name: "context.fts_search",
            tool_args: { query: "drain" },
            final_text: "",
          },
        };
      },
    });
    cleanups.push(() => model.close());
    const callbacks = await receiver();
    // A lease long enough that a loaded machine's timer delays cannot let it lapse between two heartbeats.
    const leaseMs = 1_500;
    const lease = {
      REASONING_QUEUE_LEASE_MS: String(leaseMs),
      REASONING_QUEUE_POLL_MS: "50",
      REASONING_CALLBACK_ALLOWLIST: "127.0.0.1",
    };
    const first = await startService({
      ...model.environment("openai"),
      MAX_RETRIES: "0",
      DATABASE_PATH: database,
      REASONING_SHUTDOWN_GRACE_MS: "60000",
      ...lease,
    });
    const accepted = await postJson(`${first.url}/agent_intent_async`, {
      goal_text: "find the drain",
      callback_url: callbacks.url,
      correlation_id: "c-long-drain",
    });
    await eventually(() => (model.requests.length > 0 ? true : undefined), 30_000, "the model call");
    const stopped = first.stop();
    await eventually(
      () => (first.logs.some((line) => line.includes('"queue draining"')) ? true : undefined),
      30_000,
      "the drain",
    );
    // Another process on the same database recovers expired leases; the drain outlasts four leases
    // (the lease keeps moving: without the heartbeat it would lapse and the second process would run the job again).
    const second = await service({ DATABASE_PATH: database, ...lease });
    const atDrain = Date.parse((await second.service.store.jobs.get(accepted.json.job_id)).lease_expires_at ?? "");
    const held = await eventually(
      async () => {
        const job = await second.service.store.jobs.get(accepted.json.job_id);
        return Date.parse(job.lease_expires_at ?? "") > atDrain + 4 * leaseMs ? job : undefined;
      },
      60_000,
      "the draining process to renew its lease four leases on",
    );
    expect(held).toMatchObject({ status: "processing", attempts: 1 });
    expect(held.owner).not.toBe(null);
    release?.();
    await stopped;
    const callback = await eventually(() => callbacks.received[0], 30_000, "the callback");
    expect(callback.body).toMatchObject({ job_id: accepted.json.job_id, decided_by: "model", status: "ok" });
    const job = await eventually(async () => {
      const view = await jobStatus(second, accepted.json.job_id);
      return view.callback.status === "delivered" ? view : undefined;
    });
    expect(job).toMatchObject({ status: "done", attempts: 1 });
    await second.service.telemetry.flush();
    expect(await second.service.store.reasoningLogs.list({ event: "job.requeued" })).toEqual([]);
    expect(callbacks.received).toHaveLength(1);
  });

  it("takes back a job whose worker died mid-way (lease expired) and runs it", async () => {
    const directory = temporaryDirectory();
    cleanups.push(() => directory.remove());
    const database = join(directory.path, "deliberate.db");
    const callbacks = await receiver();
    // A process that claimed the job and then died: its lease has run out.
    const store = await openStore<ApiRepositories>({
      ...(await databaseOptions(database)),
      modules: [reasoningModule, agentIntentModule],
    });
    await store.jobs.enqueue({
      id: "job_orphan",
      type: "agent_intent",
      correlation_id: "c-orphan",
      payload: { goal_text: "find orphans" },
      callback_url: callbacks.url,
      max_attempts: 3,
      now: new Date().toISOString(),
    });
    await store.jobs.claimNext({
      owner: "dead-process",
      now: new Date().toISOString(),
      leaseUntil: new Date(Date.now() + 200).toISOString(),
    });
    await store.close();

    const running = await service({ DATABASE_PATH: database, REASONING_QUEUE_LEASE_MS: "300" });
    const callback = await eventually(() => callbacks.received[0], 30_000, "the recovered job's callback");
    expect(callback.body).toMatchObject({ job_id: "job_orphan", correlation_id: "c-orphan", status: "ok" });
    const job = await jobStatus(running, "job_orphan");
    expect(job).toMatchObject({ status: "done", attempts: 2 });
  });

  it("never runs a job twice when several replicas share the database", async () => {
    const directory = temporaryDirectory();
    cleanups.push(() => directory.remove());
    const database = join(directory.path, "deliberate.db");
    const callbacks = await receiver();
    const replicas = [await service({ DATABASE_PATH: database, REASONING_QUEUE_WORKER: "0" })];
    const jobIds: string[] = [];
    for (let index = 0; index < 24; index += 1) {
      const accepted = await postJson(`${replicas[0]?.url}/agent_intent_async`, {
        goal_text: `find item ${index}`,
        callback_url: callbacks.url,
      });
      jobIds.push(accepted.json.job_id);
    }
    replicas.push(await service({ DATABASE_PATH: database, REASONING_QUEUE_WORKERS: "3" }));
    replicas.push(await service({ DATABASE_PATH: database, REASONING_QUEUE_WORKERS: "3" }));
    await eventually(() => (callbacks.received.length >= 24 ? true : undefined), 60_000, "every callback");
    await new Promise((resolve) => setTimeout(resolve, 200));
    const delivered = callbacks.received.map((callback) => callback.body.job_id as string);
    expect(delivered.sort()).toEqual([...jobIds].sort());
    const claims = await replicas[0]!.service.store.db
      .withTables<ApiTables>()
      .selectFrom("reasoning_queue")
      .select(["id", "attempts", "owner"])
      .execute();
    expect(claims.every((row) => row.attempts === 1)).toBe(true);
  }, 120_000);
});
