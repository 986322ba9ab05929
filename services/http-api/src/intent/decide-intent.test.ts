import { createEngine, createSequentialIds, type Engine, systemClock } from "@deliberate/engine";
import { reasoningModes, reasoningModule } from "@deliberate/reasoning";
import { openStore, type Store } from "@deliberate/store";
import { afterEach } from "vitest";
import { agentIntentModule } from "../agent-intent-module.ts";
import {
  createModelRouter,
  createModelRouterFromModel,
  emptyUsage,
  parseProviderEnvironment,
  type GenerateOptions,
  type LanguageModel,
} from "@deliberate/providers";
import { describe, expect, it } from "vitest";
import { createSecretRegistry } from "../logger.ts";
import type { Telemetry } from "../telemetry.ts";
import { createIntentDecider } from "./decide-intent.ts";

const telemetry: Telemetry = { record() {}, flush: async () => {} };

/** A model that answers `answer` without validating it (as a careless provider might). */
function unvalidatedModel(answer: unknown, calls: Array<GenerateOptions<unknown>> = []): LanguageModel {
  return {
    provider: "stub",
    modelId: "stub-1",
    async generate<T>(options: GenerateOptions<T>) {
      calls.push(options as GenerateOptions<unknown>);
      return {
        object: answer as T,
        text: JSON.stringify(answer),
        usage: emptyUsage,
        finishReason: "stop" as const,
        modelId: "stub-1",
      };
    },
  };
}

const stores: Store[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
});
const autoSettings = reasoningModes.find((declaration) => declaration.mode === "auto")!.settings;

/** An engine with the modules the API composes, over in-memory SQLite. */
async function engineFor(model: LanguageModel): Promise<Engine> {
  const modules = [reasoningModule, agentIntentModule];
  const store = await openStore({ path: ":memory:", modules });
  stores.push(store);
  return createEngine({ store, modules, models: createModelRouterFromModel(model) });
}

async function decider(model: LanguageModel) {
  return createIntentDecider({
    engine: await engineFor(model),
    providers: parseProviderEnvironment({}),
    serverModels: createModelRouterFromModel(model),
    clock: systemClock,
    ids: createSequentialIds(),
    secrets: createSecretRegistry(),
    telemetry,
  });
}

const tools = [
  {
    name: "fs.read_file",
    input_schema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
  },
];
const signal = new AbortController().signal;

describe("the intent decision", () => {
  it("checks the model's answer in code even when the provider did not", async () => {
    const invented = await decider(
      unvalidatedModel({ reasoning: "r", tool_name: "shell.exec", tool_args: {}, final_text: "" }),
    );
    await expect(invented.decide({ goal_text: "x", tools }, { signal })).rejects.toMatchObject({
      code: "MODEL_OUTPUT_INVALID",
      issues: [{ field: "tool_name" }],
    });
    const badArgs = await decider(
      unvalidatedModel({ reasoning: "r", tool_name: "fs.read_file", tool_args: { path: 7 }, final_text: "" }),
    );
    await expect(badArgs.decide({ goal_text: "x", tools }, { signal })).rejects.toMatchObject({
      code: "MODEL_OUTPUT_INVALID",
      issues: [{ field: "tool_args.path" }],
    });
  });

  it("asks with the auto mode's settings and an answer schema that enforces the tools", async () => {
    const calls: Array<GenerateOptions<unknown>> = [];
    const ok = await decider(
      unvalidatedModel(
        { reasoning: "r", tool_name: "fs.read_file", tool_args: { path: "a.ts" }, final_text: "" },
        calls,
      ),
    );
    const response = await ok.decide({ goal_text: "read a.ts", tools }, { signal });
    expect(response).toMatchObject({
      tool_name: "fs.read_file",
      tool_args: { path: "a.ts" },
      decided_by: "model",
      model: { provider: "stub", model_id: "stub-1" },
    });
    const call = calls[0];
    expect(call).toMatchObject({
      schemaName: "agent_next_action",
      temperature: autoSettings.temperature,
      maxTokens: autoSettings.maxTokens,
    });
    expect(
      call?.schema?.safeParse({ reasoning: "r", tool_name: "fs.read_file", tool_args: {}, final_text: "" }).success,
    ).toBe(false);
    expect(call?.schema?.safeParse({ reasoning: "r", tool_name: "nope", tool_args: {}, final_text: "" }).success).toBe(
      false,
    );
    expect(
      call?.schema?.safeParse({ reasoning: "r", tool_name: "finish", tool_args: {}, final_text: "done" }).success,
    ).toBe(true);
  });

  it("scrubs a request's key from error messages", async () => {
    const key = "sk-leaky-key-1234567890";
    const leaky: LanguageModel = {
      provider: "stub",
      modelId: "stub-1",
      generate: () => Promise.reject(new Error(`upstream said: bad key ${key}`)),
    };
    const failing = createIntentDecider({
      engine: await engineFor(leaky),
      providers: parseProviderEnvironment({}),
      serverModels: createModelRouterFromModel(leaky),
      clock: systemClock,
      ids: createSequentialIds(),
      secrets: createSecretRegistry(),
      telemetry,
      createRouter: () => createModelRouterFromModel(leaky),
    });
    const error = await failing
      .decide({ goal_text: "x", llm: { provider: "openai", api_key: key } }, { signal })
      .catch((caught: unknown) => caught);
    expect(String((error as Error).message)).not.toContain(key);
    expect((error as Error).message).toContain("[redacted]");
  });
});

describe("without a usable model", () => {
  it("names, in each decision's trace, why that decision had no model (the reasons' routers are shared)", async () => {
    const unconfigured = createModelRouter(parseProviderEnvironment({}));
    const heuristic = createIntentDecider({
      engine: await engineFor(unvalidatedModel({})),
      providers: parseProviderEnvironment({}),
      serverModels: unconfigured,
      clock: systemClock,
      ids: createSequentialIds(),
      secrets: createSecretRegistry(),
      telemetry,
    });
    const whyNoModel = async (request: Record<string, unknown>) => {
      const decision = await heuristic.decide({ goal_text: "search project for TODOs", ...request }, { signal });
      expect(decision.decided_by).toBe("heuristic");
      return decision.trace.map((step) => step.detail).join(" | ");
    };
    const server = await whyNoModel({});
    expect(server).toContain("no model provider is configured");
    for (const provider of ["anthropic", "openai", "anthropic"]) {
      const fromRequest = await whyNoModel({ llm: { provider } });
      expect(fromRequest).toContain(`llm.provider is ${provider} but no key was given`);
      expect(await whyNoModel({})).toBe(server);
    }
  });
});
