import {
  type Clock,
  createEngine,
  createSequentialIds,
  type DeliberateEngine,
  type DeliberateModule,
  type EngineOptions,
} from "@deliberate/engine";
import { createModelRouterFromModel, type ModelRouter } from "@deliberate/providers";
import { createScriptedModel, type ScriptedModel, type ScriptedModelScript } from "@deliberate/providers/testing";
import { openStore, type Store } from "@deliberate/store";
import type { DialogModuleOptions, DialogRepositories } from "../dialog-context.ts";
import { createDialogModule } from "../module.ts";

/** A clock tests move by hand. */
export interface TestClock extends Clock {
  advance(milliseconds: number): void;
}

export function createTestClock(start = "2026-11-23T10:00:00.000Z"): TestClock {
  let now = new Date(start).getTime();
  return {
    now: () => new Date(now),
    advance: (milliseconds) => {
      now += milliseconds;
    },
  };
}

export interface DialogTestEngine {
  engine: DeliberateEngine;
  store: Store<DialogRepositories>;
  model: ScriptedModel;
  clock: TestClock;
  module: DeliberateModule<DialogRepositories>;
}

export interface DialogTestEngineOptions {
  /** Server models (default: the scripted model of `script`); `hostModelRouter` for host execution. */
  router?: ModelRouter;
  /** Options of the dialog module. */
  dialog?: DialogModuleOptions;
  /** Database file (default in memory); a path lets a test restart the engine on it. */
  path?: string;
  clock?: TestClock;
  engine?: Partial<EngineOptions>;
}

/** An engine serving the dialog module over SQLite and the scripted model. Close `store` when done. */
export async function createDialogTestEngine(
  script: ScriptedModelScript,
  options: DialogTestEngineOptions = {},
): Promise<DialogTestEngine> {
  const module = createDialogModule(options.dialog);
  const store = await openStore<DialogRepositories>({ path: options.path ?? ":memory:", modules: [module] });
  const model = createScriptedModel(script);
  const clock = options.clock ?? createTestClock();
  const engine = createEngine({
    store,
    modules: [module as DeliberateModule],
    models: options.router ?? createModelRouterFromModel(model),
    clock,
    ids: createSequentialIds(),
    ...options.engine,
  });
  return { engine, store, model, clock, module };
}
