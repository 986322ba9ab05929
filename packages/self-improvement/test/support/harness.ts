import { createEngine, createTaskRunner, type DeliberateEngine, type TaskRunner } from "@deliberate/engine";
import { createModelRouterFromModel, createOpenAIModel } from "@deliberate/providers";
import {
  createFakeModelServer,
  type FakeModelServer,
  type FakeRespond,
  respondBySchemaName,
} from "@deliberate/providers/testing";
import { openStore, type Store } from "@deliberate/store";
import { testStorePlace } from "@deliberate/engine/testing";
import {
  createSelfImprovementModule,
  type SelfImprovementModule,
  type SelfImprovementModuleOptions,
} from "../../src/module.ts";
import type { SelfImprovementRepositories } from "../../src/store/repositories/self-improvement.repository.ts";
import { probeModule } from "../fixtures/probe-module.ts";

/** A clock that tests move by hand. */
export function createManualClock(start = "2026-11-24T10:00:00.000Z") {
  let now = new Date(start).getTime();
  return {
    now: () => new Date(now),
    advance(milliseconds: number) {
      now += milliseconds;
    },
  };
}

/** Options a test almost always wants: small windows, no cooldown, rules unless said otherwise. */
export const fastLoop: SelfImprovementModuleOptions = {
  cycleMs: 3_600_000,
  syncMs: 3_600_000,
  defaultTimeoutMs: 300,
  monitor: { windowSize: 10, minSamples: 8, floors: { latencyMs: 50 } },
  analyzer: { use: "rules" },
  executor: {
    cooldownMs: 0,
    maxActionsPerHour: 50,
    allowlist: { timeoutMs: { min: 100, max: 5_000, step: 1_000, maxSteps: 2 } },
  },
  learner: { minSamples: 8 },
};

export interface Harness {
  server: FakeModelServer;
  module: SelfImprovementModule;
  store: Store<SelfImprovementRepositories>;
  engine: DeliberateEngine;
  runner: TaskRunner;
  clock: ReturnType<typeof createManualClock>;
  /**
   * Calls probe_ask `count` times, all at once or one after another; returns
   * how many failed. One after another, a call's latency is its own, not the
   * wait behind the others on a loaded machine (what a latency baseline wants).
   */
  call(count: number, order?: "at once" | "one by one"): Promise<number>;
  close(): Promise<void>;
}

/** An answer of the probe mode. */
export const probeAnswer = { object: { answer: "42", confidence: 0.8 } };

/**
 * The engine over SQLite with the probe module and the self-improvement
 * module, its model the real OpenAI SDK against the loopback fake server
 * (no retries, so a slow answer is a PROVIDER_TIMEOUT), tasks started.
 */
export async function createHarness(input: {
  options?: SelfImprovementModuleOptions;
  probe?: FakeRespond;
  diagnosis?: FakeRespond;
  path?: string;
  clock?: ReturnType<typeof createManualClock>;
  holder?: string;
}): Promise<Harness> {
  const server = await createFakeModelServer({
    respond: respondBySchemaName({
      probe_answer: input.probe ?? probeAnswer,
      ...(input.diagnosis ? { self_improvement_diagnosis: input.diagnosis } : {}),
    }),
  });
  // Real calls: a healthy call must never reach the timeout on a busy machine, so 1 s, and 2 s steps.
  const options: SelfImprovementModuleOptions = {
    ...fastLoop,
    defaultTimeoutMs: 1_000,
    ...input.options,
    monitor: { ...fastLoop.monitor, ...input.options?.monitor },
    analyzer: { ...fastLoop.analyzer, ...input.options?.analyzer },
    executor: {
      ...fastLoop.executor,
      allowlist: { timeoutMs: { min: 100, max: 9_000, step: 2_000, maxSteps: 2 } },
      ...input.options?.executor,
    },
    learner: { ...fastLoop.learner, ...input.options?.learner },
    holder: input.holder ?? "test-holder",
  };
  // The provider's own timeout is the one a mode without timeoutMs runs with: the module must know it.
  const model = createOpenAIModel({
    baseURL: server.openaiBaseURL,
    apiKey: "test",
    modelId: "fake-model",
    timeoutMs: options.defaultTimeoutMs ?? 1_000,
    maxRetries: 0,
  });
  const module = createSelfImprovementModule(options);
  const modules = [probeModule, module];
  // With DELIBERATE_TEST_ENGINE_DIALECT=postgres a fresh schema, or the same one for the same path (restarts, replicas).
  const store = await openStore<SelfImprovementRepositories>({
    ...(await testStorePlace(input.path)),
    modules,
    poolSize: 4,
  });
  const clock = input.clock ?? createManualClock();
  const engine = createEngine({ store, modules, models: createModelRouterFromModel(model), clock });
  const runner = createTaskRunner({ engine, clock });
  await runner.start();
  return {
    server,
    module,
    store,
    engine,
    runner,
    clock,
    async call(count, order = "at once") {
      const ask = (index: number) => engine.invoke("probe_ask", { question: `question ${index}` });
      const results: PromiseSettledResult<unknown>[] = [];
      if (order === "at once")
        results.push(...(await Promise.allSettled(Array.from({ length: count }, (_, index) => ask(index)))));
      else for (let index = 0; index < count; index += 1) results.push(...(await Promise.allSettled([ask(index)])));
      // Each batch gets its own instant (a second later), so windows split cleanly.
      clock.advance(1_000);
      return results.filter((result) => result.status === "rejected").length;
    },
    async close() {
      await runner.stop();
      await store.close();
      await server.close();
    },
  };
}
