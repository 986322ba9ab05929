import { createEngine, createTaskRunner, hostModelRouter } from "@deliberate/engine";
import { testStorePlace } from "@deliberate/engine/testing";
import { openStore, type Store } from "@deliberate/store";
import { afterEach, describe, expect, it } from "vitest";
import { createSelfImprovementModule } from "../src/module.ts";
import { serviceStateKey } from "../src/state.ts";
import type { SelfImprovementRepositories } from "../src/store/repositories/self-improvement.repository.ts";
import { createManualClock, fastLoop } from "./support/harness.ts";

const stores: Store<SelfImprovementRepositories>[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
});

/** A service's tasks on a fresh store, with every write of the service's settings noted in `events`. */
async function service(holder: string) {
  const module = createSelfImprovementModule({ ...fastLoop, holder });
  const store = await openStore<SelfImprovementRepositories>({ ...(await testStorePlace()), modules: [module] });
  stores.push(store);
  const events: string[] = [];
  const state = store.selfImprovement.state;
  const put = state.put.bind(state);
  state.put = (key, value, now) => {
    if (key === serviceStateKey) events.push("settings written");
    return put(key, value, now);
  };
  const clock = createManualClock();
  const runner = createTaskRunner({
    engine: createEngine({ store, modules: [module], models: hostModelRouter, clock }),
    clock,
  });
  return { store, runner, events };
}

describe("the service's settings for `status`", () => {
  it("are written after the tasks' start returns, not on the way to a client's first answer (a start's first write syncs SQLite's WAL)", async () => {
    const { store, runner, events } = await service("settings-holder");
    await runner.start();
    events.push("started");
    await expect
      .poll(() => store.selfImprovement.state.get(serviceStateKey), { timeout: 10_000 })
      .toMatchObject({ holder: "settings-holder" });
    expect(events).toEqual(["started", "settings written"]);
    await runner.stop();
  });

  it("are written before a stop that follows the start at once completes", async () => {
    const { store, runner } = await service("quick-stop");
    await runner.start();
    await runner.stop();
    expect(await store.selfImprovement.state.get(serviceStateKey)).toMatchObject({ holder: "quick-stop" });
  });
});
