import { DeliberateError } from "@deliberate/base";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createAnthropicModel } from "./anthropic-model.ts";
import type { GenerateOptions, GenerateProgress, LanguageModel } from "./language-model.ts";
import { createOpenAIModel } from "./openai-model.ts";
import { longRequestTokens } from "./streaming.ts";
import { createFakeModelServer, type FakeModelServer } from "./testing/index.ts";

/** Streaming from both providers, with the real SDKs against the fake server's SSE wire formats. */

const planSchema = z.object({ steps: z.array(z.string().min(1)).min(3) });
type Plan = z.infer<typeof planSchema>;
const valid: Plan = {
  steps: ["measure the wall", "cut the boards to length", "sand the edges", "drill the holes", "mount the brackets"],
};

interface ModelSettings {
  timeoutMs?: number;
}

const providers: Array<{
  name: "anthropic" | "openai";
  create(server: FakeModelServer, settings?: ModelSettings): LanguageModel;
}> = [
  {
    name: "anthropic",
    create: (server, settings = {}) =>
      createAnthropicModel({
        apiKey: "test-key",
        baseURL: server.anthropicBaseURL,
        modelId: "claude-test",
        timeoutMs: settings.timeoutMs ?? 10_000,
        maxRetries: 0,
      }),
  },
  {
    name: "openai",
    create: (server, settings = {}) =>
      createOpenAIModel({
        apiKey: "test-key",
        baseURL: server.openaiBaseURL,
        modelId: "gpt-test",
        timeoutMs: settings.timeoutMs ?? 10_000,
        maxRetries: 0,
      }),
  },
];

function ask(overrides: Partial<GenerateOptions<Plan>> = {}): GenerateOptions<Plan> {
  return {
    system: "You plan carpentry work.",
    messages: [{ role: "user", content: "Plan a shelf." }],
    schema: planSchema,
    schemaName: "plan",
    maxTokens: 400,
    ...overrides,
  };
}

async function failure(promise: Promise<unknown>): Promise<DeliberateError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!DeliberateError.isInstance(error)) throw new Error(`expected a DeliberateError, got ${String(error)}`);
  return error;
}

describe.each(providers)("$name streaming", ({ name, create }) => {
  let server: FakeModelServer;
  beforeAll(async () => {
    server = await createFakeModelServer();
  });
  afterAll(async () => {
    await server.close();
  });
  beforeEach(() => {
    server.reset();
  });

  it("streams when onProgress is given, reports progress per delta and ends with the provider's output count", async () => {
    server.setRespond({ object: valid, chunkCharacters: 8 });
    const events: GenerateProgress[] = [];
    const result = await create(server).generate(ask({ onProgress: (event) => events.push(event) }));

    expect(result.object).toEqual(valid);
    const request = server.requests[0];
    expect(request?.stream).toBe(true);
    if (name === "openai") expect(request?.body["stream_options"]).toEqual({ include_usage: true });
    const answerLength = JSON.stringify(valid).length;
    const deltas = events.filter((event) => !event.done);
    expect(deltas.length).toBe(Math.ceil(answerLength / 8));
    expect(deltas.every((event) => event.attempt === 0 && event.phase === "answer")).toBe(true);
    for (let index = 1; index < deltas.length; index += 1) {
      expect(deltas[index]?.outputTokens).toBeGreaterThanOrEqual(deltas[index - 1]?.outputTokens ?? 0);
      expect(deltas[index]?.characters).toBeGreaterThan(deltas[index - 1]?.characters ?? 0);
    }
    expect(deltas.at(-1)?.characters).toBe(answerLength);
    expect(events.at(-1)).toEqual({
      outputTokens: result.usage.outputTokens,
      characters: answerLength,
      attempt: 0,
      phase: "answer",
      done: true,
    });
    expect(events.filter((event) => event.done)).toHaveLength(1);
    expect(result.usage.inputTokens).toBeGreaterThan(0);
    expect(result.usage.outputTokens).toBe(Math.ceil(answerLength / 4));
  });

  it("delivers progress while the answer is still streaming", async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    // The server holds the end of the stream until the client has reported progress: a client that
    // only reported progress after the whole answer would wait forever (and the test time out).
    server.setRespond({ object: valid, streamGate: gate });
    const events: GenerateProgress[] = [];
    const result = await create(server).generate(
      ask({
        onProgress: (event) => {
          events.push(event);
          release();
        },
      }),
    );
    expect(result.object).toEqual(valid);
    expect(events[0]?.done).toBe(false);
    expect(events.at(-1)?.done).toBe(true);
  });

  it("streams by default only when progress is wanted or the answer may be long", async () => {
    server.setRespond({ object: valid });
    await create(server).generate(ask());
    await create(server).generate(ask({ maxTokens: longRequestTokens + 1 }));
    await create(server).generate(ask({ stream: true }));
    expect(server.requests.map((request) => request.stream)).toEqual([false, true, true]);
  });

  it("with stream: false and onProgress answers whole and reports one event per answer", async () => {
    server.setRespond({ object: valid });
    const events: GenerateProgress[] = [];
    const result = await create(server).generate(ask({ stream: false, onProgress: (event) => events.push(event) }));
    expect(server.requests[0]?.stream).toBe(false);
    expect(events).toEqual([
      { outputTokens: result.usage.outputTokens, characters: 0, attempt: 0, phase: "answer", done: true },
    ]);
  });

  it("reports the repair round as attempt 1, its tokens added to the first answer's", async () => {
    server.setRespond([{ object: { steps: ["too short"] } }, { object: valid }]);
    const events: GenerateProgress[] = [];
    const result = await create(server).generate(ask({ onProgress: (event) => events.push(event) }));

    expect(result.object).toEqual(valid);
    expect(server.requests.map((request) => request.stream)).toEqual([true, true]);
    const done = events.filter((event) => event.done);
    expect(done.map((event) => event.attempt)).toEqual([0, 1]);
    expect(done.at(-1)?.outputTokens).toBe(result.usage.outputTokens);
    const firstDone = done[0]?.outputTokens ?? 0;
    expect(
      events.filter((event) => event.attempt === 1 && !event.done).every((event) => event.outputTokens > firstDone),
    ).toBe(true);
  });

  it("fails with PROVIDER_UNAVAILABLE (retryable) when an error event arrives mid-stream", async () => {
    server.setRespond({
      object: valid,
      streamError: { status: name === "anthropic" ? 529 : 500, message: "Overloaded right now" },
    });
    const events: GenerateProgress[] = [];
    const error = await failure(create(server).generate(ask({ onProgress: (event) => events.push(event) })));
    expect(error.code).toBe("PROVIDER_UNAVAILABLE");
    expect(error.retryable).toBe(true);
    expect(error.message).toContain("Overloaded right now");
    expect(error.message).toContain("streaming");
    expect(events.length).toBeGreaterThan(0);
    expect(server.requests).toHaveLength(1);
  });

  it("fails with PROVIDER_TIMEOUT when the stream stalls for longer than the timeout", async () => {
    server.setRespond({ object: valid, streamDelayMs: 30_000 });
    // A timeout that leaves a loaded machine room for the answer to start; the stall is far longer.
    const error = await failure(create(server, { timeoutMs: 3_000 }).generate(ask({ stream: true })));
    expect(error.code).toBe("PROVIDER_TIMEOUT");
    expect(error.retryable).toBe(true);
    expect(error.message).toContain("stalled");
  });

  it("is cancelled by the signal mid-stream", async () => {
    const controller = new AbortController();
    server.setRespond({ object: valid, streamGate: new Promise(() => {}) });
    const error = await failure(
      create(server).generate(ask({ signal: controller.signal, onProgress: () => controller.abort() })),
    );
    expect(error.code).toBe("CANCELLED");
    expect(server.requests).toHaveLength(1);
  });

  it("ignores a progress callback that throws", async () => {
    server.setRespond({ object: valid });
    const result = await create(server).generate(
      ask({
        onProgress: () => {
          throw new Error("the notification channel is closed");
        },
      }),
    );
    expect(result.object).toEqual(valid);
  });

  it("streams plain text answers too", async () => {
    server.setRespond({ text: "Measure twice, cut once.", chunkCharacters: 5 });
    const events: GenerateProgress[] = [];
    const result = await create(server).generate({
      system: "Be brief.",
      messages: [{ role: "user", content: "Advice?" }],
      maxTokens: 50,
      onProgress: (event) => events.push(event),
    });
    expect(result).toMatchObject({ text: "Measure twice, cut once.", object: undefined, finishReason: "stop" });
    expect(events.filter((event) => !event.done)).toHaveLength(5);
  });

  it("reports an answer cut off at the token limit as `length`", async () => {
    server.setRespond({ text: "Measure twice", finishReason: "length" });
    const result = await create(server).generate({
      system: "",
      messages: [{ role: "user", content: "Advice?" }],
      maxTokens: 3,
      stream: true,
    });
    expect(result.finishReason).toBe("length");
  });
});

describe("anthropic streaming with thinking", () => {
  let server: FakeModelServer;
  beforeAll(async () => {
    server = await createFakeModelServer();
  });
  afterAll(async () => {
    await server.close();
  });

  it("reports thinking deltas as the thinking phase before the answer", async () => {
    server.setRespond({ object: valid, chunkCharacters: 10 });
    const model = providers[0]?.create(server);
    const events: GenerateProgress[] = [];
    const result = await model?.generate(
      ask({ modelId: "claude-sonnet-4-5", thinkingBudget: 1_024, onProgress: (event) => events.push(event) }),
    );
    expect(result?.object).toEqual(valid);
    const phases = events.filter((event) => !event.done).map((event) => event.phase);
    expect(phases[0]).toBe("thinking");
    expect(phases.at(-1)).toBe("answer");
    expect(phases.indexOf("answer")).toBeGreaterThan(phases.lastIndexOf("thinking"));
  });
});

describe("openai streaming refused by the server", () => {
  let server: FakeModelServer;
  beforeAll(async () => {
    server = await createFakeModelServer();
  });
  afterAll(async () => {
    await server.close();
  });

  it("asks again without streaming, and does not stream that model again", async () => {
    server.setRespond((request) =>
      request.stream && request.model === "o3"
        ? { status: 400, message: "Your organization must be verified to stream this model." }
        : { object: valid },
    );
    const model = createOpenAIModel({
      apiKey: "k",
      baseURL: server.openaiBaseURL,
      modelId: "o3",
      timeoutMs: 10_000,
      maxRetries: 0,
    });
    const events: GenerateProgress[] = [];
    const first = await model.generate(ask({ onProgress: (event) => events.push(event) }));
    const second = await model.generate(ask({ onProgress: () => {} }));
    const other = await model.generate(ask({ modelId: "gpt-test", onProgress: () => {} }));

    expect([first.object, second.object, other.object]).toEqual([valid, valid, valid]);
    expect(server.requests.map((request) => [request.model, request.stream])).toEqual([
      ["o3", true],
      ["o3", false],
      ["o3", false],
      ["gpt-test", true],
    ]);
    expect(events).toEqual([
      { outputTokens: first.usage.outputTokens, characters: 0, attempt: 0, phase: "answer", done: true },
    ]);
  });

  it("still reports other 400s as PROVIDER_BAD_REQUEST without asking again", async () => {
    server.reset();
    server.setRespond({ status: 400, message: "max_tokens is too large" });
    const model = createOpenAIModel({
      apiKey: "k",
      baseURL: server.openaiBaseURL,
      modelId: "gpt-test",
      timeoutMs: 10_000,
      maxRetries: 0,
    });
    const error = await failure(model.generate(ask({ stream: true })));
    expect(error.code).toBe("PROVIDER_BAD_REQUEST");
    expect(server.requests).toHaveLength(1);
  });
});
