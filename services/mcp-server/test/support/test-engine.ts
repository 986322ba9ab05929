import { dialogModule } from "@deliberate/dialog";
import { createEngine, type DeliberateEngine } from "@deliberate/engine";
import type { ModelRouter } from "@deliberate/providers";
import { reasoningModule } from "@deliberate/reasoning";
import { testStorePlace } from "@deliberate/engine/testing";
import { openStore, type Store } from "@deliberate/store";

/** An engine composed like the server's (reasoning + dialog modules) over in-memory SQLite (a fresh Postgres schema with `DELIBERATE_TEST_ENGINE_DIALECT=postgres`). */
export async function createComposedEngine(models: ModelRouter): Promise<{ engine: DeliberateEngine; store: Store }> {
  const modules = [reasoningModule, dialogModule];
  const store = await openStore({ ...(await testStorePlace()), modules });
  return { engine: createEngine({ store, modules, models }), store };
}
