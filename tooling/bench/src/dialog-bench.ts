import { pathToFileURL } from "node:url";
import { type DialogRepositories, dialogModule } from "@deliberate/dialog";
import { scriptedDialogResponder } from "@deliberate/dialog/testing";
import { createEngine, type DeliberateModule } from "@deliberate/engine";
import { createModelRouterFromModel, type GenerateOptions, type GenerateResult, type LanguageModel } from "@deliberate/providers";
import { createScriptedModel } from "@deliberate/providers/testing";
import { openStore } from "@deliberate/store";
import { summarize } from "./statistics.ts";

// Issue 11's benchmark, in process against in-memory SQLite: one run_reasoning_exchange with
// every model call taking a fixed fake latency, as wall time against the sum of its dependent
// calls (the critical path). objective_refinement is two dependent calls; synthesis is five
// calls in three dependent steps (two producers together, the merge, two reviewers together).
// Run alone with `pnpm --filter @deliberate/bench exec tsx src/dialog-bench.ts`.

const latencyMs = 100;
const runs = 10;

interface Case {
  mode: "objective_refinement" | "synthesis";
  dependentCalls: number;
  calls: number;
}

const cases: Case[] = [
  { mode: "objective_refinement", dependentCalls: 2, calls: 2 },
  { mode: "synthesis", dependentCalls: 3, calls: 5 },
];

/**
 * Wraps a model to measure the time with at least one of its calls in flight: the measured
 * sum of the dependent calls (concurrent calls of one step count once), timer slop included.
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

async function benchCase(entry: Case): Promise<string> {
  const store = await openStore<DialogRepositories>({ path: ":memory:", modules: [dialogModule] });
  const model = createScriptedModel({ answer: scriptedDialogResponder({ reviewerScore: () => 0.5 }), latencyMs });
  const timed = timedModel(model);
  const engine = createEngine({ store, modules: [dialogModule as DeliberateModule], models: createModelRouterFromModel(timed.model), concurrency: 4 });
  const criticalPathMs = entry.dependentCalls * latencyMs;
  const walls: number[] = [];
  const overMeasured: number[] = [];
  try {
    for (let run = 0; run < runs + 1; run += 1) {
      const session = await engine.invoke("start_reasoning_session", { topic: "Plan the launch of a budgeting app", mode: entry.mode, maxIterations: 5 });
      // Iteration 0 (analysis) and iteration 1 (refinement with directives) are both measured.
      for (let iteration = 0; iteration < 2; iteration += 1) {
        const callsBefore = model.calls.length;
        timed.takeBusy();
        const started = performance.now();
        const result = await engine.invoke("run_reasoning_exchange", { session_id: session["session_id"] });
        const elapsed = performance.now() - started;
        const busy = timed.takeBusy();
        if (result["iteration"] !== iteration || model.calls.length - callsBefore !== entry.calls) throw new Error(`unexpected exchange: ${JSON.stringify(result).slice(0, 300)}`);
        if (run > 0) {
          // run 0 warms up
          walls.push(elapsed);
          overMeasured.push((elapsed - busy) / busy);
        }
      }
    }
  } finally {
    await store.close();
  }
  const wall = summarize(walls);
  const measured = summarize(overMeasured);
  const overhead = (value: number) => `${(((value - criticalPathMs) / criticalPathMs) * 100).toFixed(1)}%`;
  return [
    `  ${entry.mode}: ${entry.calls} calls in ${entry.dependentCalls} dependent steps; sum of dependent calls ${criticalPathMs} ms (all ${entry.calls} one after another: ${entry.calls * latencyMs} ms)`,
    `    wall p50 ${wall.p50.toFixed(1)} ms (+${overhead(wall.p50)})   p95 ${wall.p95.toFixed(1)} ms (+${overhead(wall.p95)})   mean ${wall.mean.toFixed(1)} ms (+${overhead(wall.mean)})`,
    `    over the measured time of the dependent calls (timer slop excluded): p50 +${(measured.p50 * 100).toFixed(1)}%   p95 +${(measured.p95 * 100).toFixed(1)}%`,
  ].join("\n");
}

/** Issue 11: one dialog exchange against the sum of its dependent model calls. */
export async function runDialogBench(): Promise<string> {
  const lines = [`(f) run_reasoning_exchange at ${latencyMs} ms per model call (n=${runs * 2} exchanges each: iterations 0 and 1; target: within 5% of the dependent calls)`];
  for (const entry of cases) lines.push(await benchCase(entry));
  return lines.join("\n");
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.stdout.write(`${await runDialogBench()}\n`);
}
