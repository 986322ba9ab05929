import { join } from "node:path";
import {
  type DialogPresetName,
  dialogPresetNameSchema,
  needsCompletionSchema,
  createHostContext,
  expandNeedsCompletion,
} from "@deliberate/contracts";
import { answerDialogPrompt, type DialogPrompt, type DialogScript } from "@deliberate/dialog/testing";
import { createFakeModelServer, type FakeModelServer } from "@deliberate/providers/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  expectOutput,
  expectToolError,
  startStdioServer,
  type StdioServer,
  temporaryDirectory,
} from "./support/server-process.ts";

// The dialog module's "Done means", through the built server and the SDK's real client:
// every preset to threshold_met (reviewer scores rise), to max_iterations (they don't) and
// to a token budget, with a server-side model (the fake model server), with no key
// (needs_completion rounds) and with MCP sampling; a custom-agent debate; a restart in
// the middle of a session; bad input that writes nothing; progress and cancellation.

const directory = temporaryDirectory();
const servers: StdioServer[] = [];
let fake: FakeModelServer;

/** The topic decides how the scripted reviewers score: "rising ..." climbs 0.45, 0.65, 0.85; anything else stays at 0.5. */
function scriptFor(prompt: DialogPrompt): DialogScript {
  const topic = /# Topic\n(.*)/.exec(prompt.user)?.[1] ?? "";
  return { reviewerScore: (turn) => (topic.startsWith("rising") ? 0.45 + 0.2 * turn.iteration : 0.5) };
}

function answer(prompt: DialogPrompt): Record<string, unknown> {
  return answerDialogPrompt(prompt, scriptFor(prompt));
}

beforeAll(async () => {
  fake = await createFakeModelServer({
    respond: (request) => {
      const prompt = {
        schemaName: request.schemaName ?? "",
        system: request.system,
        user: request.prompt,
        jsonSchema: request.jsonSchema ?? {},
      };
      // A slow topic lets a test cancel an exchange in flight.
      return { object: answer(prompt), ...(request.prompt.includes("# Topic\nslow") ? { delayMs: 1_500 } : {}) };
    },
  });
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});
afterAll(async () => {
  await Promise.all([...shared.values()].map(async (server) => (await server).close()));
  await fake?.close();
  directory.remove();
});

async function start(
  env: Record<string, string>,
  clientOptions?: Parameters<typeof startStdioServer>[1],
): Promise<StdioServer> {
  const server = await startStdioServer(env, clientOptions);
  servers.push(server);
  return server;
}

/**
 * One server for every preset of a group (their sessions are apart by id): a server per preset cost a
 * spawn and a migration each. Closed after the file.
 */
const shared = new Map<string, Promise<StdioServer>>();
function sharedServer(group: string, env: () => Record<string, string>): Promise<StdioServer> {
  let server = shared.get(group);
  if (!server) {
    server = startStdioServer(env());
    shared.set(group, server);
  }
  return server;
}

/** The server-side-model server the tests that need no settings or restart of their own share (each in its own sessions). */
const serverSide = () =>
  sharedServer("server", () => ({
    DATABASE_PATH: join(directory.path, "server-presets.db"),
    ...fake.environment("openai"),
  }));

type Structured = Record<string, unknown>;

/**
 * Calls a tool and checks its result: a needs_completion step, or the tool's own output
 * (for reasoning_submit, the output of the exchange it resumed).
 */
async function call(
  server: StdioServer,
  name: string,
  args: Record<string, unknown>,
  options?: Parameters<StdioServer["client"]["callTool"]>[1],
): Promise<Structured> {
  const result = await server.client.callTool({ name, arguments: args }, options);
  const structured = result.structuredContent as Structured | undefined;
  if (!result.isError && structured?.["status"] === "needs_completion") return needsCompletionSchema.parse(structured);
  return expectOutput(name === "reasoning_submit" ? "run_reasoning_exchange" : name, result);
}

/** Runs one exchange, answering needs_completion rounds as the calling agent; returns the result and the prompts per round. */
async function exchange(server: StdioServer, sessionId: string): Promise<{ result: Structured; rounds: number[] }> {
  let result = await call(server, "run_reasoning_exchange", { session_id: sessionId });
  const rounds: number[] = [];
  const known = createHostContext();
  while (result["status"] === "needs_completion") {
    const step = needsCompletionSchema.parse(result);
    rounds.push(step.prompts.length);
    const answers = expandNeedsCompletion(step, known).map((prompt) => ({
      prompt_id: prompt.id,
      answer: answer({ schemaName: prompt.name, system: prompt.system, user: prompt.user, jsonSchema: prompt.schema }),
    }));
    result = await call(server, "reasoning_submit", { resume_token: step.resume_token, answers });
  }
  return { result, rounds };
}

/** Exchanges until the session stops; the statuses, and the tokens of the first iteration. */
async function runToEnd(server: StdioServer, sessionId: string) {
  const statuses: string[] = [];
  const scores: number[] = [];
  const rounds: number[][] = [];
  let firstIterationTokens = 0;
  for (;;) {
    const { result, rounds: used } = await exchange(server, sessionId);
    statuses.push(result["status"] as string);
    scores.push(result["quality_score"] as number);
    rounds.push(used);
    if (statuses.length === 1) firstIterationTokens = (result["quality"] as { tokens: number }).tokens;
    if (!result["should_continue"]) return { statuses, scores, rounds, firstIterationTokens };
    if (statuses.length > 10) throw new Error("the session never stopped");
  }
}

/** Every preset: rising scores to threshold_met, flat scores to max_iterations, and a token budget that stops it. */
async function runEveryPath(server: StdioServer, mode: DialogPresetName) {
  const start = (args: Record<string, unknown>) => call(server, "start_reasoning_session", { mode, ...args });
  const rising = await start({ topic: `rising ${mode}`, maxIterations: 5, qualityThreshold: 0.8 });
  const risingRun = await runToEnd(server, rising["session_id"] as string);
  expect(risingRun.statuses).toEqual(["in_progress", "in_progress", "threshold_met"]);
  expect(risingRun.scores).toEqual([0.45, 0.65, 0.85].map((score) => expect.closeTo(score, 10)));

  const flat = await start({ topic: `flat ${mode}`, maxIterations: 3 });
  const flatRun = await runToEnd(server, flat["session_id"] as string);
  expect(flatRun.statuses).toEqual(["in_progress", "in_progress", "max_iterations"]);

  // Room for two iterations like the first, not three: it stops after the second.
  const budgeted = await start({
    topic: `flat budget ${mode}`,
    maxIterations: 10,
    tokenBudget: Math.floor(flatRun.firstIterationTokens * 2.5),
  });
  const budgetRun = await runToEnd(server, budgeted["session_id"] as string);
  expect(budgetRun.statuses).toEqual(["in_progress", "budget_exhausted"]);
  const status = await call(server, "get_session_status", { session_id: budgeted["session_id"] });
  expect(status).toMatchObject({ status: "completed", stop_reason: "budget_exhausted" });
  expect(status["tokens_used"] as number).toBeLessThanOrEqual(Math.floor(flatRun.firstIterationTokens * 2.5));

  const result = await call(server, "get_reasoning_result", { session_id: rising["session_id"], format: "structured" });
  expect(result).toMatchObject({
    status: "completed",
    stop_reason: "threshold_met",
    quality_metrics: { iterations: 3, final_quality: expect.closeTo(0.85, 10) },
  });
  return { rising: risingRun, flat: flatRun, budget: budgetRun };
}

describe("dialog sessions with a server-side model", () => {
  it.each(dialogPresetNameSchema.options)("%s: threshold_met, max_iterations and a token budget", async (mode) => {
    const server = await serverSide();
    await runEveryPath(server, mode);
  });

  it("lists the presets and runs a custom-agent debate, with progress per turn and one invocation per exchange", async () => {
    // The last progress notifications and the result can reach the client in one read; the test client
    // keeps their order (the SDK's own dropped that progress: see test/support/test-client.ts).
    const server = await serverSide();
    const { presets } = await call(server, "list_reasoning_presets", {});
    expect((presets as Array<{ name: string }>).map((preset) => preset.name)).toEqual(dialogPresetNameSchema.options);

    const agents = [
      {
        name: "advocate",
        role: "Microservices Advocate",
        systemPrompt: "You strongly advocate for microservices architecture.",
        temperature: 0.6,
      },
      {
        name: "skeptic",
        role: "Monolith Defender",
        systemPrompt: "You advocate for starting with a well-structured monolith.",
        temperature: 0.6,
      },
      {
        name: "synthesizer",
        role: "Decision Synthesizer",
        systemPrompt: "You synthesize a balanced recommendation.",
        temperature: "0.4",
      },
    ];
    const started = await call(server, "start_reasoning_session", {
      topic: "rising: microservices or monolith?",
      mode: "debate",
      agents,
      maxIterations: 4,
    });
    expect(started).toMatchObject({ status: "started", agents: ["advocate", "skeptic", "synthesizer"] });
    const sessionId = started["session_id"] as string;
    const progress: Array<{ progress: number; total?: number }> = [];
    const first = await call(
      server,
      "run_reasoning_exchange",
      { session_id: sessionId },
      { onprogress: (update) => void progress.push(update) },
    );
    expect(
      (first["exchanges"] as Array<{ agent: string; act: string }>).map((turn) => `${turn.agent}:${turn.act}`),
    ).toEqual(["advocate:produce", "skeptic:produce", "synthesizer:merge", "advocate:review", "skeptic:review"]);
    expect(progress.map((update) => [update.progress, update.total])).toEqual([1, 2, 3, 4, 5].map((done) => [done, 5]));
    const rest = await runToEnd(server, sessionId);
    expect(rest.statuses).toEqual(["in_progress", "threshold_met"]);
    // One invocation row per exchange, with the session, its model calls and tokens.
    const { invocations } = await call(server, "reasoning_metrics", {
      query: "invocations",
      tool_name: "run_reasoning_exchange",
      session_id: sessionId,
    });
    const rows = invocations as Array<{
      model_calls: number;
      input_tokens: number;
      output_tokens: number;
      quality: number | null;
      success: boolean;
    }>;
    expect(rows.map((row) => [row.success, row.model_calls])).toEqual([
      [true, 5],
      [true, 5],
      [true, 5],
    ]);
    expect(rows.every((row) => row.input_tokens > 0 && row.output_tokens > 0 && row.quality !== null)).toBe(true);

    // The session is a resource, with the Markdown transcript.
    const markdown = await server.client.readResource({ uri: `deliberate://sessions/${sessionId}/markdown` });
    const text = (markdown.contents[0] as { text: string }).text;
    expect(text).toContain("## Reasoning session");
    expect(text).toMatch(
      /### Iteration 0[\s\S]*#### advocate writes[\s\S]*#### synthesizer merges[\s\S]*### Iteration 2/,
    );
  });

  it("refuses bad input naming the field, and writes nothing", async () => {
    const server = await serverSide();
    const started = await call(server, "start_reasoning_session", { topic: "rising once", qualityThreshold: 0.4 });
    const sessionId = started["session_id"] as string;
    expect((await exchange(server, sessionId)).result["status"]).toBe("threshold_met");
    const before = await server.client.listResources();
    const finishedStatus = await call(server, "get_session_status", { session_id: sessionId });
    const startsBefore = (
      await call(server, "reasoning_metrics", { query: "by_mode", mode_name: "start_reasoning_session" })
    )["mode_stats"] as { call_count: number };

    const unknown = expectToolError(
      await server.client.callTool({ name: "run_reasoning_exchange", arguments: { session_id: "ses_unknown" } }),
    );
    expect([unknown.code, unknown.issues]).toEqual([
      "NOT_FOUND",
      [{ field: "session_id", message: "no reasoning session with id 'ses_unknown'" }],
    ]);
    const finished = expectToolError(
      await server.client.callTool({ name: "run_reasoning_exchange", arguments: { session_id: sessionId } }),
    );
    expect([finished.code, finished.issues?.[0]?.field]).toEqual(["CONFLICT", "session_id"]);
    const duplicate = expectToolError(
      await server.client.callTool({
        name: "start_reasoning_session",
        arguments: {
          topic: "t",
          agents: [
            { name: "a", role: "r", systemPrompt: "p" },
            { name: "a", role: "r", systemPrompt: "p" },
          ],
        },
      }),
    );
    expect([duplicate.code, duplicate.issues?.[0]?.field]).toEqual(["INVALID_INPUT", "agents.1.name"]);
    const single = expectToolError(
      await server.client.callTool({
        name: "start_reasoning_session",
        arguments: { topic: "t", agents: [{ name: "a", role: "r", systemPrompt: "p" }] },
      }),
    );
    expect([single.code, single.issues?.[0]?.field]).toEqual(["INVALID_INPUT", "agents"]);
    // Unknown keys are refused over MCP as over REST, naming the right spelling (the defaults would apply silently).
    const misspelt = expectToolError(
      await server.client.callTool({
        name: "start_reasoning_session",
        arguments: { topic: "t", max_iterations: 7, quality_threshold: 0.3 },
      }),
    );
    expect([misspelt.code, misspelt.issues]).toEqual([
      "INVALID_INPUT",
      [
        { field: "max_iterations", message: "unknown field 'max_iterations'; did you mean 'maxIterations'?" },
        { field: "quality_threshold", message: "unknown field 'quality_threshold'; did you mean 'qualityThreshold'?" },
      ],
    ]);

    expect((await server.client.listResources()).resources).toEqual(before.resources);
    expect(await call(server, "get_session_status", { session_id: sessionId })).toEqual(finishedStatus);
    // The refused starts are not counted (the server is shared: its count before them, not 1).
    const metrics = await call(server, "reasoning_metrics", { query: "by_mode", mode_name: "start_reasoning_session" });
    expect(startsBefore.call_count).toBeGreaterThanOrEqual(1);
    expect(metrics["mode_stats"]).toMatchObject({ call_count: startsBefore.call_count });
  });

  it("a restart in the middle of a session, then another exchange, continues it", async () => {
    const databasePath = join(directory.path, "restart.db");
    const before = await start({ DATABASE_PATH: databasePath, ...fake.environment("openai") });
    const started = await call(before, "start_reasoning_session", { topic: "rising restart", maxIterations: 4 });
    const sessionId = started["session_id"] as string;
    await exchange(before, sessionId);
    await before.close();

    fake.reset();
    const after = await start({ DATABASE_PATH: databasePath, ...fake.environment("openai") });
    const { result } = await exchange(after, sessionId);
    expect(result).toMatchObject({ iteration: 1, status: "in_progress" });
    expect(fake.requests[0]?.prompt).toContain("Written by think (produce) in iteration 0.");
    expect((await runToEnd(after, sessionId)).statuses).toEqual(["threshold_met"]);
  });

  it("cancels an exchange in flight, leaving the session as it was", async () => {
    const server = await serverSide();
    const started = await call(server, "start_reasoning_session", { topic: "slow topic" });
    const controller = new AbortController();
    const pending = server.client.callTool(
      { name: "run_reasoning_exchange", arguments: { session_id: started["session_id"] } },
      { signal: controller.signal },
    );
    // Cancel once the exchange is in flight (its model call reached the fake), however loaded the machine.
    const inFlight = () => fake.requests.some((request) => request.prompt.includes("# Topic\nslow"));
    for (const deadline = Date.now() + 60_000; !inFlight(); await new Promise((resolve) => setTimeout(resolve, 20))) {
      if (Date.now() > deadline) throw new Error("the exchange never reached the model");
    }
    controller.abort();
    await expect(pending).rejects.toThrow();
    // Past the moment the model would have answered: the server stopped, wrote no turn, and recorded the cancellation.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const status = await call(server, "get_session_status", { session_id: started["session_id"] });
    expect(status).toMatchObject({ status: "started", current_iteration: 0 });
    const { invocations } = await call(server, "reasoning_metrics", {
      query: "invocations",
      tool_name: "run_reasoning_exchange",
      session_id: started["session_id"],
    });
    expect(
      (invocations as Array<{ success: boolean; error_code: string | null }>).map((row) => [
        row.success,
        row.error_code,
      ]),
    ).toEqual([[false, "CANCELLED"]]);
  });
});

describe("dialog sessions with no key", () => {
  it.each(dialogPresetNameSchema.options)(
    "%s runs every path host-executed: one round per dependent step, independent turns together",
    async (mode) => {
      const server = await sharedServer("host", () => ({ DATABASE_PATH: join(directory.path, "host-presets.db") }));
      const runs = await runEveryPath(server, mode);
      const perIteration = mode === "synthesis" ? [2, 1, 2] : [1, 1];
      expect(runs.rising.rounds).toEqual([perIteration, perIteration, perIteration]);
    },
  );

  it("runs a session on the client's model through MCP sampling", async () => {
    const sampled: string[] = [];
    const server = await start(
      { DATABASE_PATH: join(directory.path, "sampling.db") },
      { capabilities: { sampling: {} } },
    );
    server.client.setRequestHandler("sampling/createMessage", async (request) => {
      const system = request.params.systemPrompt ?? "";
      const name = /\("([a-z_]+)"\):\n\n/.exec(system)?.[1] ?? "";
      const jsonSchema = JSON.parse(system.slice(system.lastIndexOf("\n\n") + 2)) as Record<string, unknown>;
      const user = request.params.messages
        .map((message) => (message.content as { text?: string }).text ?? "")
        .join("\n\n");
      sampled.push(name);
      return {
        model: "client-model",
        role: "assistant" as const,
        content: {
          type: "text" as const,
          text: JSON.stringify(answer({ schemaName: name, system, user, jsonSchema })),
        },
      };
    });
    const started = await call(server, "start_reasoning_session", { topic: "rising sampled", mode: "synthesis" });
    const run = await runToEnd(server, started["session_id"] as string);
    expect(run.statuses).toEqual(["in_progress", "in_progress", "threshold_met"]);
    expect(run.rounds).toEqual([[], [], []]);
    expect(sampled.slice(0, 5).sort()).toEqual([
      "dialog_document",
      "dialog_document",
      "dialog_merge",
      "dialog_review",
      "dialog_review",
    ]);
  });
});
