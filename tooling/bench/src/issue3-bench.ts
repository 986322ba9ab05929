import { pathToFileURL } from "node:url";
import {
  createModelRouterFromModel,
  type GenerateOptions,
  type GenerateResult,
  type LanguageModel,
} from "@deliberate/providers";
import { createScriptedModel, type ScriptedModelScript } from "@deliberate/providers/testing";
import { createEngine } from "@deliberate/engine";
import { createReasoningModule, type PresetDefinition, type ReasoningRepositories } from "@deliberate/reasoning";
import { openStore, type Store } from "@deliberate/store";
import { summarize, type Summary } from "./statistics.ts";

// Issue 3's benchmarks, in process against in-memory SQLite:
//   (c) 100 MCTS iterations with an instant fake model, timed outside the model;
//   (d) graph prune and state on a 10,000-node graph (no model calls);
// (The preset with independent steps is in fan-out-bench.ts, with the other fan-out cases.)
// Run alone with `pnpm --filter @deliberate/bench exec tsx src/issue3-bench.ts`.

const mctsRuns = 10;
const graphRuns = 10;
const graphNodes = 10_000;

/**
 * Wraps a model to measure the time with at least one of its calls in flight,
 * so "outside the model" is the wall time minus that, even when calls overlap.
 */
function timedModel(model: LanguageModel) {
  let inFlight = 0;
  let busySince = 0;
  let busy = 0;
  const wrapped: LanguageModel = {
    provider: model.provider,
    modelId: model.modelId,
    async generate<T>(options: GenerateOptions<T>): Promise<GenerateResult<T>> {
      if (inFlight === 0) busySince = performance.now();
      inFlight += 1;
      try {
        return await model.generate(options);
      } finally {
        inFlight -= 1;
        if (inFlight === 0) busy += performance.now() - busySince;
      }
    },
  };
  return {
    model: wrapped,
    takeBusy(): number {
      const value = busy;
      busy = 0;
      return value;
    },
  };
}

async function engineWith(
  script: ScriptedModelScript,
  options: { presets?: readonly PresetDefinition[]; concurrency?: number } = {},
) {
  const modules = [createReasoningModule(options.presets ? { presets: options.presets } : {})];
  const store = await openStore<ReasoningRepositories>({ path: ":memory:", modules });
  const scripted = createScriptedModel(script);
  const timed = timedModel(scripted);
  const engine = createEngine({
    store,
    modules,
    models: createModelRouterFromModel(timed.model),
    ...(options.concurrency !== undefined ? { concurrency: options.concurrency } : {}),
  });
  return { store, engine, scripted, timed };
}

function row(label: string, summary: Summary): string {
  const cell = (value: number) => value.toFixed(value < 10 ? 3 : 1).padStart(10);
  return `  ${label.padEnd(26)}${cell(summary.p50)}${cell(summary.p95)}${cell(summary.mean)}`;
}

function table(title: string, rows: string[]): string {
  return [title, `  ${"".padEnd(26)}${"p50".padStart(10)}${"p95".padStart(10)}${"mean".padStart(10)}`, ...rows].join(
    "\n",
  );
}

/** (c) reasoning_mcts explore with 100 iterations; the fake model answers at once. */
export async function benchMcts(): Promise<string> {
  const totals: number[] = [];
  const outside: number[] = [];
  const perIteration: number[] = [];
  let modelCalls = 0;
  for (let run = 0; run < mctsRuns + 1; run += 1) {
    const { store, engine, scripted, timed } = await engineWith((options, index) =>
      options.schemaName === "mcts_expand"
        ? { steps: [`option ${index}a`, `option ${index}b`, `option ${index}c`] }
        : { value: ((index * 37) % 100) / 100, reaches_conclusion: false, rationale: "scripted" },
    );
    try {
      const started = performance.now();
      const result = await engine.invoke("reasoning_mcts", {
        operation: "explore",
        content: "Plan the migration.",
        iterations: 100,
        simulation_depth: 5,
      });
      const elapsed = performance.now() - started;
      if (result["iterations_completed"] !== 100)
        throw new Error(`expected 100 iterations, got ${String(result["iterations_completed"])}`);
      const busy = timed.takeBusy();
      if (run === 0) continue; // warm-up
      totals.push(elapsed);
      outside.push(elapsed - busy);
      perIteration.push((elapsed - busy) / 100);
      modelCalls = scripted.calls.length;
    } finally {
      await store.close();
    }
  }
  return table(
    `(c) reasoning_mcts explore, 100 iterations, instant fake model (${modelCalls} model calls per run, n=${mctsRuns}, ms)`,
    [
      row("wall time", summarize(totals)),
      row("outside the model", summarize(outside)),
      row("per iteration, outside", summarize(perIteration)),
    ],
  );
}

/** A graph of `graphNodes` nodes: a tree of fan-out 4 with scores spread over [0, 1). */
async function seedGraph(
  engine: Awaited<ReturnType<typeof engineWith>>["engine"],
  store: Store<ReasoningRepositories>,
): Promise<string> {
  const init = await engine.invoke("reasoning_graph", {
    operation: "init",
    content: "Root question",
    config: { max_nodes: 100_000, max_depth: 100 },
  });
  const sessionId = init["session_id"] as string;
  const rootId = init["node_id"] as string;
  const now = new Date().toISOString();
  const ids = [rootId];
  const depths = [0];
  const nodes: Array<Parameters<Store<ReasoningRepositories>["graphs"]["insertNodes"]>[0][number]> = [];
  const edges: Array<Parameters<Store<ReasoningRepositories>["graphs"]["insertEdges"]>[0][number]> = [];
  for (let index = 1; index < graphNodes; index += 1) {
    const parent = Math.floor((index - 1) / 4);
    const id = `bench_${index}`;
    ids.push(id);
    depths.push((depths[parent] as number) + 1);
    const score = ((index * 7919) % 1000) / 1000;
    nodes.push({
      id,
      session_id: sessionId,
      parent_id: ids[parent] as string,
      kind: "continuation",
      content: `node ${index}`,
      depth: depths[index] as number,
      score,
      criteria: { relevance: score, validity: score, depth: score, novelty: score },
    });
    edges.push({
      id: `edge_${index}`,
      session_id: sessionId,
      from_node_id: ids[parent] as string,
      to_node_id: id,
      kind: "continuation",
    });
  }
  await store.transaction(async (repositories) => {
    await repositories.graphs.insertNodes(nodes, now);
    await repositories.graphs.insertEdges(edges, now);
  });
  return sessionId;
}

/** (d) reasoning_graph prune (threshold 0.3) and state on a 10,000-node graph. */
export async function benchGraph(): Promise<string> {
  const prune: number[] = [];
  const stateBefore: number[] = [];
  const stateAfter: number[] = [];
  let pruned = 0;
  for (let run = 0; run < graphRuns + 1; run += 1) {
    const { store, engine, scripted } = await engineWith([]);
    try {
      const sessionId = await seedGraph(engine, store);
      const time = async (args: Record<string, unknown>) => {
        const started = performance.now();
        const result = await engine.invoke("reasoning_graph", { session_id: sessionId, ...args });
        return { elapsed: performance.now() - started, result };
      };
      const before = await time({ operation: "state" });
      const total = (before.result["state"] as { total_nodes: number }).total_nodes;
      if (total !== graphNodes) throw new Error(`expected ${graphNodes} nodes, got ${total}`);
      const pruning = await time({ operation: "prune", threshold: 0.3 });
      const after = await time({ operation: "state" });
      if (scripted.calls.length > 0) throw new Error("prune and state must not call the model");
      if (run === 0) continue; // warm-up
      stateBefore.push(before.elapsed);
      prune.push(pruning.elapsed);
      stateAfter.push(after.elapsed);
      pruned = (after.result["state"] as { pruned_count: number }).pruned_count;
    } finally {
      await store.close();
    }
  }
  return table(
    `(d) reasoning_graph on ${graphNodes.toLocaleString("en")} nodes, no model calls (${pruned} pruned, n=${graphRuns}, ms)`,
    [
      row("state", summarize(stateBefore)),
      row("prune (threshold 0.3)", summarize(prune)),
      row("state after prune", summarize(stateAfter)),
    ],
  );
}

/** Every issue-3 benchmark, as printable text. */
export async function runIssue3Bench(): Promise<string> {
  return [await benchMcts(), await benchGraph()].join("\n\n");
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.stdout.write(`${await runIssue3Bench()}\n`);
}
