// In-process loop of model-free reasoning_decision calls (each writes a session and a thought), for profiling
// the engine's write path without HTTP: `node --cpu-prof --import tsx tooling/bench/src/decision-write-loop.ts`.
// DECISION_LOOP_CALLS (default 20000), DECISION_LOOP_CONCURRENCY (default 50), DECISION_LOOP_DATABASE (default a temp file).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createEngine } from "@deliberate/engine";
import type { ModelRouter } from "@deliberate/providers";
import { reasoningModule } from "@deliberate/reasoning";
import { defaultInvocationBatch, openStore } from "@deliberate/store";

const calls = Number(process.env["DECISION_LOOP_CALLS"] ?? 20_000);
const concurrency = Number(process.env["DECISION_LOOP_CONCURRENCY"] ?? 50);
const directory = mkdtempSync(join(tmpdir(), "decision-loop-"));
const url = process.env["DECISION_LOOP_DATABASE"];
const store = await openStore({
  ...(url ? { url } : { path: join(directory, "loop.db") }),
  modules: [reasoningModule],
  invocationBatch: defaultInvocationBatch,
  groupCommit: true,
  backgroundCheckpoints: url ? undefined : true,
});
// No model: the call is model-free, and one that asked for a model would fail loudly.
const noModels: ModelRouter = {
  provider: "none",
  configured: false,
  forMode: () => {
    throw new Error("the decision loop makes model-free calls only");
  },
} as unknown as ModelRouter;
const engine = createEngine({ store, modules: [reasoningModule], models: noModels });
const input = {
  type: "weighted",
  question: "Which database?",
  options: ["SQLite", "Postgres", "DuckDB"],
  criteria: [
    { name: "cost", weight: 0.5, direction: "cost" },
    { name: "scale", weight: 0.3 },
    { name: "ops", weight: 0.2 },
  ],
  scores: [
    [1, 5, 9],
    [6, 9, 5],
    [2, 6, 7],
  ],
};
async function run(count: number) {
  let next = 0;
  const worker = async () => {
    while (next < count) {
      next += 1;
      await engine.invoke("reasoning_decision", input);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}
await run(2000);
const cpu = process.cpuUsage();
const started = performance.now();
await run(calls);
const elapsed = performance.now() - started;
const used = process.cpuUsage(cpu);
console.log(
  `${calls} calls, ${concurrency} concurrent: ${(calls / (elapsed / 1000)).toFixed(0)} calls/s, ${((used.user + used.system) / calls).toFixed(1)} µs CPU per call`,
);
await store.close();
rmSync(directory, { recursive: true, force: true });
