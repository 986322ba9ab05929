import { DeliberateError } from "@deliberate/base";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { GenerateOptions } from "../language-model.ts";
import { createScriptedModel } from "./scripted-model.ts";

const schema = z.object({ answer: z.number().int() });
const ask: GenerateOptions<{ answer: number }> = {
  system: "Count.",
  messages: [{ role: "user", content: "How many?" }],
  schema,
  schemaName: "count",
  maxTokens: 50,
};

async function failure(promise: Promise<unknown>): Promise<DeliberateError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!DeliberateError.isInstance(error)) throw new Error(`expected a DeliberateError, got ${String(error)}`);
  return error;
}

describe("createScriptedModel", () => {
  it("answers by function of the call and records the calls", async () => {
    const model = createScriptedModel((options, callIndex) => ({ answer: options.messages.length * 10 + callIndex }));
    const first = await model.generate(ask);
    const second = await model.generate({ ...ask, messages: [...ask.messages, { role: "user", content: "Again." }] });
    expect([first.object, second.object]).toEqual([{ answer: 10 }, { answer: 21 }]);
    expect(model.calls.map((call) => [call.index, call.repair, call.schemaName])).toEqual([
      [0, false, "count"],
      [1, false, "count"],
    ]);
    expect(first).toMatchObject({ modelId: "scripted-model", finishReason: "stop" });
    expect(model.provider).toBe("scripted");
    expect(first.usage.inputTokens).toBeGreaterThan(0);
  });

  it("answers with a fixed value", async () => {
    const model = createScriptedModel({ answer: { answer: 3 }, modelId: "fixed", usage: { inputTokens: 7 } });
    const result = await model.generate(ask);
    expect(result).toMatchObject({ object: { answer: 3 }, modelId: "fixed", usage: { inputTokens: 7 } });
    expect((await model.generate({ ...ask, modelId: "per-call" })).modelId).toBe("per-call");
  });

  it("answers from a list, one per call, and says when it runs out", async () => {
    const model = createScriptedModel([{ answer: 1 }, '```json\n{"answer": 2}\n```']);
    expect((await model.generate(ask)).object).toEqual({ answer: 1 });
    expect((await model.generate(ask)).object).toEqual({ answer: 2 });
    const error = await failure(model.generate(ask));
    expect(error.message).toContain("ran out of answers at call 3");
  });

  it("throws an Error found in the list, as a provider failure", async () => {
    const limited = new DeliberateError({ code: "PROVIDER_RATE_LIMITED", message: "slow down", retryable: true });
    const model = createScriptedModel([limited, { answer: 1 }]);
    expect(await failure(model.generate(ask))).toBe(limited);
    expect((await model.generate(ask)).object).toEqual({ answer: 1 });
  });

  it("repairs an invalid answer once, showing the problems to the script", async () => {
    const model = createScriptedModel([{ answer: 1.5 }, { answer: 2 }]);
    const result = await model.generate(ask);
    expect(result.object).toEqual({ answer: 2 });
    expect(model.calls).toHaveLength(2);
    expect(model.calls[1]?.repair).toBe(true);
    expect(model.calls[1]?.messages.at(-2)).toEqual({ role: "assistant", content: '{"answer":1.5}' });
    expect(model.calls[1]?.messages.at(-1)?.content).toContain("answer:");
    expect(result.usage.inputTokens).toBeGreaterThan(model.calls[0]?.messages.length ?? 0);
  });

  it("fails with MODEL_OUTPUT_INVALID after a second invalid answer", async () => {
    const model = createScriptedModel({ answer: "forty-two" });
    const error = await failure(model.generate(ask));
    expect(error.code).toBe("MODEL_OUTPUT_INVALID");
    expect(error.issues).toEqual([{ field: "(answer)", message: expect.stringContaining("not valid JSON") }]);
    expect(model.calls).toHaveLength(2);
  });

  it("returns text for calls without a schema", async () => {
    const model = createScriptedModel({ answer: "plain words" });
    const result = await model.generate({
      system: "",
      messages: [{ role: "user", content: "Say it." }],
      maxTokens: 10,
    });
    expect(result).toMatchObject({ text: "plain words", object: undefined });
  });

  it("waits its latency and is cancelled by the signal", async () => {
    const controller = new AbortController();
    const model = createScriptedModel({ answer: { answer: 1 }, latencyMs: 10_000 });
    const pending = model.generate({ ...ask, signal: controller.signal });
    controller.abort();
    const error = await failure(pending);
    expect(error.code).toBe("CANCELLED");

    const quick = createScriptedModel({ answer: { answer: 1 }, latencyMs: 1 });
    expect((await quick.generate(ask)).object).toEqual({ answer: 1 });
  });

  it("reports each answer to onProgress as one delta and its completion, the repair round as attempt 1", async () => {
    const model = createScriptedModel([{ answer: 1.5 }, { answer: 2 }]);
    const events: Array<{ attempt: number; done: boolean; outputTokens: number }> = [];
    const result = await model.generate({
      ...ask,
      onProgress: ({ attempt, done, outputTokens }) => events.push({ attempt, done, outputTokens }),
    });
    expect(events.map(({ attempt, done }) => [attempt, done])).toEqual([
      [0, false],
      [0, true],
      [1, false],
      [1, true],
    ]);
    expect(events.at(-1)?.outputTokens).toBe(result.usage.outputTokens);
  });
});
