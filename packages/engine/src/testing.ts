/**
 * Test helpers for modules: an engine over in-memory SQLite and the scripted
 * model, a fixed clock, answers by schema name, and `errorOf`.
 */
import { DeliberateError } from "@deliberate/base";
import { createModelRouterFromModel, type ModelRouter } from "@deliberate/providers";
import {
  createHostContext,
  expandNeedsCompletion,
  type NeedsCompletion,
  needsCompletionSchema,
  type PendingPrompt,
} from "@deliberate/contracts";
import { afterEach } from "vitest";
import { createScriptedModel, type ScriptedModel, type ScriptedModelScript } from "@deliberate/providers/testing";
import { openStore, type Store } from "@deliberate/store";
import { freshTestDatabase, openTestStore } from "@deliberate/store/testing";
import type { DeliberateModule } from "./define-module.ts";
export { answerFromSchema } from "./schema-answer.ts";
export { measureSchemaAcceptance, randomSchemaAnswer, schemaViolations } from "./schema-acceptance.ts";
export type { RejectedSample, SchemaAcceptance } from "./schema-acceptance.ts";
import { createEngine, type DeliberateEngine, type EngineOptions } from "./engine.ts";
import { createSequentialIds } from "./ids.ts";
import { testEngineDialect } from "./test-engine-dialect.ts";

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

export interface TestEngine<Extra extends object = object> {
  engine: DeliberateEngine;
  store: Store<Extra>;
  model: ScriptedModel;
  clock: ReturnType<typeof createTestClock>;
}

export type TestEngineOptions = Partial<EngineOptions> & { router?: ModelRouter; modules: readonly DeliberateModule[] };

/** An engine over in-memory SQLite (opened with the modules) and the scripted model. */
export async function createTestEngine<Extra extends object = object>(
  script: ScriptedModelScript,
  options: TestEngineOptions,
): Promise<TestEngine<Extra>> {
  const store =
    testEngineDialect() === "postgres"
      ? await openTestStore<Extra>("postgres", { modules: options.modules })
      : await openStore<Extra>({ path: ":memory:", modules: options.modules });
  const model = createScriptedModel(script);
  const clock = createTestClock();
  const engine = createEngine({
    store,
    models: options.router ?? createModelRouterFromModel(model),
    clock,
    ids: createSequentialIds(),
    ...options,
  });
  return { engine, store, model, clock };
}

export { testEngineDialect } from "./test-engine-dialect.ts";

const namedPlaces = new Map<string, Promise<{ path: string } | { url: string }>>();

/**
 * The `openStore` options of a store a test would open at `path` (default
 * `:memory:`). On SQLite, the path itself. With
 * `DELIBERATE_TEST_ENGINE_DIALECT=postgres`, a fresh schema on the run's
 * Postgres (this test file's own database) for `:memory:`, and for a file
 * path the same schema each time that path is given in this file, so a
 * restarted service, a second replica or a check after the run finds the
 * same data.
 */
export async function testStorePlace(path = ":memory:"): Promise<{ path: string } | { url: string }> {
  if (testEngineDialect() !== "postgres") return { path };
  if (path === ":memory:") return freshTestDatabase("postgres");
  let place = namedPlaces.get(path);
  if (place === undefined) {
    place = freshTestDatabase("postgres");
    namedPlaces.set(path, place);
    // A failed creation is not remembered: the next call tries again.
    place.catch(() => namedPlaces.delete(path));
  }
  return place;
}

/**
 * The environment of a spawned service (`deliberate-mcp`, `deliberate-api`,
 * `deliberate`) on the test dialect: on SQLite unchanged; with
 * `DELIBERATE_TEST_ENGINE_DIALECT=postgres`, `DATABASE_PATH` becomes a
 * `DATABASE_URL` to that path's place (see `testStorePlace`). An environment
 * that sets `DATABASE_URL`, or no `DATABASE_PATH`, is left as it is.
 */
export async function testServerEnvironment<Env extends Record<string, string | undefined>>(env: Env): Promise<Env> {
  const path = env["DATABASE_PATH"];
  if (testEngineDialect() !== "postgres" || env["DATABASE_URL"] !== undefined || path === undefined) return env;
  const place = await testStorePlace(path);
  if (!("url" in place)) return env;
  const { DATABASE_PATH: _path, ...rest } = env;
  return { ...rest, DATABASE_URL: place.url } as unknown as Env;
}

/** What a scripted answer function sees of the call: its messages (the prompt is the last). */
export interface ScriptedCallView {
  schemaName?: string;
  messages: ReadonlyArray<{ role: string; content: string }>;
}

/** Answers each structured call by its schema name; a function answer gets the model's call index and the call. */
export function bySchemaName(
  answers: Record<string, unknown | ((callIndex: number, call: ScriptedCallView) => unknown)>,
) {
  return (options: ScriptedCallView, callIndex: number): unknown => {
    const name = options.schemaName ?? "";
    if (!(name in answers)) throw new Error(`No scripted answer for schema ${name}`);
    const answer = answers[name];
    return typeof answer === "function"
      ? (answer as (index: number, call: ScriptedCallView) => unknown)(callIndex, options)
      : answer;
  };
}

/**
 * Engines for one test file: `setup` creates one (arguments as createTestEngine,
 * with `defaults` merged under the options) and every engine's store is closed
 * after each test. Call at the top of the file.
 */
export function useTestEngines<Extra extends object = object>(defaults: TestEngineOptions) {
  const engines: TestEngine<Extra>[] = [];
  afterEach(async () => {
    await Promise.all(engines.splice(0).map((testEngine) => testEngine.store.close()));
  });
  return {
    async setup(script: ScriptedModelScript, options: Partial<TestEngineOptions> = {}): Promise<TestEngine<Extra>> {
      const testEngine = await createTestEngine<Extra>(script, { ...defaults, ...options });
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

/** A host-executed call driven to its end: the result and the prompts handed out in each round. */
export interface HostDrive {
  result: Record<string, unknown>;
  /** One entry per needs_completion step answered: that step's prompts, in full (as the host rebuilt them). */
  rounds: PendingPrompt[][];
  /** The steps as the server sent them (compact unless the engine sends full prompts). */
  steps: NeedsCompletion[];
}

/**
 * Drives a host-executed call to its end as a calling agent would: invokes
 * the tool, answers every prompt of each needs_completion step with
 * `answer(prompt)`, and submits, until the result comes back. Fails after
 * `maxRounds` steps (a call that never finishes).
 */
export async function driveHostExecuted(
  engine: Pick<DeliberateEngine, "invoke">,
  tool: string,
  args: Record<string, unknown>,
  answer: (prompt: PendingPrompt) => unknown,
  options: { maxRounds?: number; beforeSubmit?: (round: number) => void } = {},
): Promise<HostDrive> {
  const maxRounds = options.maxRounds ?? 40;
  const rounds: PendingPrompt[][] = [];
  const steps: NeedsCompletion[] = [];
  // What this host keeps across the call's steps: a compact step names blocks earlier steps sent.
  const known = createHostContext();
  let result = await engine.invoke(tool, args);
  while (result["status"] === "needs_completion") {
    const step = needsCompletionSchema.parse(result);
    const prompts = expandNeedsCompletion(step, known);
    steps.push(step);
    rounds.push(prompts);
    if (rounds.length > maxRounds)
      throw new Error(
        `${tool} did not finish within ${maxRounds} rounds; last prompts: ${prompts.map((prompt) => prompt.name).join(", ")}`,
      );
    options.beforeSubmit?.(rounds.length);
    result = await engine.invoke("reasoning_submit", {
      resume_token: step.resume_token,
      answers: prompts.map((prompt) => ({ prompt_id: prompt.id, answer: answer(prompt) })),
    });
  }
  return { result, rounds, steps };
}
