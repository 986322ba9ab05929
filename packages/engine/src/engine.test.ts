import { join } from "node:path";
import { ConfigError, DeliberateError } from "@deliberate/base";
import { needsCompletionSchema } from "@deliberate/contracts";
import { createModelRouterFromModel } from "@deliberate/providers";
import { createScriptedModel } from "@deliberate/providers/testing";
import { openStore, type Store } from "@deliberate/store";
import { afterEach, describe, expect, it } from "vitest";
import { noteTool, notesModule } from "../test/fixtures/notes-module.ts";
import { moduleSpecificationVersion } from "./define-module.ts";
import { createEngine, defineModule, exportSession, hostModelRouter, loadModules } from "./index.ts";
import { createMemorySettingsSource } from "./mode-settings.ts";
import { createSequentialIds } from "./ids.ts";

const stores: Store[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
});

async function storeWith(modules = [notesModule]) {
  const store = await openStore<{ notes: { count(): Promise<number> } }>({ path: ":memory:", modules });
  stores.push(store);
  return store;
}

const answer = { note: "Caches need invalidation.", confidence: 0.8 };

describe("a module composed by the engine", () => {
  it("serves its tool, runs its mode with the module's settings, writes its table and records one invocation", async () => {
    const store = await storeWith();
    const model = createScriptedModel(() => answer);
    const engine = createEngine({
      store,
      modules: [notesModule],
      models: createModelRouterFromModel(model),
      ids: createSequentialIds(),
    });
    expect(engine.tools.map((tool) => tool.name)).toEqual(["notes_take", "reasoning_submit"]);
    expect(engine.modes).toEqual(["notes"]);

    const output = await engine.invoke("notes_take", { topic: "caching" });
    expect(output).toMatchObject({ note: answer.note, confidence: 0.8 });
    expect(model.calls[0]).toMatchObject({ schemaName: "note", temperature: 0.3, maxTokens: 200 });
    expect(await store.notes.count()).toBe(1);
    const rows = await store.invocations.list({ tool: "notes_take" });
    expect(rows).toMatchObject([{ tool: "notes_take", success: true, model_calls: 1 }]);
  });

  it("completes host-executed: the prompt is handed to the caller and the call resumes from its answer", async () => {
    const store = await storeWith();
    const engine = createEngine({ store, modules: [notesModule], models: hostModelRouter });
    const step = needsCompletionSchema.parse(await engine.invoke("notes_take", { topic: "caching" }));
    expect(step.prompts).toHaveLength(1);
    expect(await store.notes.count()).toBe(0);
    const output = await engine.invoke("reasoning_submit", {
      resume_token: step.resume_token,
      answers: [{ prompt_id: step.prompts[0]!.id, answer }],
    });
    expect(output).toMatchObject({ note: answer.note });
    expect(await store.notes.count()).toBe(1);
    expect(await store.invocations.list({ tool: "notes_take" })).toMatchObject([{ success: true, provider: "host" }]);
  });

  it("reads settings per call, so a runtime override takes effect with no restart", async () => {
    const store = await storeWith();
    const model = createScriptedModel(() => answer);
    const runtime = createMemorySettingsSource();
    const engine = createEngine({
      store,
      modules: [notesModule],
      models: createModelRouterFromModel(model),
      modeSettings: { notes: { temperature: 0.1 } },
      runtimeSettings: runtime,
    });
    await engine.invoke("notes_take", { topic: "a" });
    runtime.set("notes", { maxTokens: 50 });
    await engine.invoke("notes_take", { topic: "b" });
    expect(model.calls.map((call) => [call.temperature, call.maxTokens])).toEqual([
      [0.1, 200],
      [0.1, 50],
    ]);
    expect(engine.settingsFor("notes")).toEqual({ temperature: 0.1, maxTokens: 50 });
  });

  it("puts the module's section in session records and exports", async () => {
    const store = await storeWith();
    const engine = createEngine({
      store,
      modules: [notesModule],
      models: createModelRouterFromModel(createScriptedModel(() => answer)),
    });
    await store.sessions.create({ id: "ses_1", mode: "notes", now: "2026-11-22T10:00:00.000Z" });
    await engine.invoke("notes_take", { topic: "caching", session_id: "ses_1" });
    const record = await engine.readSession("ses_1");
    expect(record["notes"]).toMatchObject([{ topic: "caching", note: answer.note }]);
    expect(exportSession(record, "markdown", engine.sections)).toContain(`## Notes\n\n- ${answer.note}`);
  });

  it("writes nothing for bad input, naming the field", async () => {
    const store = await storeWith();
    const engine = createEngine({
      store,
      modules: [notesModule],
      models: createModelRouterFromModel(createScriptedModel(() => answer)),
    });
    const error = await engine.invoke("notes_take", { topic: "" }).catch((caught: unknown) => caught);
    expect(DeliberateError.isInstance(error) && error.code).toBe("INVALID_INPUT");
    expect(DeliberateError.isInstance(error) && error.issues[0]?.field).toBe("topic");
    expect(await store.notes.count()).toBe(0);
    expect(await store.invocations.list({})).toEqual([]);
  });
});

describe("composition checks", () => {
  it("refuses two modules claiming one tool or one mode, a module composed twice, and a store opened without the module", async () => {
    const store = await storeWith();
    const models = hostModelRouter;
    const sameTool = defineModule({ name: "other", tools: notesModule.tools ?? [] });
    expect(() => createEngine({ store, models, modules: [notesModule, sameTool] })).toThrow(
      /Tool 'notes_take' of module other/,
    );
    const sameMode = defineModule({ name: "other", modes: { notes: { temperature: 1, maxTokens: 1 } } });
    expect(() => createEngine({ store, models, modules: [notesModule, sameMode] })).toThrow(
      /Mode 'notes' of module other/,
    );
    expect(() => createEngine({ store, models, modules: [notesModule, notesModule] })).toThrow(/composed twice/);
    const bare = await openStore({ path: ":memory:" });
    stores.push(bare);
    expect(() => createEngine({ store: bare, models, modules: [notesModule] })).toThrow(/open the store with it/);
    const methodWithoutTool = defineModule({ name: "m", methods: [{ method: "notes/take", tool: "nope" }] });
    expect(() => createEngine({ store: bare, models, modules: [methodWithoutTool] })).toThrow(/names tool 'nope'/);
  });

  it("maps a module's protocol methods to its tools", async () => {
    const store = await storeWith();
    const withMethod = defineModule({ ...notesModule, methods: [{ method: "notes/take", tool: noteTool.name }] });
    const engine = createEngine({ store, models: hostModelRouter, modules: [withMethod] });
    expect(engine.methods.get("notes/take")).toBe("notes_take");
  });
});

describe("loadModules (DELIBERATE_MODULES)", () => {
  const fixtures = join(import.meta.dirname, "..", "test", "fixtures");

  it("loads a module from a file path", async () => {
    const [module] = await loadModules([join(fixtures, "notes-module.ts")]);
    expect(module?.name).toBe("notes");
  });

  it("says which entry failed and why", async () => {
    await expect(loadModules([join(fixtures, "missing-module.ts")])).rejects.toBeInstanceOf(ConfigError);
    await expect(loadModules([join(fixtures, "not-a-module.ts")])).rejects.toThrow(/exports no module/);
  });

  it("stamps the module specification version it was built against", async () => {
    const [module] = await loadModules([join(fixtures, "notes-module.ts")]);
    expect(module?.specificationVersion).toBe(moduleSpecificationVersion);
    expect(defineModule({ name: "m", tools: [] }).specificationVersion).toBe(moduleSpecificationVersion);
  });

  it("refuses a module not made with defineModule, naming it and the fix", async () => {
    const error = await loadModules([join(fixtures, "unbranded-module.ts")]).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toMatch(
      /'plain', which was not made with defineModule and declares no specificationVersion: rebuild it with defineModule/,
    );
  });

  it("refuses a module built for an unsupported specification version, naming both versions", async () => {
    const error = await loadModules([join(fixtures, "future-module.ts")]).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toContain(
      `module 'future' from '${join(fixtures, "future-module.ts")}' is built for module specification 99; this service supports ${moduleSpecificationVersion}`,
    );
  });

  it("refuses a branded module whose specification version is missing", async () => {
    await expect(loadModules([join(fixtures, "versionless-module.ts")])).rejects.toThrow(
      /module 'versionless' from .* declares no specificationVersion/,
    );
  });
});
