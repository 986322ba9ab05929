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
import { startRoundTripCounter } from "./postgres-round-trips.ts";
import { benchDecisionInput } from "./decision-input.ts";

const calls = Number(process.env["DECISION_LOOP_CALLS"] ?? 20_000);
const concurrency = Number(process.env["DECISION_LOOP_CONCURRENCY"] ?? 50);
const directory = mkdtempSync(join(tmpdir(), "decision-loop-"));
const url = process.env["DECISION_LOOP_DATABASE"];
/** The store as the HTTP API opens it, on SQLite here or on Postgres at `at`. */
const openLoopStore = (at: string | undefined) =>
  openStore({
    ...(at ? { url: at } : { path: join(directory, "loop.db") }),
    modules: [reasoningModule],
    invocationBatch: defaultInvocationBatch,
    groupCommit: true,
    backgroundCheckpoints: at ? undefined : true,
  });
// No model: the call is model-free, and one that asked for a model would fail loudly.
const noModels: ModelRouter = {
  provider: "none",
  configured: false,
  forMode: () => {
    throw new Error("the decision loop makes model-free calls only");
  },
} as unknown as ModelRouter;

const input = benchDecisionInput;
async function run(engine: ReturnType<typeof createEngine>, count: number, workers = concurrency) {
  let next = 0;
  const worker = async () => {
    while (next < count) {
      next += 1;
      await engine.invoke("reasoning_decision", input);
    }
  };
  await Promise.all(Array.from({ length: workers }, worker));
}
if (url) {
  // Round trips per call, counted at the protocol by a proxy (apart from the timed run, which it would slow):
  // 200 calls one at a time, and the batched invocation rows they leave (written on close).
  const counter = await startRoundTripCounter(url);
  const counted = await openLoopStore(counter.url);
  const countedEngine = createEngine({ store: counted, modules: [reasoningModule], models: noModels });
  await run(countedEngine, 20, 1);
  await counted.invocations.flush();
  const before = counter.count();
  let own = 0;
  for (let call = 0; call < 200; call += 1) {
    // The rows of earlier calls written first, so the count between is this call's own writes.
    await counted.invocations.flush();
    const start = counter.count();
    await countedEngine.invoke("reasoning_decision", input);
    own += counter.count() - start;
  }
  await counted.close();
  const ownPerCall = own / 200;
  const rowsPerCall = (counter.count() - before - own) / 200;
  await counter.stop();
  console.log(
    `Postgres round trips per call: ${ownPerCall.toFixed(2)} for its writes; its invocation row, flushed after each call here, ${rowsPerCall.toFixed(2)} more (batched in service: 128 rows or 20 ms to a transaction)`,
  );
}
const store = await openLoopStore(url);
const engine = createEngine({ store, modules: [reasoningModule], models: noModels });
await run(engine, 2000);
const cpu = process.cpuUsage();
const started = performance.now();
await run(engine, calls);
const elapsed = performance.now() - started;
const used = process.cpuUsage(cpu);
console.log(
  `${calls} calls, ${concurrency} concurrent: ${(calls / (elapsed / 1000)).toFixed(0)} calls/s, ${((used.user + used.system) / calls).toFixed(1)} µs CPU per call`,
);
await store.close();
rmSync(directory, { recursive: true, force: true });
