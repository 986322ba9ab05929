import { join } from "node:path";
import {
  needsCompletionSchema,
  type PendingPrompt,
  createHostContext,
  expandNeedsCompletion,
} from "@deliberate/contracts";
import { createFakeModelServer, type FakeModelRequest, type FakeModelServer } from "@deliberate/providers/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { scriptedAnswers } from "./support/fake-answers.ts";
import { respondAnalysis, respondStateful } from "./support/tool-answers.ts";
import {
  expectOutput,
  expectToolError,
  startStdioServer,
  temporaryDirectory,
  type StdioServer,
} from "./support/server-process.ts";

// No API key anywhere: model-backed tools either sample the client's model or hand their prompts to the caller.

const directory = temporaryDirectory();
const servers: StdioServer[] = [];
let fake: FakeModelServer;

/**
 * The same answer for the same prompt, whoever asks: the calling agent, sampling,
 * or a server-side model (the request index is pinned so answers depend on the prompt only).
 */
function answerFor(name: string, user: string, system: string, jsonSchema: Record<string, unknown> = {}): unknown {
  const request = { schemaName: name, prompt: user, system, index: 0, jsonSchema } as FakeModelRequest;
  if (scriptedAnswers[name]) return scriptedAnswers[name](request);
  for (const respond of [respondStateful, respondAnalysis]) {
    const reply = respond(request) as { object?: unknown; status?: number };
    if (reply.status === undefined && reply.object !== undefined) return reply.object;
  }
  throw new Error(`no scripted answer for ${name}`);
}

beforeAll(async () => {
  fake = await createFakeModelServer({
    respond: (request) => ({
      object: answerFor(request.schemaName ?? "", request.prompt, request.system, request.jsonSchema ?? {}),
    }),
  });
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});
afterAll(async () => {
  await (await shared)?.close();
  await fake?.close();
  directory.remove();
});

/**
 * One keyless server (no key, a client without sampling) shared by the tests that only need a session on
 * such a server; tests that need their own settings, a restart or a sampling client start their own.
 */
let shared: Promise<StdioServer> | undefined;
function sharedHost(): Promise<StdioServer> {
  shared ??= startStdioServer({ DATABASE_PATH: join(directory.path, "host.db") });
  return shared;
}

async function start(
  env: Record<string, string>,
  clientOptions?: Parameters<typeof startStdioServer>[1],
): Promise<StdioServer> {
  const server = await startStdioServer(env, clientOptions);
  servers.push(server);
  return server;
}

type Structured = Record<string, unknown>;

async function call(server: StdioServer, name: string, args: Record<string, unknown>): Promise<Structured> {
  const result = await server.client.callTool({ name, arguments: args });
  const text = (result.content as Array<{ text?: string }>)[0]?.text ?? "";
  expect(result.isError, `${name}: ${text}`).toBeFalsy();
  expect(JSON.parse(text)).toEqual(result.structuredContent);
  return result.structuredContent as Structured;
}

/** Acts as the calling agent: answers every needs_completion step until the tool's result arrives. */
async function drive(
  server: StdioServer,
  name: string,
  args: Record<string, unknown>,
): Promise<{ result: Structured; rounds: number; prompts: PendingPrompt[] }> {
  let result = await call(server, name, args);
  let rounds = 0;
  const prompts: PendingPrompt[] = [];
  const known = createHostContext();
  while (result["status"] === "needs_completion") {
    const step = needsCompletionSchema.parse(result);
    rounds += 1;
    const full = expandNeedsCompletion(step, known);
    prompts.push(...full);
    const answers = full.map((prompt) => ({
      prompt_id: prompt.id,
      answer: answerFor(prompt.name, prompt.user, prompt.system, prompt.schema),
    }));
    result = await call(server, "reasoning_submit", { resume_token: step.resume_token, answers });
  }
  return { result, rounds, prompts };
}

/** Ids and clock times differ between runs; everything else must not. */
const idPattern = /\b[a-z]{2,4}_[a-z0-9]{20}\b/g;
const timePattern = /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z\b/g;
function withoutIds(value: unknown): unknown {
  if (typeof value === "string") return value.replace(idPattern, "<id>").replace(timePattern, "<time>");
  if (Array.isArray(value)) return value.map(withoutIds);
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([key]) => key !== "duration_ms" && key !== "latency_ms")
        .map(([key, item]) => [key, withoutIds(item)]),
    );
  }
  return value;
}

/** Every model-backed tool and variant, with session-scoped calls after a seed thought. */
async function runScenario(run: (name: string, args: Record<string, unknown>) => Promise<Structured>) {
  const linear = await run("reasoning_linear", { content: "We must pick a database." });
  const sessionId = linear["session_id"] as string;
  const graph = await run("reasoning_graph", { operation: "init", content: "Cut CI time in half." });
  const graphSession = graph["session_id"] as string;
  const rootId = graph["node_id"] as string;
  const generated = await run("reasoning_graph", {
    operation: "generate",
    session_id: graphSession,
    node_id: rootId,
    k: 2,
  });
  const childIds = (generated["nodes"] as Array<{ id: string }>).map((node) => node.id);
  const timeline = await run("reasoning_timeline", { operation: "create", content: "Kickoff.\n\nLaunch in March." });
  const timelineId = timeline["timeline_id"] as string;
  const mainBranch = timeline["branch_id"] as string;
  const proposed = await run("reasoning_timeline", {
    operation: "branch",
    timeline_id: timelineId,
    parent_branch_id: mainBranch,
  });
  const causal_model = {
    variables: ["demand", "ads", "sales"],
    relationships: [
      { cause: "demand", effect: "ads", strength: 1 },
      { cause: "ads", effect: "sales", strength: 2 },
    ],
  };
  return {
    graph,
    generated,
    scored: await run("reasoning_graph", { operation: "score", session_id: graphSession, node_id: childIds[0] }),
    aggregated: await run("reasoning_graph", { operation: "aggregate", session_id: graphSession, node_ids: childIds }),
    refined: await run("reasoning_graph", { operation: "refine", session_id: graphSession, node_id: childIds[1] }),
    finalized: await run("reasoning_graph", { operation: "finalize", session_id: graphSession }),
    timeline,
    proposed,
    compared: await run("reasoning_timeline", {
      operation: "compare",
      timeline_id: timelineId,
      branch_ids: [mainBranch, proposed["branch_id"]],
    }),
    merged: await run("reasoning_timeline", {
      operation: "merge",
      timeline_id: timelineId,
      source_branch_id: proposed["branch_id"],
      target_branch_id: mainBranch,
    }),
    mcts: await run("reasoning_mcts", {
      operation: "explore",
      content: "Choose a caching strategy.",
      iterations: 3,
      branching_factor: 2,
    }),
    biases: await run("reasoning_detect", {
      type: "biases",
      content: "We already spent two years on this rewrite, so we cannot stop now. Our lead says it will work.",
    }),
    decision: await run("reasoning_decision", { question: "Which database?", options: ["Postgres", "SQLite"] }),
    pairwise: await run("reasoning_decision", {
      type: "pairwise",
      question: "How to commute?",
      options: ["rail", "bus", "car"],
    }),
    stakeholders: await run("reasoning_decision", {
      type: "perspectives",
      topic: "A new tram line",
      stakeholders: [{ name: "City council" }],
    }),
    evidence: await run("reasoning_evidence", {
      type: "probabilistic",
      hypothesis: "The key leaked",
      evidence: [
        { content: "Unknown logins", likelihood_if_true: 0.8, likelihood_if_false: 0.2 },
        { content: "A rumour" },
      ],
    }),
    assessment: await run("reasoning_evidence", {
      claim: "The bridge is unsafe",
      evidence: [
        {
          content: "Inspection report",
          source: "inspector",
          source_type: "primary",
          corroborated_by: [],
          chain_of_custody: "intact",
        },
        { content: "Forum post", source: "forum" },
      ],
    }),
    counterfactual: await run("reasoning_counterfactual", {
      scenario: "A shop",
      intervention: "More ads",
      causal_model,
      intervention_target: { variable: "ads", change: 1 },
      narrate: true,
    }),
    proposedModel: await run("reasoning_counterfactual", {
      scenario: "Remote work",
      intervention: "Two more remote days",
    }),
    preset: await run("reasoning_preset", {
      operation: "run",
      preset_id: "research-synthesis",
      inputs: {
        question: "How do teams adopt caching?",
        sources: [
          {
            content: "Inspection report",
            source: "inspector",
            source_type: "primary",
            corroborated_by: [],
            chain_of_custody: "intact",
          },
          { content: "Forum post", source: "forum" },
        ],
      },
    }),
    linear,
    tree: await run("reasoning_tree", { operation: "create", content: "Options for storage", num_branches: 3 }),
    divergent: await run("reasoning_divergent", {
      content: "Rethink onboarding",
      num_perspectives: 3,
      challenge_assumptions: true,
    }),
    reflection: await run("reasoning_reflection", {
      operation: "process",
      content: "Draft plan",
      max_iterations: 2,
      quality_threshold: 0.95,
    }),
    evaluation: await run("reasoning_reflection", { operation: "evaluate", session_id: sessionId }),
    auto: await run("reasoning_auto", { content: "What follows from the constraint?" }),
  };
}

describe("host-executed completions (no key, no sampling)", () => {
  it("drives every model-backed tool through needs_completion rounds to the same results a server-side model gives", async () => {
    const host = await sharedHost();
    expect(host.stderr.some((line) => line.includes("sampling then host"))).toBe(true);
    const rounds: Record<string, number> = {};
    const hosted = await runScenario(async (name, args) => {
      const driven = await drive(host, name, args);
      rounds[`${name}:${String(args["operation"] ?? "")}`] = driven.rounds;
      for (const prompt of driven.prompts) expect(prompt.schema["type"]).toBe("object");
      return driven.result;
    });
    expect(rounds).toMatchObject({
      "reasoning_linear:": 1,
      "reasoning_tree:create": 1,
      "reasoning_divergent:": 2,
      "reasoning_reflection:process": 5,
      "reasoning_auto:": 2,
    });
    // Reflection: a critique of the draft, then twice a revision and its critique (0.9 stays below 0.95).
    // MCTS suspends at every expansion and evaluation; graph generate asks its k continuations at once.
    expect(rounds["reasoning_mcts:explore"]).toBeGreaterThanOrEqual(3);
    expect(rounds["reasoning_graph:generate"]).toBe(1);

    const serverSide = await start({
      DATABASE_PATH: join(directory.path, "server-side.db"),
      ...fake.environment("openai"),
    });
    const expected = await runScenario((name, args) => call(serverSide, name, args));
    expect(withoutIds(hosted)).toEqual(withoutIds(expected));
    for (const [key, value] of Object.entries(hosted)) expect(value["status"], key).toBeUndefined();
    expectOutput("reasoning_linear", {
      content: [{ type: "text", text: JSON.stringify(hosted.linear) }],
      structuredContent: hosted.linear,
    });
  }, 120_000); // every model-backed tool over several rounds, plus a server-side run to compare

  it("lists needs_completion in model-backed tools' output schemas", async () => {
    const server = await sharedHost();
    const { tools } = await server.client.listTools();
    const linear = tools.find((tool) => tool.name === "reasoning_linear");
    expect(linear?.outputSchema?.["type"]).toBe("object");
    expect(JSON.stringify(linear?.outputSchema)).toContain("needs_completion");
    expect(tools.map((tool) => tool.name)).toEqual(
      expect.arrayContaining([
        "reasoning_submit",
        "startChainOfThought",
        "submitThought",
        "listWorkflows",
        "startWorkflow",
      ]),
    );
  });
});

describe("sampling", () => {
  it("uses the client's model with no round trip to the agent", async () => {
    const sampled: string[] = [];
    const server = await start(
      { DATABASE_PATH: join(directory.path, "sampling.db") },
      { capabilities: { sampling: {} } },
    );
    server.client.setRequestHandler("sampling/createMessage", async (request) => {
      const name = /\("([a-z_]+)"\)/.exec(request.params.systemPrompt ?? "")?.[1] ?? "";
      sampled.push(name);
      const user = request.params.messages
        .map((message) => (message.content as { text?: string }).text ?? "")
        .join("\n\n");
      return {
        model: "client-model",
        role: "assistant" as const,
        content: {
          type: "text" as const,
          text: JSON.stringify(answerFor(name, user, request.params.systemPrompt ?? "")),
        },
      };
    });
    const linear = await call(server, "reasoning_linear", { content: "Sampled thought" });
    expect(linear["status"]).toBeUndefined();
    expect(linear["confidence"]).toBe(0.8);
    const divergent = await call(server, "reasoning_divergent", { content: "Sampled ideas", num_perspectives: 2 });
    expect(divergent["synthesis"]).toBe("Combine the incentive and minimalist views.");
    expect(sampled).toEqual([
      "linear_continuation",
      "divergent_perspective",
      "divergent_perspective",
      "divergent_synthesis",
    ]);
  });

  // One server for both settings: host first (so the TTL applies to its suspended calls) and a 1 s TTL.
  it("prefers host when DELIBERATE_KEYLESS_ORDER says so, and expires suspended calls after HOST_COMPLETION_TTL_SECONDS", async () => {
    const server = await start(
      {
        DATABASE_PATH: join(directory.path, "order-ttl.db"),
        DELIBERATE_KEYLESS_ORDER: "host,sampling",
        HOST_COMPLETION_TTL_SECONDS: "1",
      },
      { capabilities: { sampling: {} } },
    );
    server.client.setRequestHandler("sampling/createMessage", async () => {
      throw new Error("sampling must not be used");
    });
    const result = await call(server, "reasoning_linear", { content: "x" });
    expect(result["status"]).toBe("needs_completion");

    const step = needsCompletionSchema.parse(await call(server, "reasoning_linear", { content: "Too slow" }));
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const expired = expectToolError(
      await server.client.callTool({
        name: "reasoning_submit",
        arguments: { resume_token: step.resume_token, answers: [{ prompt_id: step.prompts[0]?.id, answer: {} }] },
      }),
    );
    expect(expired.message).toContain("expired");
  });
});

// One database, two processes: the second start completes what the first left suspended or in progress.
describe("across a restart", () => {
  it("completes a suspended call and continues guided workflows (the ticket's scenario, concurrent runs kept apart), and reports bad answers and unknown tokens", async () => {
    const databasePath = join(directory.path, "restart.db");
    const before = await start({ DATABASE_PATH: databasePath });
    const step = needsCompletionSchema.parse(await call(before, "reasoning_linear", { content: "Survive a restart" }));
    const invalid = expectToolError(
      await before.client.callTool({
        name: "reasoning_submit",
        arguments: {
          resume_token: step.resume_token,
          answers: [{ prompt_id: step.prompts[0]?.id, answer: { content: "x" } }],
        },
      }),
    );
    expect(invalid.code).toBe("INVALID_INPUT");
    expect(invalid.issues?.map((issue) => issue.field)).toEqual(
      expect.arrayContaining(["answers.0.answer.confidence"]),
    );

    // Guided workflows: two runs started before the restart.
    const auth = await call(before, "startChainOfThought", { problem: "Build auth system" });
    const other = await call(before, "startChainOfThought", { problem: "Plan a migration" });
    expect(auth["agent_instructions"]).toContain("Break down");
    const analyse = await call(before, "submitThought", {
      state_id: auth["state_id"],
      thought: "1. Users 2. Tokens 3. Middleware",
    });
    expect(analyse["agent_instructions"]).toContain("analyze");
    await call(before, "submitThought", { state_id: other["state_id"], thought: "1. Schema 2. Backfill" });
    await before.close();

    const after = await start({ DATABASE_PATH: databasePath });
    const prompt = step.prompts[0] as PendingPrompt;
    const result = await call(after, "reasoning_submit", {
      resume_token: step.resume_token,
      answers: [{ prompt_id: prompt.id, answer: JSON.stringify(answerFor(prompt.name, prompt.user, prompt.system)) }],
    });
    expect(result["content"]).toContain("the constraint rules out option B");
    const gone = expectToolError(
      await after.client.callTool({
        name: "reasoning_submit",
        arguments: { resume_token: step.resume_token, answers: [{ prompt_id: prompt.id, answer: {} }] },
      }),
    );
    expect(gone.code).toBe("NOT_FOUND");

    // The workflow runs continue on the new process.
    const synthesise = await call(after, "submitThought", {
      state_id: auth["state_id"],
      thought: "Users need hashed passwords",
    });
    expect(synthesise["agent_instructions"]).toContain("Synthesize");
    expect(synthesise["instruction"]).toContain("1. Users 2. Tokens 3. Middleware");
    expect(synthesise["instruction"]).not.toContain("Backfill");
    const done = await call(after, "submitThought", { state_id: auth["state_id"], thought: "JWT plan" });
    expect(done).toMatchObject({ status: "complete", summary: { steps_completed: 3 } });
    expect(JSON.stringify(done)).toContain('"status":"complete"');

    // The ticket's own test, as written: _meta.agentInstructions on every step, "complete":true at the end.
    const ticket = await after.client.callTool({
      name: "startChainOfThought",
      arguments: { problem: "How to implement JWT authentication?" },
    });
    expect((ticket._meta as { agentInstructions: string }).agentInstructions).toContain("Break down");
    const { state_id } = JSON.parse((ticket.content as Array<{ text: string }>)[0]?.text ?? "{}") as {
      state_id: string;
    };
    const decomposition = await after.client.callTool({
      name: "submitThought",
      arguments: { state_id, thought: "1. User model, 2. JWT generation, 3. Middleware" },
    });
    expect((decomposition._meta as { agentInstructions: string }).agentInstructions).toContain("analyze");
    const analysis = await after.client.callTool({
      name: "submitThought",
      arguments: { state_id, thought: "User model needs email and hashed password..." },
    });
    expect((analysis._meta as { agentInstructions: string }).agentInstructions).toContain("Synthesize");
    const final = await after.client.callTool({
      name: "submitThought",
      arguments: { state_id, thought: "Complete JWT implementation plan..." },
    });
    expect((final.content as Array<{ text: string }>)[0]?.text).toContain('"complete":true');

    const finished = expectToolError(
      await after.client.callTool({
        name: "submitThought",
        arguments: { state_id: auth["state_id"], thought: "more" },
      }),
    );
    expect(finished.code).toBe("CONFLICT");
    const unknown = expectToolError(
      await after.client.callTool({ name: "submitThought", arguments: { state_id: "wf_nope", thought: "x" } }),
    );
    expect(unknown.hint).toContain("start a new workflow");
  });
});

describe("sessions as resources", () => {
  it("lists recent sessions and reads them as JSON, Markdown and Mermaid", async () => {
    const server = await sharedHost();
    const { result } = await drive(server, "reasoning_linear", { content: "Resources show sessions." });
    const sessionId = result["session_id"] as string;
    const { resources } = await server.client.listResources();
    expect(resources.map((resource) => resource.uri)).toEqual(
      expect.arrayContaining([
        `deliberate://sessions/${sessionId}`,
        `deliberate://sessions/${sessionId}/markdown`,
        `deliberate://sessions/${sessionId}/mermaid`,
      ]),
    );
    const json = await server.client.readResource({ uri: `deliberate://sessions/${sessionId}` });
    const record = JSON.parse((json.contents[0] as { text: string }).text) as { thoughts: Array<{ content: string }> };
    expect(record.thoughts.map((thought) => thought.content)).toEqual(["Resources show sessions.", result["content"]]);
    const markdown = await server.client.readResource({ uri: `deliberate://sessions/${sessionId}/markdown` });
    expect(markdown.contents[0]).toMatchObject({ mimeType: "text/markdown" });
    expect((markdown.contents[0] as { text: string }).text).toContain(`# Session ${sessionId}`);
    const mermaid = await server.client.readResource({ uri: `deliberate://sessions/${sessionId}/mermaid` });
    expect((mermaid.contents[0] as { text: string }).text).toContain("n1 --> n2");
    await expect(server.client.readResource({ uri: "deliberate://sessions/ses_unknown" })).rejects.toThrow(
      /Resource not found: deliberate:\/\/sessions\/ses_unknown/,
    );
  });
});
