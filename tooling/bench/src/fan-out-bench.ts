import { pathToFileURL } from "node:url";
import { type DialogRepositories, dialogModule } from "@deliberate/dialog";
import { scriptedDialogResponder } from "@deliberate/dialog/testing";
import { createEngine, type DeliberateModule } from "@deliberate/engine";
import { createKnowledgeGraphModule } from "@deliberate/knowledge-graph";
import { answerFor, scenarioDomainKnowledge } from "@deliberate/knowledge-graph/testing";
import { createModelRouterFromModel, type GenerateOptions } from "@deliberate/providers";
import { createScriptedModel, type ScriptedModelScript } from "@deliberate/providers/testing";
import { createReasoningModule, definePreset, type ReasoningRepositories } from "@deliberate/reasoning";
import { openStore } from "@deliberate/store";
import { summarize, type Summary } from "./statistics.ts";

// Issue 17 (e): independent work at a fixed fake model latency. For each case,
// wall time of one call over its critical path (the dependent model calls, at
// `latencyMs` each); goal at most 1.1x. In process, in-memory SQLite, the
// engine's default concurrency.
// Run alone: pnpm --filter @deliberate/bench exec tsx src/fan-out-bench.ts

const latencyMs = 100;
const runs = 10;
const goal = 1.1;

interface FanOutResult {
  name: string;
  calls: number;
  dependentCalls: number;
  wall: Summary;
  ratio: Summary;
}

const criteria = (value: number) => ({ relevance: value, validity: value, depth: value, novelty: value });
const presetWidth = 4;

/** root -> `presetWidth` independent steps -> join: a critical path of three model calls. */
const fanOutPreset = definePreset({
  id: "bench-fan-out",
  name: "Bench fan-out",
  description: "A root, independent steps that continue it, and a join.",
  category: "bench",
  inputs: [{ name: "topic", description: "topic", required: true }],
  session_step: "root",
  steps: [
    {
      id: "root",
      tool: "reasoning_linear",
      description: "root",
      arguments: { content: "{{input.topic}}", session_id: { $ref: "session_id" } },
    },
    ...Array.from({ length: presetWidth }, (_, index) => ({
      id: `branch_${index}`,
      tool: "reasoning_linear",
      description: `branch ${index}`,
      depends_on: ["root"],
      arguments: { content: `Angle ${index} on {{steps.root.content}}`, session_id: { $ref: "session_id" } },
    })),
    {
      id: "join",
      tool: "reasoning_linear",
      description: "join",
      depends_on: Array.from({ length: presetWidth }, (_, index) => `branch_${index}`),
      arguments: { content: "Combine the angles.", session_id: { $ref: "session_id" } },
    },
  ],
  output: { result: { $ref: "steps.join.content" } },
});

const reasoningAnswers = (options: { schemaName?: string }, index: number): unknown => {
  switch (options.schemaName) {
    case "tree_branches":
      return {
        branches: Array.from({ length: 4 }, (_, branch) => ({ content: `Path ${branch}`, score: 0.5 + branch / 10 })),
        recommendation: "Path 3",
      };
    case "divergent_perspective":
      return { viewpoint: `view ${index}`, content: `idea ${index}`, novelty_score: 0.5 };
    case "divergent_synthesis":
      return { challenged_assumptions: ["speed matters most"], synthesis: "Combine them" };
    case "graph_continuation":
      return { content: `continuation ${index}`, criteria: criteria(0.6) };
    case "linear_continuation":
      return { content: "A step.", confidence: 0.7, next_step: "Next." };
    default:
      throw new Error(`No scripted answer for ${options.schemaName}`);
  }
};

interface Case {
  name: string;
  calls: number;
  dependentCalls: number;
  /** Prepares what the measured call needs (unmeasured); returns the call. */
  prepare: (
    invoke: (tool: string, input: Record<string, unknown>) => Promise<Record<string, unknown>>,
  ) => Promise<() => Promise<unknown>>;
}

const reasoningCases: Case[] = [
  {
    name: "reasoning_tree create, 4 branches",
    calls: 1,
    dependentCalls: 1,
    prepare: async (invoke) => () => invoke("reasoning_tree", { content: "How to speed up the API?", num_branches: 4 }),
  },
  {
    name: "reasoning_divergent, 5 perspectives + synthesis",
    calls: 6,
    dependentCalls: 2,
    prepare: async (invoke) => () =>
      invoke("reasoning_divergent", { content: "Rethink onboarding", num_perspectives: 5 }),
  },
  {
    name: "reasoning_graph generate, k=5",
    calls: 5,
    dependentCalls: 1,
    prepare: async (invoke) => {
      const init = await invoke("reasoning_graph", { operation: "init", content: "How do we cut build times?" });
      return () =>
        invoke("reasoning_graph", {
          operation: "generate",
          session_id: init["session_id"],
          node_id: init["node_id"],
          k: 5,
        });
    },
  },
  {
    name: `reasoning_preset run, root -> ${presetWidth} independent steps -> join`,
    calls: presetWidth + 2,
    dependentCalls: 3,
    prepare: async (invoke) => () =>
      invoke("reasoning_preset", {
        operation: "run",
        preset_id: fanOutPreset.id,
        inputs: { topic: "Caching strategy" },
      }),
  },
];

async function measure(
  entry: Case,
  invoke: (tool: string, input: Record<string, unknown>) => Promise<Record<string, unknown>>,
  modelCalls: () => number,
): Promise<FanOutResult> {
  const walls: number[] = [];
  for (let run = 0; run < runs + 1; run += 1) {
    const call = await entry.prepare(invoke);
    const before = modelCalls();
    const started = performance.now();
    await call();
    const elapsed = performance.now() - started;
    if (modelCalls() - before !== entry.calls)
      throw new Error(`${entry.name}: expected ${entry.calls} model calls, got ${modelCalls() - before}`);
    if (run > 0) walls.push(elapsed); // run 0 warms up
  }
  const critical = entry.dependentCalls * latencyMs;
  return {
    name: entry.name,
    calls: entry.calls,
    dependentCalls: entry.dependentCalls,
    wall: summarize(walls),
    ratio: summarize(walls.map((wall) => wall / critical)),
  };
}

async function reasoningFanOut(): Promise<FanOutResult[]> {
  const modules = [createReasoningModule({ presets: [fanOutPreset] })];
  const store = await openStore<ReasoningRepositories>({ path: ":memory:", modules });
  const model = createScriptedModel({
    answer: reasoningAnswers as ScriptedModelScript extends { answer: infer A } ? A : never,
    latencyMs,
  });
  const engine = createEngine({ store, modules, models: createModelRouterFromModel(model) });
  const results: FanOutResult[] = [];
  try {
    for (const entry of reasoningCases)
      results.push(
        await measure(
          entry,
          (tool, input) => engine.invoke(tool, input),
          () => model.calls.length,
        ),
      );
  } finally {
    await store.close();
  }
  return results;
}

/** A dialog synthesis round: two producers together, the merge, two reviewers together. */
async function dialogFanOut(): Promise<FanOutResult> {
  const store = await openStore<DialogRepositories>({ path: ":memory:", modules: [dialogModule] });
  const model = createScriptedModel({ answer: scriptedDialogResponder({ reviewerScore: () => 0.5 }), latencyMs });
  const engine = createEngine({
    store,
    modules: [dialogModule as DeliberateModule],
    models: createModelRouterFromModel(model),
  });
  try {
    return await measure(
      {
        name: "run_reasoning_exchange, dialog synthesis round",
        calls: 5,
        dependentCalls: 3,
        prepare: async (invoke) => {
          const session = await invoke("start_reasoning_session", {
            topic: "Plan the launch of a budgeting app",
            mode: "synthesis",
            maxIterations: 5,
          });
          return () => invoke("run_reasoning_exchange", { session_id: session["session_id"] });
        },
      },
      (tool, input) => engine.invoke(tool, input),
      () => model.calls.length,
    );
  } finally {
    await store.close();
  }
}

/** The knowledge-graph module's self-consistency: facts, rules, then n answer samples together. */
async function selfConsistencyFanOut(): Promise<FanOutResult> {
  const samples = 5;
  const module = createKnowledgeGraphModule({
    stateSecret: "bench",
    selfConsistencySamples: samples,
  }) as DeliberateModule;
  const store = await openStore({ path: ":memory:", modules: [module] });
  // The module's scripted world (the family, its rules, the answer), by schema name and prompt.
  const model = createScriptedModel({
    answer: (options: GenerateOptions) => answerFor(options.schemaName ?? "", options.messages.at(-1)?.content ?? ""),
    latencyMs,
  });
  const engine = createEngine({ store, modules: [module], models: createModelRouterFromModel(model) });
  try {
    return await measure(
      {
        name: `reasoning_execute_task, self-consistency n=${samples}`,
        calls: samples + 2,
        dependentCalls: 3,
        prepare: async (invoke) => () =>
          invoke("reasoning_execute_task", {
            taskId: "bench",
            reasoningType: "deductive",
            goalQuery: "Is Alice an ancestor of Dave?",
            contextData: { domainKnowledge: scenarioDomainKnowledge },
            preferredCoTVariation: "selfConsistency",
          }),
      },
      (tool, input) => engine.invoke(tool, input),
      () => model.calls.length,
    );
  } finally {
    await store.close();
  }
}

export async function runFanOutBench(): Promise<FanOutResult[]> {
  return [...(await reasoningFanOut()), await selfConsistencyFanOut(), await dialogFanOut()];
}

export function formatFanOutBench(results: readonly FanOutResult[]): string {
  const cell = (value: number, digits = 1) => value.toFixed(digits).padStart(9);
  return [
    `(e) fan-out at ${latencyMs} ms per model call: wall time over the critical path (dependent calls x ${latencyMs} ms), n=${runs} each; goal p50 <= ${goal}x`,
    `  ${"".padEnd(62)}${"calls".padStart(6)}${"path".padStart(6)}${"p50 ms".padStart(9)}${"p95 ms".padStart(9)}${"p99 ms".padStart(9)}${"p50 x".padStart(9)}${"p95 x".padStart(9)}${"p99 x".padStart(9)}  goal`,
    ...results.map(
      (result) =>
        `  ${result.name.padEnd(62)}${String(result.calls).padStart(6)}${String(result.dependentCalls).padStart(6)}${cell(result.wall.p50)}${cell(result.wall.p95)}${cell(result.wall.p99)}${cell(result.ratio.p50, 2)}${cell(result.ratio.p95, 2)}${cell(result.ratio.p99, 2)}  ${result.ratio.p50 <= goal ? "met" : "MISSED"}`,
    ),
  ].join("\n");
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.stdout.write(`${formatFanOutBench(await runFanOutBench())}\n`);
}
