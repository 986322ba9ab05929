import {
  useTestEngines as useEngines,
  createTestEngine as createEngineForTests,
  type TestEngineOptions,
} from "@deliberate/engine/testing";
import type { ScriptedModelScript } from "@deliberate/providers/testing";
import { reasoningModule } from "./module.ts";
import type { ReasoningRepositories } from "./store/contribution.ts";

export { bySchemaName, createTestClock, errorOf } from "@deliberate/engine/testing";
export type { TestEngine } from "@deliberate/engine/testing";

/** Engines over the reasoning module for one test file (see the engine's `useTestEngines`). */
export function useTestEngines() {
  return useEngines<ReasoningRepositories>({ modules: [reasoningModule] });
}

/** An engine over the reasoning module, in-memory SQLite and the scripted model. */
export function createTestEngine(script: ScriptedModelScript, options: Partial<TestEngineOptions> = {}) {
  return createEngineForTests<ReasoningRepositories>(script, { modules: [reasoningModule], ...options });
}
