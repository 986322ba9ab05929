import { createModelRouterFromModel } from "@deliberate/providers";
import { createScriptedModel } from "@deliberate/providers/testing";
import { openStore, type Store } from "@deliberate/store";
import { afterEach, describe, expect, it } from "vitest";
import { notesModule } from "../test/fixtures/notes-module.ts";
import type { InvocationEvent } from "./engine.ts";
import {
  type BackgroundTaskContext,
  createEngine,
  createTaskRunner,
  defineModule,
  type RuntimeSettingsSource,
} from "./index.ts";
import { createMemorySettingsSource } from "./mode-settings.ts";
import { createSequentialIds } from "./ids.ts";

const stores: Store[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
});

async function storeWith(modules = [notesModule]) {
  const store = await openStore({ path: ":memory:", modules });
  stores.push(store);
  return store;
}

const answer = { note: "Caches need invalidation.", confidence: 0.8 };

describe("a module's runtime settings source", () => {
  it("is layered over configuration and under the service's own source, and read per call", async () => {
    const store = await storeWith();
    const model = createScriptedModel(() => answer);
    const moduleSource = createMemorySettingsSource();
    const tuner = defineModule({ name: "tuner", runtimeSettings: moduleSource });
    const serviceSource = createMemorySettingsSource();
    const engine = createEngine({
      store,
      modules: [notesModule, tuner],
      models: createModelRouterFromModel(model),
      modeSettings: { notes: { temperature: 0.1 } },
      runtimeSettings: serviceSource,
    });
    moduleSource.set("notes", { temperature: 0.5, maxTokens: 120, timeoutMs: 900 });
    await engine.invoke("notes_take", { topic: "a" });
    serviceSource.set("notes", { maxTokens: 80 });
    await engine.invoke("notes_take", { topic: "b" });
    moduleSource.clear("notes");
    await engine.invoke("notes_take", { topic: "c" });
    expect(model.calls.map((call) => [call.temperature, call.maxTokens, call.timeoutMs])).toEqual([
      [0.5, 120, 900],
      [0.5, 80, 900],
      [0.1, 80, undefined],
    ]);
  });

  it("can change the engine's concurrency for calls started afterwards", async () => {
    const store = await storeWith();
    let concurrency: number | undefined;
    const source: RuntimeSettingsSource = { overridesFor: () => ({}), concurrency: () => concurrency };
    const engine = createEngine({
      store,
      modules: [notesModule, defineModule({ name: "tuner", runtimeSettings: source })],
      models: createModelRouterFromModel(createScriptedModel(() => answer)),
      concurrency: 3,
    });
    expect(engine.concurrencyNow()).toBe(3);
    concurrency = 7;
    expect(engine.concurrencyNow()).toBe(7);
    concurrency = 0; // not a usable concurrency: the configured one stays
    expect(engine.concurrencyNow()).toBe(3);
  });
});

describe("invocation observers", () => {
  it("tell each module of every recorded call: its row id and the modes it asked", async () => {
    const store = await storeWith();
    const events: InvocationEvent[] = [];
    const serviceEvents: InvocationEvent[] = [];
    const observer = defineModule({
      name: "observer",
      onInvocation: (event) => {
        events.push(event);
        throw new Error("an observer that throws changes nothing");
      },
    });
    let fail = false;
    const model = createScriptedModel(() => {
      if (fail) throw new Error("model down");
      return answer;
    });
    const engine = createEngine({
      store,
      modules: [notesModule, observer],
      models: createModelRouterFromModel(model),
      ids: createSequentialIds(),
      onInvocation: (event) => serviceEvents.push(event),
    });
    await engine.invoke("notes_take", { topic: "a" });
    fail = true;
    await expect(engine.invoke("notes_take", { topic: "b" })).rejects.toThrow();
    await expect(engine.invoke("notes_take", { topic: "" })).rejects.toThrow(); // a caller mistake: no row, no event
    const rows = await store.invocations.list({});
    expect(events.map((event) => [event.id, event.success, event.modes])).toEqual([
      [rows[1]?.id, true, ["notes"]],
      [rows[0]?.id, false, ["notes"]],
    ]);
    expect(serviceEvents).toEqual(events);
  });
});

describe("the task runner", () => {
  it("starts each task before scheduling, runs on demand without overlap, gives the engine's models and settings, and stops", async () => {
    const store = await storeWith();
    const seen: string[] = [];
    let contexts: BackgroundTaskContext[] = [];
    let active = 0;
    let maxActive = 0;
    const worker = defineModule({
      name: "worker",
      tasks: [
        {
          name: "worker.cycle",
          intervalMs: 60_000,
          async start(context) {
            seen.push("start");
            contexts.push(context);
          },
          async stop() {
            seen.push("stop");
          },
          async run(context) {
            active += 1;
            maxActive = Math.max(maxActive, active);
            await new Promise((resolve) => setTimeout(resolve, 20));
            seen.push("run");
            contexts.push(context);
            active -= 1;
          },
        },
      ],
    });
    const models = createModelRouterFromModel(createScriptedModel(() => answer));
    const engine = createEngine({
      store,
      modules: [notesModule, worker],
      models,
      modeSettings: { notes: { maxTokens: 99 } },
    });
    const runner = createTaskRunner({ engine });
    expect(runner.names).toEqual(["worker.cycle"]);
    await runner.start();
    await Promise.all([runner.runNow("worker.cycle"), runner.runNow("worker.cycle")]);
    expect(seen).toEqual(["start", "run", "run"]);
    expect(maxActive).toBe(1);
    expect(contexts[0]?.models).toBe(models);
    expect(contexts[0]?.settings("notes").maxTokens).toBe(99);
    expect(contexts[0]?.modes).toEqual(["notes"]);
    await expect(runner.runNow("nope")).rejects.toThrow(/No background task named 'nope'; tasks: worker.cycle/);
    await runner.stop();
    expect(seen.at(-1)).toBe("stop");
    expect(contexts.at(-1)?.signal.aborted).toBe(true);
    contexts = [];
  });

  it("runs tasks on their interval and logs a failed run without stopping the schedule", async () => {
    const store = await storeWith();
    let runs = 0;
    const lines: string[] = [];
    const flaky = defineModule({
      name: "flaky",
      tasks: [
        {
          name: "flaky.cycle",
          intervalMs: 60_000,
          async run() {
            runs += 1;
            if (runs === 1) throw new Error("first run fails");
          },
        },
      ],
    });
    const engine = createEngine({
      store,
      modules: [flaky],
      models: createModelRouterFromModel(createScriptedModel(() => answer)),
    });
    const runner = createTaskRunner({
      engine,
      intervals: { "flaky.cycle": 5 },
      log: (level, message) => lines.push(`${level} ${message}`),
    });
    await runner.start();
    const deadline = Date.now() + 10_000;
    while (runs < 3 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    await runner.stop();
    expect(runs).toBeGreaterThanOrEqual(3);
    expect(lines).toContain("error background task failed");
  });

  it("refuses two modules declaring one task name", async () => {
    const store = await storeWith();
    const task = { name: "same", intervalMs: 1000, run: async () => {} };
    expect(() =>
      createEngine({
        store,
        models: createModelRouterFromModel(createScriptedModel(() => answer)),
        modules: [defineModule({ name: "a", tasks: [task] }), defineModule({ name: "b", tasks: [task] })],
      }),
    ).toThrow(/Task 'same' of module b/);
  });
});
