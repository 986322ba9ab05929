import {
  createEngine,
  createTaskRunner,
  type DeliberateEngine,
  hostModelRouter,
  type TaskRunner,
} from "@deliberate/engine";
import type { ModelRouter } from "@deliberate/providers";
import { openStore, type Store } from "@deliberate/store";
import { testStorePlace } from "@deliberate/engine/testing";
import {
  createSelfImprovementModule,
  type SelfImprovementModule,
  type SelfImprovementModuleOptions,
} from "../../src/module.ts";
import type { SelfImprovementRepositories } from "../../src/store/repositories/self-improvement.repository.ts";
import { probeModule } from "../fixtures/probe-module.ts";
import { createManualClock, fastLoop } from "./harness.ts";

/** One synthetic invocation row's outcome. */
export interface SyntheticCall {
  success?: boolean;
  latency?: number;
  error_code?: string;
  error_message?: string;
  quality?: number | null;
  model_calls?: number;
  /** The call started this long before it was recorded (default 0: synthetic calls take no time). */
  startedBeforeMs?: number;
}

export interface SyntheticHarness {
  module: SelfImprovementModule;
  store: Store<SelfImprovementRepositories>;
  engine: DeliberateEngine;
  runner: TaskRunner;
  clock: ReturnType<typeof createManualClock>;
  /** Writes `count` invocation rows of `tool` (one millisecond apart) and records that the tool asks `mode`. */
  record(tool: string, mode: string, count: number, call?: SyntheticCall): Promise<void>;
  close(): Promise<void>;
}

let sequence = 0;

/**
 * The engine with the probe and self-improvement modules and no server-side
 * model (host-executed), fed invocation rows written directly: the monitor,
 * analyzer, executor and learner see exactly the figures a test chose.
 */
export async function createSyntheticHarness(
  input: {
    options?: SelfImprovementModuleOptions;
    path?: string;
    holder?: string;
    models?: ModelRouter;
    clock?: ReturnType<typeof createManualClock>;
  } = {},
): Promise<SyntheticHarness> {
  const options: SelfImprovementModuleOptions = {
    ...fastLoop,
    ...input.options,
    monitor: { ...fastLoop.monitor, ...input.options?.monitor },
    analyzer: { ...fastLoop.analyzer, ...input.options?.analyzer },
    executor: { ...fastLoop.executor, ...input.options?.executor },
    learner: { ...fastLoop.learner, ...input.options?.learner },
    holder: input.holder ?? "synthetic-holder",
  };
  const module = createSelfImprovementModule(options);
  const modules = [probeModule, module];
  // With DELIBERATE_TEST_ENGINE_DIALECT=postgres a fresh schema, or the same one for the same path (restarts, replicas).
  const store = await openStore<SelfImprovementRepositories>({
    ...(await testStorePlace(input.path)),
    modules,
    poolSize: 4,
  });
  const clock = input.clock ?? createManualClock();
  const engine = createEngine({ store, modules, models: input.models ?? hostModelRouter, clock });
  const runner = createTaskRunner({ engine, clock });
  await runner.start();
  return {
    module,
    store,
    engine,
    runner,
    clock,
    async record(tool, mode, count, call = {}) {
      const success = call.success ?? true;
      for (let index = 0; index < count; index += 1) {
        sequence += 1;
        await store.invocations.record({
          id: `inv_${String(sequence).padStart(8, "0")}`,
          tool,
          operation: null,
          session_id: null,
          provider: "fake",
          model: "fake-model",
          input_tokens: 10,
          output_tokens: 10,
          cache_read_tokens: 0,
          cache_write_tokens: 0,
          model_calls: call.model_calls ?? 1,
          latency_ms: call.latency ?? 20,
          success,
          error_code: success ? null : (call.error_code ?? "PROVIDER_TIMEOUT"),
          error_message: success ? null : (call.error_message ?? "timed out"),
          quality: call.quality === undefined ? (success ? 0.8 : null) : call.quality,
          created_at: clock.now().toISOString(),
          started_at: new Date(clock.now().getTime() - (call.startedBeforeMs ?? 0)).toISOString(),
        });
        clock.advance(1);
      }
      await store.selfImprovement.toolModes.observe({ tool, mode, calls: count, now: clock.now().toISOString() });
      clock.advance(1_000);
    },
    async close() {
      await runner.stop();
      await store.close();
    },
  };
}
