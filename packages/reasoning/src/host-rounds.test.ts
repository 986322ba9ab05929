import type { PendingPrompt } from "@deliberate/contracts";
import { answerJsonSchema, hostModelRouter } from "@deliberate/engine";
import { answerFromSchema, driveHostExecuted, schemaViolations } from "@deliberate/engine/testing";
import type { GenerateOptions } from "@deliberate/providers";
import { afterEach, describe, expect, it } from "vitest";
import { createTestEngine, type TestEngine } from "./test-support.ts";
import { randomIds } from "@deliberate/engine";

/**
 * Host-executed, every tool and every built-in preset completes in exactly as
 * many rounds as it has dependent model calls: independent prompts are asked
 * together, and an answered prompt is never asked again (ids are drawn anew on
 * every replay; results reach later prompts as text). The calling agent here
 * answers each prompt from its published JSON Schema and nothing else.
 */

/**
 * The answer a schema-following agent gives: the plain answer from the schema, except that the causal
 * variables sit on two levels (the plain answer puts every variable mid-range, on one level, which leaves
 * no link to ask for), so the counterfactual takes its longest path. Every answer is checked against the
 * published schema: nothing beyond the schema is needed.
 */
function answerFor(name: string, schema: Record<string, unknown>): unknown {
  const answer = answerFromSchema(schema) as Record<string, unknown>;
  if (name === "counterfactual_variables") {
    const others = answer["other_variables"] as Array<{ name: string; level: number }>;
    answer["other_variables"] = others.map((variable) => ({ ...variable, level: 1 }));
    if (answer["intervention_target"] !== undefined)
      answer["intervention_target"] = { ...(answer["intervention_target"] as object), level: 0 };
    if (answer["given_variables"] !== undefined)
      answer["given_variables"] = Object.fromEntries(
        Object.keys(answer["given_variables"] as object).map((key) => [key, { level: 0 }]),
      );
  }
  const violations = schemaViolations(schema, answer);
  if (violations !== undefined)
    throw new Error(`the test's answer to ${name} is not valid against its schema: ${violations}`);
  return answer;
}

const agent = (prompt: PendingPrompt) => answerFor(prompt.name, prompt.schema);
const serverModel = (options: GenerateOptions<unknown>) =>
  answerFor(options.schemaName ?? "", answerJsonSchema(options.schema as never));

const engines: TestEngine[] = [];
afterEach(async () => {
  await Promise.all(engines.splice(0).map((testEngine) => testEngine.store.close()));
});

async function engines2() {
  // Random ids, as in production.
  const host = await createTestEngine([], { router: hostModelRouter, ids: randomIds });
  const server = await createTestEngine(serverModel, { ids: randomIds });
  engines.push(host, server);
  return { host, server };
}

type Setup = (
  run: (tool: string, args: Record<string, unknown>) => Promise<Record<string, unknown>>,
) => Promise<Record<string, unknown>>;

interface RoundCase {
  label: string;
  tool: string;
  /** Arguments, built from what the setup calls returned. */
  args: Record<string, unknown> | ((setup: Record<string, unknown>) => Record<string, unknown>);
  setup?: Setup;
  /** Dependent model calls: the rounds the call must take. */
  rounds: number;
}

const withSession: Setup = async (run) => ({
  session_id: (await run("reasoning_linear", { content: "Cache the config" }))["session_id"],
});
const withGraph: Setup = async (run) => {
  const init = await run("reasoning_graph", { operation: "init", content: "Speed up CI" });
  const generated = await run("reasoning_graph", { operation: "generate", session_id: init["session_id"], k: 2 });
  return {
    session_id: init["session_id"],
    nodes: (generated["nodes"] as Array<{ id: string }>).map((node) => node.id),
  };
};
const withTimeline: Setup = async (run) => {
  const created = await run("reasoning_timeline", { operation: "create", content: "Launch in March" });
  const branch = await run("reasoning_timeline", {
    operation: "branch",
    timeline_id: created["timeline_id"],
    content: "Launch in January",
  });
  return { timeline_id: created["timeline_id"], main: created["branch_id"], branch: branch["branch_id"] };
};

const toolCases: RoundCase[] = [
  { label: "linear", tool: "reasoning_linear", args: { content: "Add a cache" }, rounds: 1 },
  { label: "tree create", tool: "reasoning_tree", args: { content: "Speed up the build", num_branches: 3 }, rounds: 1 },
  {
    label: "tree list",
    tool: "reasoning_tree",
    setup: withSession,
    args: (setup) => ({ operation: "list", session_id: setup["session_id"] }),
    rounds: 0,
  },
  {
    label: "divergent: perspectives, then their synthesis",
    tool: "reasoning_divergent",
    args: { content: "Onboarding", num_perspectives: 3 },
    rounds: 2,
  },
  {
    label: "reflection: critique, then 2 x (revision, critique)",
    tool: "reasoning_reflection",
    args: { content: "Draft plan", max_iterations: 2, quality_threshold: 0.9 },
    rounds: 5,
  },
  {
    label: "reflection evaluate",
    tool: "reasoning_reflection",
    setup: withSession,
    args: (setup) => ({ operation: "evaluate", session_id: setup["session_id"] }),
    rounds: 1,
  },
  {
    label: "checkpoint create",
    tool: "reasoning_checkpoint",
    setup: withSession,
    args: (setup) => ({ operation: "create", session_id: setup["session_id"], name: "before" }),
    rounds: 0,
  },
  {
    label: "auto: route, then the routed tool (linear)",
    tool: "reasoning_auto",
    args: { content: "What follows from a cache?" },
    rounds: 2,
  },
  { label: "graph init", tool: "reasoning_graph", args: { operation: "init", content: "Speed up CI" }, rounds: 0 },
  {
    label: "graph generate (k concurrent continuations)",
    tool: "reasoning_graph",
    setup: withGraph,
    args: (setup) => ({ operation: "generate", session_id: setup["session_id"], k: 3 }),
    rounds: 1,
  },
  {
    label: "graph score (several nodes concurrently)",
    tool: "reasoning_graph",
    setup: withGraph,
    args: (setup) => ({ operation: "score", session_id: setup["session_id"], node_ids: setup["nodes"] }),
    rounds: 1,
  },
  {
    label: "graph aggregate",
    tool: "reasoning_graph",
    setup: withGraph,
    args: (setup) => ({ operation: "aggregate", session_id: setup["session_id"], node_ids: setup["nodes"] }),
    rounds: 1,
  },
  {
    label: "graph refine",
    tool: "reasoning_graph",
    setup: withGraph,
    args: (setup) => ({
      operation: "refine",
      session_id: setup["session_id"],
      node_id: (setup["nodes"] as string[])[0],
    }),
    rounds: 1,
  },
  {
    label: "graph finalize",
    tool: "reasoning_graph",
    setup: withGraph,
    args: (setup) => ({ operation: "finalize", session_id: setup["session_id"] }),
    rounds: 1,
  },
  {
    label: "timeline create",
    tool: "reasoning_timeline",
    args: { operation: "create", content: "Launch in March" },
    rounds: 0,
  },
  {
    label: "timeline branch proposed by the model",
    tool: "reasoning_timeline",
    setup: withTimeline,
    args: (setup) => ({ operation: "branch", timeline_id: setup["timeline_id"] }),
    rounds: 1,
  },
  {
    label: "timeline compare",
    tool: "reasoning_timeline",
    setup: withTimeline,
    args: (setup) => ({ operation: "compare", timeline_id: setup["timeline_id"] }),
    rounds: 1,
  },
  {
    label: "timeline merge (synthesize)",
    tool: "reasoning_timeline",
    setup: withTimeline,
    args: (setup) => ({
      operation: "merge",
      timeline_id: setup["timeline_id"],
      source_branch_id: setup["branch"],
      target_branch_id: setup["main"],
      merge_strategy: "synthesize",
    }),
    rounds: 1,
  },
  {
    label: "detect",
    tool: "reasoning_detect",
    args: { type: "biases", content: "Everyone uses it, so it must be right." },
    rounds: 1,
  },
  {
    label: "decision weighted (model scores)",
    tool: "reasoning_decision",
    args: { options: ["A", "B"], criteria: [{ name: "cost", weight: 1, direction: "cost" }] },
    rounds: 1,
  },
  {
    label: "decision topsis (all given)",
    tool: "reasoning_decision",
    args: { type: "topsis", options: ["A", "B"], criteria: [{ name: "cost", weight: 1 }], scores: [[1], [2]] },
    rounds: 0,
  },
  {
    label: "decision pairwise",
    tool: "reasoning_decision",
    args: { type: "pairwise", options: ["A", "B", "C"] },
    rounds: 1,
  },
  {
    label: "decision perspectives",
    tool: "reasoning_decision",
    args: { type: "perspectives", topic: "Layoffs" },
    rounds: 1,
  },
  {
    label: "evidence probabilistic",
    tool: "reasoning_evidence",
    args: {
      type: "probabilistic",
      hypothesis: "The deploy broke it",
      evidence: [{ content: "errors began at deploy" }, { content: "no config change" }],
    },
    rounds: 1,
  },
  {
    label: "evidence assess",
    tool: "reasoning_evidence",
    args: { claim: "The server rebooted", evidence: [{ content: "syslog" }, { content: "a tweet" }] },
    rounds: 1,
  },
  {
    label: "counterfactual: causal variables, then their links, then narrative",
    tool: "reasoning_counterfactual",
    args: { scenario: "Prices flat", intervention: "Raise prices" },
    rounds: 3,
  },
  { label: "metrics", tool: "reasoning_metrics", args: { query: "summary" }, rounds: 0 },
  { label: "preset list", tool: "reasoning_preset", args: { operation: "list" }, rounds: 0 },
  { label: "listWorkflows", tool: "listWorkflows", args: {}, rounds: 0 },
  { label: "startChainOfThought", tool: "startChainOfThought", args: { problem: "Why is CI slow?" }, rounds: 0 },
];

const mctsArgs = { content: "Find the root cause", iterations: 6, simulation_depth: 3 };

async function runCase(testCase: RoundCase) {
  const { host, server } = await engines2();
  const hostRun = async (tool: string, args: Record<string, unknown>) =>
    (await driveHostExecuted(host.engine, tool, args, agent)).result;
  const setup = testCase.setup ? await testCase.setup(hostRun) : {};
  const args = typeof testCase.args === "function" ? testCase.args(setup) : testCase.args;
  host.clock.advance(1000); // the call's row is then the newest
  const drive = await driveHostExecuted(host.engine, testCase.tool, args, agent);
  return { drive, host, server };
}

describe("host-executed rounds = dependent model calls", () => {
  it.each(toolCases)("$label: $rounds round(s)", async (testCase) => {
    const { drive, host } = await runCase(testCase);
    expect(drive.rounds.map((prompts) => prompts.map((prompt) => prompt.name))).toHaveLength(testCase.rounds);
    expect(drive.result["status"]).not.toBe("needs_completion");
    const [row] = await host.store.invocations.list({ tool: testCase.tool, limit: 1 });
    expect(row).toMatchObject({ success: true, rounds: testCase.rounds + 1 });
  });

  it("mcts explore: one round per model call, each depending on the last, as many as a server-side model gets", async () => {
    const { host, server } = await engines2();
    const drive = await driveHostExecuted(host.engine, "reasoning_mcts", mctsArgs, agent);
    await server.engine.invoke("reasoning_mcts", mctsArgs);
    expect(drive.rounds.every((prompts) => prompts.length === 1)).toBe(true);
    expect(drive.rounds).toHaveLength(server.model.calls.length);
    expect(drive.rounds).toHaveLength(mctsRounds);
  });

  const presets: Array<{ id: string; inputs: Record<string, unknown>; rounds: number; path: string }> = [
    {
      id: "code-review",
      inputs: { code: "function parse(t) { return JSON.parse(t) }" },
      rounds: 8,
      path: "understand 1, angles 2, review 5",
    },
    {
      id: "debug-analysis",
      inputs: { problem: "Requests time out at noon" },
      rounds: 10 + mctsRounds,
      path: `facts 1, hypotheses 1, investigation ${mctsRounds}, fix_impact 3, conclusion 5`,
    },
    {
      id: "architecture-decision",
      inputs: { question: "Monolith or services?", options: ["monolith", "services"] },
      rounds: 11,
      path: "explore 2, ranking 1, consequences 3, record 5",
    },
    {
      id: "risk-assessment",
      inputs: { subject: "Migrate the database in one weekend" },
      rounds: 11,
      path: "frame 1, risks 2, mitigation 3, assessment 5",
    },
    {
      id: "research-synthesis",
      inputs: {
        question: "Does caching halve latency?",
        sources: [{ content: "Benchmark: -48% p50", source_type: "primary" }, { content: "Vendor blog: -50%" }],
      },
      rounds: 9,
      path: "graph 0, expand 1, score 1, conclude 1, bias_check 1, synthesis 5",
    },
  ];

  it.each(presets)("preset $id: $rounds rounds ($path)", async ({ id, inputs, rounds }) => {
    const { host, server } = await engines2();
    const drive = await driveHostExecuted(
      host.engine,
      "reasoning_preset",
      { operation: "run", preset_id: id, inputs },
      agent,
    );
    const execution = drive.result["execution_result"] as { status: string };
    expect(execution.status).toBe("completed");
    expect(drive.rounds).toHaveLength(rounds);
    // Every prompt was asked exactly once: as many as a server-side model is asked for the same run.
    const serverOutput = await server.engine.invoke("reasoning_preset", { operation: "run", preset_id: id, inputs });
    expect((serverOutput["execution_result"] as { status: string }).status).toBe("completed");
    expect(drive.rounds.flat()).toHaveLength(server.model.calls.length);
    expect(new Set(drive.rounds.flat().map((prompt) => prompt.id.split("-").slice(1).join("-"))).size).toBe(
      server.model.calls.length,
    );
    if (process.env["PRINT_PRESET_ROUNDS"])
      console.info(`${id}: ${drive.rounds.length} rounds, ${server.model.calls.length} prompts`);
    const [row] = await host.store.invocations.list({ tool: "reasoning_preset", limit: 1 });
    expect(row).toMatchObject({
      success: true,
      operation: "run",
      rounds: rounds + 1,
      model_calls: server.model.calls.length,
    });
  });
});

/** MCTS with 6 iterations and depth 3, the agent proposing one step per expansion: its model calls, all dependent. */
const mctsRounds = 6;
