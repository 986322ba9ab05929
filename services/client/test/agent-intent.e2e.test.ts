import { createServer, type Server } from "node:http";
import { type AddressInfo, connect, createServer as createNetServer, type Socket } from "node:net";
import { join } from "node:path";
import { createFileOutbox } from "../src/node.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AgentIntentResponse, createAgentIntentClient, DeliberateClientError } from "../src/index.ts";
import { type ServiceProcess, startApi, temporaryDirectory } from "./support/services.ts";

// The agent-intent client against the built deliberate-api (no model key: the documented
// heuristic decides), with the Ruby client's features: sync and async decisions, callbacks and
// polling, cancel, workflows, health, tool validation, Accept-Version, the bearer token, retries
// honouring Retry-After, per-call timeouts, configuration from the environment.

const directory = temporaryDirectory();
let api: ServiceProcess;
let guarded: ServiceProcess;
let limited: ServiceProcess;
let receiver: Server;
let callbackUrl: string;
const callbacks: Array<Record<string, unknown>> = [];
const token = "correct-horse-battery-staple";

const search = {
  name: "context.fts_search",
  description: "Full-text search",
  input_schema: { type: "object", properties: { query: { type: "string" } }, required: ["query"] },
};

beforeAll(async () => {
  receiver = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk) => (body += chunk));
    request.on("end", () => {
      callbacks.push(JSON.parse(body) as Record<string, unknown>);
      response.writeHead(200).end("ok");
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  callbackUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/callback`;
  [api, guarded, limited] = await Promise.all([
    startApi(join(directory.path, "api.db")),
    startApi(join(directory.path, "guarded.db"), { REASONING_API_TOKEN: token, REASONING_QUEUE_WORKER: "0" }),
    startApi(join(directory.path, "limited.db"), {
      REASONING_API_RATE_LIMIT: "1",
      REASONING_API_RATE_WINDOW_MS: "4000",
    }),
  ]);
});
afterAll(async () => {
  await Promise.all([api, guarded, limited].map((service) => service?.stop()));
  receiver?.closeAllConnections();
  await new Promise((resolve) => receiver?.close(resolve));
  directory.remove();
});

async function failureOf(promise: Promise<unknown>): Promise<DeliberateClientError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!DeliberateClientError.isInstance(error)) throw new Error(`expected a client error, got ${String(error)}`);
  return error;
}

describe("agentIntent", () => {
  it("decides the next action, typed and checked against the offered tools", async () => {
    const intents = createAgentIntentClient({ baseUrl: api.url, env: {} });
    const intent = await intents.agentIntent({
      session_id: "s1",
      persona: { name: "savant-engineer" },
      goal_text: "Find auth logic",
      history: [],
      tools: [search],
    });
    expect(intent).toMatchObject({
      status: "ok",
      finish: false,
      tool_name: "context.fts_search",
      decided_by: "heuristic",
    });
    expect(intent.tool_args).toEqual({ query: "Find auth logic" });
    const done = await intents.agentIntent({ goal_text: "Find auth logic", max_steps: 1, history: ["searched once"] });
    expect(done).toMatchObject({ finish: true, tool_name: null });
  });

  it("reads REASONING_API_URL and the other settings from the environment", async () => {
    const intents = createAgentIntentClient({
      env: {
        REASONING_API_URL: api.url,
        REASONING_API_TIMEOUT_MS: "20000",
        REASONING_API_RETRIES: "1",
        REASONING_API_VERSION: "v1",
      },
    });
    expect(intents.connection).toMatchObject({ baseUrl: api.url, timeoutMs: 20_000, retries: 1, version: "v1" });
    expect(await intents.health()).toEqual({ status: "ok" });
  });

  it("refuses a decision naming a tool the host did not offer, or arguments failing its schema", async () => {
    // The request offers nothing, so the service decides among its default (context.fts_search),
    // which this host cannot run.
    const readOnly = createAgentIntentClient({ baseUrl: api.url, env: {}, availableTools: ["fs.read_file"] });
    const notOffered = await failureOf(readOnly.agentIntent({ goal_text: "Find auth logic" }));
    expect(notOffered.code).toBe("INTENT_VALIDATION");
    expect(notOffered.issues).toEqual([{ field: "tool_name", message: "'context.fts_search' was not offered" }]);

    const strict = createAgentIntentClient({
      baseUrl: api.url,
      env: {},
      availableTools: [
        {
          name: "context.fts_search",
          input_schema: {
            type: "object",
            properties: { query: { type: "string" }, limit: { type: "integer" } },
            required: ["query", "limit"],
          },
        },
      ],
    });
    const badArguments = await failureOf(strict.agentIntent({ goal_text: "Find auth logic" }));
    expect(badArguments.code).toBe("INTENT_VALIDATION");
    expect(badArguments.issues.map((issue) => issue.field)).toEqual(["tool_args.limit"]);
    // The check can be turned off per call.
    expect((await strict.agentIntent({ goal_text: "Find auth logic" }, { validateTools: false })).tool_name).toBe(
      "context.fts_search",
    );
  });

  it("validates the request before sending it", async () => {
    const intents = createAgentIntentClient({ baseUrl: "http://127.0.0.1:1", env: {}, retries: 0 });
    const error = await failureOf(intents.agentIntent({ goal_text: "x", max_steps: 0 }));
    expect(error.code).toBe("INVALID_INPUT");
    expect(error.issues.map((issue) => issue.field)).toEqual(["max_steps"]);
  });
});

describe("agentIntentAsync, jobs and cancel", () => {
  it("queues a decision: the service calls back, and wait() polls the same result", async () => {
    const intents = createAgentIntentClient({ baseUrl: api.url, env: {}, pollIntervalMs: 50 });
    const accepted = await intents.agentIntentAsync({
      goal_text: "List Makefile targets",
      callback_url: callbackUrl,
      correlation_id: "run-42",
      tools: [search],
    });
    expect(accepted).toMatchObject({ status: "accepted", correlation_id: "run-42" });
    const result = await accepted.wait({ timeoutMs: 30_000 });
    expect(result).toMatchObject({ finish: false, tool_name: "context.fts_search" });
    const job = await accepted.job();
    expect(job.status).toBe("done");
    await expect
      .poll(() => callbacks.find((callback) => callback["job_id"] === accepted.job_id), { timeout: 30_000 })
      .toMatchObject({ correlation_id: "run-42", tool_name: "context.fts_search" });
  });

  it("hands the result to an onResult callback", async () => {
    const intents = createAgentIntentClient({ baseUrl: api.url, env: {}, pollIntervalMs: 50 });
    const delivered = new Promise<AgentIntentResponse | DeliberateClientError>((resolve) => {
      void intents.agentIntentAsync(
        { goal_text: "Find auth logic", callback_url: callbackUrl, tools: [search] },
        { onResult: (result) => resolve(result) },
      );
    });
    expect(await delivered).toMatchObject({ tool_name: "context.fts_search" });
  });

  it("cancels a queued job by its correlation id (an idempotency key); waiting on it then fails with CANCELLED", async () => {
    const intents = createAgentIntentClient({ baseUrl: guarded.url, token, env: {}, pollIntervalMs: 50 });
    const first = await intents.agentIntentAsync({
      goal_text: "a",
      callback_url: callbackUrl,
      correlation_id: "batch-7",
    });
    // The same request under the same correlation id is the same job; another request under it is refused.
    const again = await intents.agentIntentAsync({
      goal_text: "a",
      callback_url: callbackUrl,
      correlation_id: "batch-7",
    });
    expect(again.job_id).toBe(first.job_id);
    expect(
      (
        await failureOf(
          intents.agentIntentAsync({ goal_text: "b", callback_url: callbackUrl, correlation_id: "batch-7" }),
        )
      ).code,
    ).toBe("CONFLICT");
    const canceled = await intents.cancel("batch-7");
    expect(canceled.ok).toBe(true);
    expect([...canceled.canceled]).toEqual([first.job_id]);
    expect((await failureOf(first.wait({ timeoutMs: 10_000 }))).code).toBe("CANCELLED");
    expect(await intents.cancel({ job_id: first.job_id as string })).toMatchObject({ ok: false, canceled: [] });
    expect((await failureOf(intents.agentIntentAsync({ goal_text: "no callback" } as never))).code).toBe(
      "INVALID_INPUT",
    );
  });
});

describe("the queue fallback against the real service", () => {
  it("keeps async intents while the API is away, across a restart of the host, and delivers each once when it returns", async () => {
    // A loopback proxy in front of deliberate-api: "down" drops every connection, "up" passes them through.
    let up = false;
    const sockets = new Set<Socket>();
    const proxy = createNetServer((socket) => {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
      if (!up) {
        socket.destroy();
        return;
      }
      const upstream = connect(Number(new URL(api.url).port), "127.0.0.1");
      socket.pipe(upstream).pipe(socket);
      upstream.on("error", () => socket.destroy());
      socket.on("error", () => upstream.destroy());
    });
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
    const baseUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    const outboxDirectory = join(directory.path, "outbox");
    const ids = ["outage-1", "outage-2", "outage-3"];
    try {
      const before = createAgentIntentClient({
        baseUrl,
        env: {},
        retries: 0,
        outbox: createFileOutbox({ directory: outboxDirectory }),
        outboxRetryMs: 60_000,
      });
      for (const id of ids) {
        const handle = await before.agentIntentAsync({
          goal_text: `Find ${id}`,
          callback_url: callbackUrl,
          correlation_id: id,
          tools: [search],
        });
        expect(handle).toMatchObject({ status: "queued", correlation_id: id, reason: { code: "CONNECTION_FAILED" } });
      }
      expect((await before.outbox?.pending())?.map((entry) => entry.id)).toEqual(ids);
      // The host restarts: its memory is gone, the outbox folder stays.
      before.outbox?.close();
      up = true;
      const delivered: string[] = [];
      const after = createAgentIntentClient({
        baseUrl,
        env: {},
        outbox: createFileOutbox({ directory: outboxDirectory }),
        onOutboxDelivered: (entry) => delivered.push(entry.id),
      });
      await expect.poll(() => delivered.length, { timeout: 30_000 }).toBe(3);
      expect([...delivered].sort()).toEqual(ids);
      expect(await after.outbox?.pending()).toEqual([]);
      // The service decided each and called back, once per intent.
      await expect
        .poll(() => ids.map((id) => callbacks.filter((callback) => callback["correlation_id"] === id).length), {
          timeout: 30_000,
        })
        .toEqual([1, 1, 1]);
      expect(callbacks.find((callback) => callback["correlation_id"] === "outage-2")).toMatchObject({
        tool_name: "context.fts_search",
        tool_args: { query: "Find outage-2" },
      });
      after.outbox?.close();
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => proxy.close(resolve));
    }
  });
});

describe("workflows and health", () => {
  it("walks a guided workflow", async () => {
    const intents = createAgentIntentClient({ baseUrl: api.url, env: {} });
    const workflows = await intents.workflows();
    expect(workflows.map((workflow) => workflow.name)).toContain("chain_of_thought");
    const start = await intents.workflowIntent({
      run_id: "r1",
      workflow_name: "chain_of_thought",
      params: { problem: "Build an auth system" },
    });
    expect(start).toMatchObject({ action_type: "submit_thought", finish: false });
    expect(start.next_node).toMatch(/\S/);
    const next = await intents.workflowIntent({
      run_id: "r1",
      workflow_name: "chain_of_thought",
      current_node: start.next_node,
      params: { problem: "Build an auth system" },
      outputs: { [start.save_as ?? "answer"]: "1. users 2. tokens 3. middleware" },
    });
    expect(next.step_number).toBe((start.step_number ?? 0) + 1);
  });

  it("reports an unreachable service as CONNECTION_FAILED", async () => {
    const intents = createAgentIntentClient({ baseUrl: "http://127.0.0.1:1", env: {}, retries: 1, backoffMs: 1 });
    expect((await failureOf(intents.health())).code).toBe("CONNECTION_FAILED");
  });
});

describe("headers, retries and timeouts", () => {
  it("sends the bearer token; without it the service refuses with UNAUTHORIZED (health stays public)", async () => {
    const anonymous = createAgentIntentClient({ baseUrl: guarded.url, env: {} });
    expect(await anonymous.health()).toEqual({ status: "ok" });
    const refused = await failureOf(anonymous.agentIntent({ goal_text: "x" }));
    expect(refused).toMatchObject({ code: "UNAUTHORIZED", status: 401 });
    const fromEnvironment = createAgentIntentClient({ baseUrl: guarded.url, env: { REASONING_API_TOKEN: token } });
    expect((await fromEnvironment.agentIntent({ goal_text: "Find auth logic" })).status).toBe("ok");
  });

  it("sends Accept-Version: an unsupported one is refused", async () => {
    const future = createAgentIntentClient({ baseUrl: api.url, env: {}, version: "v9" });
    expect(await failureOf(future.agentIntent({ goal_text: "x" }))).toMatchObject({
      code: "UNSUPPORTED_VERSION",
      status: 400,
    });
  });

  it("waits out a 429 for the Retry-After the service sends, then succeeds", async () => {
    let requests = 0;
    const counting: typeof fetch = (input, init) => {
      requests += 1;
      return fetch(input, init);
    };
    const impatient = createAgentIntentClient({ baseUrl: limited.url, env: {}, retries: 0, fetch: counting });
    const patient = createAgentIntentClient({ baseUrl: limited.url, env: {}, retries: 2, fetch: counting });
    await impatient.agentIntent({ goal_text: "first of the window" });
    const limitedError = await failureOf(impatient.agentIntent({ goal_text: "second of the window" }));
    expect(limitedError).toMatchObject({ code: "RATE_LIMITED", status: 429, retryable: true });
    requests = 0;
    expect((await patient.agentIntent({ goal_text: "Find auth logic" })).status).toBe("ok");
    expect(requests).toBeGreaterThanOrEqual(2);
  });

  it("gives up on a service that stops answering after the call's timeout", async () => {
    const intents = createAgentIntentClient({ baseUrl: guarded.url, token, env: {}, retries: 0 });
    guarded.pause();
    try {
      const error = await failureOf(intents.agentIntent({ goal_text: "x" }, { timeoutMs: 500 }));
      expect(error).toMatchObject({ code: "TIMEOUT", retryable: true });
    } finally {
      guarded.resume();
    }
    expect(await intents.health()).toEqual({ status: "ok" });
  });
});
