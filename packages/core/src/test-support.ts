import { DeliberateError } from "@deliberate/contracts";
import { createModelRouterFromModel, type ModelRouter } from "@deliberate/providers";
import { afterEach } from "vitest";
import { createScriptedModel, type ScriptedModel, type ScriptedModelScript } from "@deliberate/providers/testing";
import { openStore, type Store } from "@deliberate/store";
import { createEngine, type DeliberateEngine, type EngineOptions } from "./engine.ts";
import { createSequentialIds } from "./ids.ts";

/** Fixed clock for tests: every call sees the same instant unless advanced. */
export function createTestClock(start = "2026-11-22T10:00:00.000Z") {
  let now = new Date(start).getTime();
  return {
    now: () => new Date(now),
    advance: (milliseconds: number) => {
      now += milliseconds;
    },
  };
}

export interface TestEngine {
  engine: DeliberateEngine;
  store: Store;
  model: ScriptedModel;
  clock: ReturnType<typeof createTestClock>;
}

/** An engine over in-memory SQLite and the scripted model. */
export async function createTestEngine(script: ScriptedModelScript, options: Partial<EngineOptions> & { router?: ModelRouter } = {}): Promise<TestEngine> {
  const store = await openStore({ path: ":memory:" });
  const model = createScriptedModel(script);
  const clock = createTestClock();
  const engine = createEngine({ store, models: options.router ?? createModelRouterFromModel(model), clock, ids: createSequentialIds(), ...options });
  return { engine, store, model, clock };
}

/** Answers each structured call by its schema name. */
export function bySchemaName(answers: Record<string, unknown | ((callIndex: number) => unknown)>) {
  return (options: { schemaName?: string }, callIndex: number): unknown => {
    const name = options.schemaName ?? "";
    if (!(name in answers)) throw new Error(`No scripted answer for schema ${name}`);
    const answer = answers[name];
    return typeof answer === "function" ? (answer as (index: number) => unknown)(callIndex) : answer;
  };
}

/**
 * Engines for one test file: `setup` creates one (arguments as createTestEngine)
 * and every engine's store is closed after each test. Call at the top of the file.
 */
export function useTestEngines() {
  const engines: TestEngine[] = [];
  afterEach(async () => {
    await Promise.all(engines.splice(0).map((testEngine) => testEngine.store.close()));
  });
  return {
    async setup(...args: Parameters<typeof createTestEngine>): Promise<TestEngine> {
      const testEngine = await createTestEngine(...args);
      engines.push(testEngine);
      return testEngine;
    },
  };
}

/** The DeliberateError a call rejects with (fails the test if it resolves or throws something else). */
export async function errorOf(promise: Promise<unknown>): Promise<DeliberateError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!DeliberateError.isInstance(error)) throw new Error(`expected a DeliberateError, got ${String(error)}`);
  return error;
}
