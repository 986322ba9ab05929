import { join } from "node:path";
import { createFakeModelServer, respondBySchemaName, type FakeModelServer } from "@deliberate/providers/testing";
import { type ReasoningRepositories, reasoningModule } from "@deliberate/reasoning";
import { testStorePlace } from "@deliberate/engine/testing";
import { openStore, type Store } from "@deliberate/store";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { answerBySchemaName, scriptedAnswers } from "./support/fake-answers.ts";
import {
  coreDefinitions,
  expectOutput,
  expectToolError,
  startStdioServer,
  temporaryDirectory,
  type StdioServer,
} from "./support/server-process.ts";

const directory = temporaryDirectory();
const servers: StdioServer[] = [];
const stores: Store<ReasoningRepositories>[] = [];
let fake: FakeModelServer;

beforeAll(async () => {
  fake = await createFakeModelServer({ respond: answerBySchemaName });
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
  await Promise.all(stores.splice(0).map((store) => store.close()));
});
afterAll(async () => {
  await (await shared)?.close();
  await fake?.close();
  directory.remove();
});

async function start(env: Record<string, string>): Promise<StdioServer> {
  const server = await startStdioServer(env);
  servers.push(server);
  return server;
}

/**
 * The server (fake OpenAI-compatible model, one retry) shared by the bad-input, model-failure and
 * cancellation tests: each seeds its own session and counts what changed from its own "before".
 */
const sharedDatabase = join(directory.path, "failures.db");
let shared: Promise<StdioServer> | undefined;
function sharedServer(): Promise<StdioServer> {
  shared ??= startStdioServer({
    DATABASE_PATH: sharedDatabase,
    OPENAI_BASE_URL: fake.openaiBaseURL,
    OPENAI_API_KEY: "test",
    MAX_RETRIES: "1",
  });
  return shared;
}

/** Opens the server's database from the test (WAL: several processes may share it). */
async function storeAt(path: string): Promise<Store<ReasoningRepositories>> {
  const store = await openStore<ReasoningRepositories>({ ...(await testStorePlace(path)), modules: [reasoningModule] });
  stores.push(store);
  return store;
}

/** What a call could have written, counted: `invocations` is the session's rows, `allInvocations` every row. */
async function footprint(store: Store<ReasoningRepositories>, sessionId: string) {
  return {
    sessions: (await store.sessions.list({ limit: 1000 })).length,
    thoughts: await store.thoughts.count(sessionId),
    branches: (await store.branches.listBySession(sessionId)).length,
    checkpoints: (await store.checkpoints.listBySession(sessionId)).length,
    invocations: (await store.invocations.list({ sessionId })).length,
    allInvocations: (await store.invocations.list({ limit: 100_000 })).length,
  };
}

/**
 * Waits until the session has `count` invocation rows. The server writes rows in batches after the
 * answer (milliseconds on a quiet machine, longer under load), in call order: once a call's row is
 * in, so is the row of every call before it.
 */
async function rowsIn(store: Store<ReasoningRepositories>, sessionId: string, count: number): Promise<void> {
  await until(async () => (await store.invocations.list({ sessionId })).length >= count);
}

/** A new session with one thought, its invocation row written (and so every earlier call's). */
async function seedSession(server: StdioServer, store: Store<ReasoningRepositories>): Promise<string> {
  const seeded = expectOutput(
    "reasoning_linear",
    await server.client.callTool({ name: "reasoning_linear", arguments: { content: "Seed thought." } }),
  );
  const sessionId = seeded["session_id"] as string;
  await rowsIn(store, sessionId, 1);
  return sessionId;
}

/** Resolves once `condition` holds, checking every 20 ms (the test's own timeout bounds the wait). */
async function until(condition: () => Promise<boolean>): Promise<void> {
  while (!(await condition())) await new Promise((resolve) => setTimeout(resolve, 20));
}

describe("bad input", () => {
  it("every tool answers isError INVALID_INPUT naming the field and how to fix it, and writes nothing", async () => {
    const databasePath = sharedDatabase;
    fake.setRespond(answerBySchemaName);
    const server = await sharedServer();
    const store = await storeAt(databasePath);
    const sessionId = await seedSession(server, store);

    const cases: Array<{ tool: string; arguments: Record<string, unknown>; fields: string[] }> = [
      {
        tool: "reasoning_linear",
        arguments: { content: "   ", confidence: "high" },
        fields: ["content", "confidence"],
      },
      { tool: "reasoning_linear", arguments: { content: "x", confidence: 1.5 }, fields: ["confidence"] },
      { tool: "reasoning_tree", arguments: { operation: "focus", session_id: sessionId }, fields: ["branch_id"] },
      {
        tool: "reasoning_tree",
        arguments: { operation: "create", content: "x", num_branches: "9" },
        fields: ["num_branches"],
      },
      {
        tool: "reasoning_divergent",
        arguments: { content: "x", num_perspectives: "many", force_rebellion: "yes" },
        fields: ["num_perspectives", "force_rebellion"],
      },
      { tool: "reasoning_reflection", arguments: { operation: "evaluate" }, fields: ["session_id"] },
      { tool: "reasoning_reflection", arguments: { operation: "process" }, fields: ["content"] },
      {
        tool: "reasoning_checkpoint",
        arguments: { operation: "restore", session_id: sessionId },
        fields: ["checkpoint_id"],
      },
      {
        tool: "reasoning_checkpoint",
        arguments: { operation: "rewind", session_id: sessionId },
        fields: ["operation"],
      },
      { tool: "reasoning_auto", arguments: { content: 42 }, fields: ["content"] },
    ];
    expect(new Set(cases.map((entry) => entry.tool))).toEqual(new Set(coreDefinitions.keys()));

    const before = await footprint(store, sessionId);
    const modelRequests = fake.requests.length;
    for (const entry of cases) {
      const body = expectToolError(await server.client.callTool({ name: entry.tool, arguments: entry.arguments }));
      expect(body.code, entry.tool).toBe("INVALID_INPUT");
      expect(
        body.issues?.map((issue) => issue.field).sort(),
        `${entry.tool} ${JSON.stringify(entry.arguments)}`,
      ).toEqual([...entry.fields].sort());
      for (const field of entry.fields) expect(body.message).toContain(field);
      expect(body.hint).toMatch(/fix the named fields/i);
    }
    // A valid call after them: once its row is in, any row the refused calls had queued would be too.
    expectOutput(
      "reasoning_checkpoint",
      await server.client.callTool({
        name: "reasoning_checkpoint",
        arguments: { operation: "list", session_id: sessionId },
      }),
    );
    await rowsIn(store, sessionId, before.invocations + 1);
    expect(await footprint(store, sessionId)).toEqual({
      ...before,
      invocations: before.invocations + 1,
      allInvocations: before.allInvocations + 1,
    });
    expect(fake.requests.length).toBe(modelRequests);
  });
});

describe("model failure", () => {
  it("a provider that keeps failing gives PROVIDER_UNAVAILABLE after the retries, and leaves the session as it was", async () => {
    const databasePath = sharedDatabase;
    fake.setRespond(answerBySchemaName);
    const server = await sharedServer();
    const store = await storeAt(databasePath);
    const sessionId = await seedSession(server, store);
    const before = await footprint(store, sessionId);

    // Perspectives succeed, the synthesis keeps failing: nothing may be half-written.
    fake.setRespond(
      respondBySchemaName({
        divergent_perspective: (request) => ({ object: scriptedAnswers["divergent_perspective"]?.(request) }),
        "*": { status: 500, message: "upstream overloaded", retryAfterMs: 1 },
      }),
    );
    fake.reset();
    const body = expectToolError(
      await server.client.callTool({
        name: "reasoning_divergent",
        arguments: { content: "Cut cost.", session_id: sessionId, num_perspectives: 2 },
      }),
    );
    expect(body).toMatchObject({ code: "PROVIDER_UNAVAILABLE", retryable: true });
    expect(body.message).toContain("500");
    const synthesisAttempts = fake.requests
      .filter((request) => request.schemaName === "divergent_synthesis")
      .map((request) => request.attempt);
    expect(synthesisAttempts).toEqual([0, 1]);

    await rowsIn(store, sessionId, before.invocations + 1);
    expect(await footprint(store, sessionId)).toEqual({
      ...before,
      invocations: before.invocations + 1,
      allInvocations: before.allInvocations + 1,
    });
    const [failure] = await store.invocations.list({ sessionId, limit: 1 });
    expect(failure).toMatchObject({
      tool: "reasoning_divergent",
      success: false,
      error_code: "PROVIDER_UNAVAILABLE",
      session_id: sessionId,
    });

    // A failing call that would have started a session creates none.
    expectToolError(await server.client.callTool({ name: "reasoning_linear", arguments: { content: "New topic." } }));
    expect((await store.sessions.list({ limit: 1000 })).length).toBe(before.sessions);

    // Once the provider recovers the same session carries on.
    fake.setRespond(answerBySchemaName);
    const resumed = expectOutput(
      "reasoning_linear",
      await server.client.callTool({
        name: "reasoning_linear",
        arguments: { content: "Carry on.", session_id: sessionId },
      }),
    );
    expect(resumed["session_id"]).toBe(sessionId);
    expect(await store.thoughts.count(sessionId)).toBe(before.thoughts + 2);
  });
});

describe("cancellation", () => {
  it("cancelling a call aborts the model request, records CANCELLED and writes nothing", async () => {
    const databasePath = sharedDatabase;
    fake.setRespond(answerBySchemaName);
    const server = await sharedServer();
    const store = await storeAt(databasePath);
    const sessionId = await seedSession(server, store);
    const before = await footprint(store, sessionId);

    // The model "thinks" for a minute; the test cancels as soon as the request arrives.
    let modelAsked: () => void = () => {};
    const asked = new Promise<void>((resolve) => (modelAsked = resolve));
    fake.setRespond(() => {
      modelAsked();
      return { delayMs: 60_000 };
    });
    const controller = new AbortController();
    const pending = server.client.callTool(
      { name: "reasoning_linear", arguments: { content: "Slow thought.", session_id: sessionId } },
      { signal: controller.signal },
    );
    await asked;
    controller.abort(new Error("stop"));
    await expect(pending).rejects.toThrow("stop");

    // The server records the cancelled invocation once the abort reaches it.
    await rowsIn(store, sessionId, before.invocations + 1);
    const invocations = await store.invocations.list({ sessionId });
    expect(invocations[0]).toMatchObject({ tool: "reasoning_linear", success: false, error_code: "CANCELLED" });
    expect(await footprint(store, sessionId)).toEqual({
      ...before,
      invocations: before.invocations + 1,
      allInvocations: before.allInvocations + 1,
    });

    fake.setRespond(answerBySchemaName);
    expectOutput(
      "reasoning_linear",
      await server.client.callTool({
        name: "reasoning_linear",
        arguments: { content: "Still alive.", session_id: sessionId },
      }),
    );
  });
});

describe("no provider configured", () => {
  it("starts, lists every tool, hands model-backed calls to the caller, and checkpoint still works", async () => {
    const databasePath = join(directory.path, "no-provider.db");
    const now = new Date().toISOString();
    const seed = await openStore<ReasoningRepositories>({
      ...(await testStorePlace(databasePath)),
      modules: [reasoningModule],
    });
    await seed.sessions.create({ id: "ses_seeded", mode: "linear", now });
    await seed.thoughts.append({
      id: "th_seeded_1",
      session_id: "ses_seeded",
      mode: "linear",
      content: "A thought from earlier.",
      created_at: now,
    });
    await seed.close();

    const server = await start({ DATABASE_PATH: databasePath });
    const { tools } = await server.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining([...coreDefinitions.keys()]));
    expect(server.stderr.some((line) => line.includes("No server-side model"))).toBe(true);

    const step = await server.client.callTool({ name: "reasoning_linear", arguments: { content: "Think." } });
    expect(step.isError).toBeFalsy();
    expect(step.structuredContent).toMatchObject({ status: "needs_completion", tool: "reasoning_linear" });

    const created = expectOutput(
      "reasoning_checkpoint",
      await server.client.callTool({
        name: "reasoning_checkpoint",
        arguments: { operation: "create", session_id: "ses_seeded", name: "start" },
      }),
    );
    const listed = expectOutput(
      "reasoning_checkpoint",
      await server.client.callTool({
        name: "reasoning_checkpoint",
        arguments: { operation: "list", session_id: "ses_seeded" },
      }),
    );
    expect(listed["checkpoints"]).toEqual([
      expect.objectContaining({ id: created["checkpoint_id"], name: "start", thought_count: 1 }),
    ]);
    const restored = expectOutput(
      "reasoning_checkpoint",
      await server.client.callTool({
        name: "reasoning_checkpoint",
        arguments: { operation: "restore", session_id: "ses_seeded", checkpoint_id: created["checkpoint_id"] },
      }),
    );
    expect(restored["restored_state"]).toMatchObject({ thought_count: 1, superseded_thought_count: 0 });
  });

  it("answers PROVIDER_NOT_CONFIGURED naming the variable when a provider is chosen without its key", async () => {
    const server = await start({
      DATABASE_PATH: join(directory.path, "missing-key.db"),
      DELIBERATE_PROVIDER: "anthropic",
    });
    const body = expectToolError(
      await server.client.callTool({ name: "reasoning_linear", arguments: { content: "Think." } }),
    );
    expect(body.code).toBe("PROVIDER_NOT_CONFIGURED");
    expect(`${body.message} ${body.hint ?? ""}`).toMatch(/ANTHROPIC_API_KEY/);
  });
});
