import { type Clock, createEngine, createSequentialIds, type DeliberateEngine, type EngineOptions, type ToolContext, type ToolHandler } from "@deliberate/core";
import { createModelRouterFromModel, type ModelRouter } from "@deliberate/providers";
import { createScriptedModel, type ScriptedModel, type ScriptedModelScript } from "@deliberate/providers/testing";
import type { Kysely } from "kysely";
import { openStore, type Repositories, type Store } from "@deliberate/store";
import type { DialogModuleOptions, DialogRepositories, DialogToolContext } from "../dialog-context.ts";
import { createDialogHandlers } from "../dialog-handlers.ts";
import type { DialogDatabase } from "../store/dialog-database.ts";
import { createDialogSessionRepository } from "../store/dialog-session.repository.ts";
import { migrateDialogTables } from "./dialog-tables.ts";

function bindRepositories(repositories: Repositories): DialogRepositories {
  return { sessions: repositories.sessions, dialogSessions: createDialogSessionRepository(repositories.db as unknown as Kysely<DialogDatabase>) };
}

/** The dialog view of the current engine's tool context: the module's repository bound to its store and transactions. */
export function toDialogContext(context: ToolContext): DialogToolContext {
  const store = context.store;
  return {
    store: { ...bindRepositories(store), transaction: (work) => store.transaction((repositories) => work(bindRepositories(repositories))) },
    models: context.models as DialogToolContext["models"],
    clock: context.clock,
    ids: context.ids,
    signal: context.signal,
    progress: context.progress,
    usage: context.usage,
    concurrency: context.concurrency,
  };
}

/** The dialog handlers as the current engine's tool handlers (until modules register themselves). */
export function dialogHandlersForEngine(options: DialogModuleOptions = {}): ToolHandler[] {
  return createDialogHandlers(options).map(
    (handler) =>
      ({
        definition: handler.definition,
        handle: (input: never, context: ToolContext) => handler.handle(input, toDialogContext(context)),
      }) as unknown as ToolHandler,
  );
}

/** A clock tests move by hand. */
export interface TestClock extends Clock {
  advance(milliseconds: number): void;
}

export function createTestClock(start = "2026-11-23T10:00:00.000Z"): TestClock {
  let now = new Date(start).getTime();
  return { now: () => new Date(now), advance: (milliseconds) => (now += milliseconds) };
}

export interface DialogTestEngine {
  engine: DeliberateEngine;
  store: Store;
  model: ScriptedModel;
  clock: TestClock;
}

/** An engine with the dialog tools over in-memory SQLite and the scripted model (or the given router). */
export async function createDialogTestEngine(
  script: ScriptedModelScript,
  options: { router?: ModelRouter; dialog?: DialogModuleOptions; engine?: Partial<EngineOptions>; store?: Store; clock?: TestClock } = {},
): Promise<DialogTestEngine> {
  const store = options.store ?? (await openStore({ path: ":memory:" }));
  await migrateDialogTables(store.db as never);
  const model = createScriptedModel(script);
  const clock = options.clock ?? createTestClock();
  const engine = createEngine({
    store,
    models: options.router ?? createModelRouterFromModel(model),
    clock,
    ids: createSequentialIds(),
    handlers: dialogHandlersForEngine(options.dialog),
    ...options.engine,
  });
  return { engine, store, model, clock };
}
