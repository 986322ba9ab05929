import { DeliberateError } from "@deliberate/base";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createAnthropicModel } from "./anthropic-model.ts";
import { modelSpendOf } from "./generate-with-repair.ts";
import type { GenerateOptions, LanguageModel } from "./language-model.ts";
import { createOpenAIModel } from "./openai-model.ts";
import { createFakeModelServer, type FakeModelServer } from "./testing/index.ts";

/** The behaviour both real providers share, run with the real SDKs against the loopback fake server. */

const verdictSchema = z.object({
  answer: z.string().min(1),
  confidence: z.number().min(0).max(1),
});
const valid = { answer: "Paris", confidence: 0.9 };

interface ModelSettings {
  apiKey?: string;
  timeoutMs?: number;
  maxRetries?: number;
}

const providers: Array<{ name: string; create(server: FakeModelServer, settings?: ModelSettings): LanguageModel }> = [
  {
    name: "anthropic",
    create: (server, settings = {}) =>
      createAnthropicModel({
        apiKey: settings.apiKey ?? "test-key",
        baseURL: server.anthropicBaseURL,
        modelId: "claude-test",
        timeoutMs: settings.timeoutMs ?? 10_000,
        maxRetries: settings.maxRetries ?? 2,
      }),
  },
  {
    name: "openai",
    create: (server, settings = {}) =>
      createOpenAIModel({
        apiKey: settings.apiKey ?? "test-key",
        baseURL: server.openaiBaseURL,
        modelId: "gpt-test",
        timeoutMs: settings.timeoutMs ?? 10_000,
        maxRetries: settings.maxRetries ?? 2,
      }),
  },
];

/** Every provider twice: answering whole, and streaming (`stream: true` on every call). */
const variants = providers.flatMap((provider) =>
  [false, true].map((stream) => ({
    name: provider.name,
    label: stream ? `${provider.name} (streamed)` : provider.name,
    stream,
    create: (server: FakeModelServer, settings?: ModelSettings) =>
      withStream(provider.create(server, settings), stream),
  })),
);

function withStream(model: LanguageModel, stream: boolean): LanguageModel {
  return {
    provider: model.provider,
    modelId: model.modelId,
    generate: (options) => model.generate({ stream, ...options }),
  };
}

function ask(
  overrides: Partial<GenerateOptions<z.infer<typeof verdictSchema>>> = {},
): GenerateOptions<z.infer<typeof verdictSchema>> {
  return {
    system: "You are a careful geographer. Answer precisely and say how sure you are.",
    messages: [{ role: "user", content: "What is the capital of France?" }],
    schema: verdictSchema,
    schemaName: "verdict",
    maxTokens: 300,
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

describe.each(variants)("$label provider against the fake server", ({ name, stream, create }) => {
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

  it("returns the validated object with usage, including prompt-cache reads on the second call", async () => {
    server.setRespond({ object: valid });
    const model = create(server);

    const first = await model.generate(ask());
    const second = await model.generate(ask());

    expect(first.object).toEqual(valid);
    expect(JSON.parse(first.text)).toEqual(valid);
    expect(first.finishReason).toBe("stop");
    expect(first.modelId).toBe(model.modelId);
    expect(first.usage.inputTokens).toBeGreaterThan(0);
    expect(first.usage.outputTokens).toBeGreaterThan(0);
    expect(first.usage.cacheReadTokens).toBe(0);
    expect(second.usage.cacheReadTokens).toBeGreaterThan(0);
    expect(second.usage.cacheReadTokens).toBeLessThanOrEqual(second.usage.inputTokens);
    if (name === "anthropic") expect(first.usage.cacheWriteTokens).toBe(second.usage.cacheReadTokens);
    expect(server.requests.map((request) => request.schemaName)).toEqual(["verdict", "verdict"]);
    expect(server.requests.map((request) => request.stream)).toEqual([stream, stream]);
  });

  it("uses the per-call model id", async () => {
    server.setRespond({ object: valid });
    const result = await create(server).generate(ask({ modelId: "other-model" }));
    expect(server.requests[0]?.model).toBe("other-model");
    expect(result.modelId).toBe("other-model");
  });

  it("answers plain text calls without a schema", async () => {
    server.setRespond("Paris is the capital.");
    const result = await create(server).generate({
      system: "Be brief.",
      messages: [{ role: "user", content: "Capital?" }],
      maxTokens: 50,
    });
    expect(result.text).toBe("Paris is the capital.");
    expect(result.object).toBeUndefined();
    expect(server.requests[0]?.structured).toBe("none");
  });

  it("lets the SDK retry a 429 that carries retry-after, then succeeds", async () => {
    server.setRespond((request) =>
      request.attempt === 0 ? { status: 429, retryAfterSeconds: 0.01 } : { object: valid },
    );
    const result = await create(server).generate(ask());
    expect(result.object).toEqual(valid);
    expect(server.requests.map((request) => request.attempt)).toEqual([0, 1]);
  });

  it("lets the SDK retry a 5xx, then succeeds", async () => {
    server.setRespond([{ status: 503, retryAfterMs: 5 }, { object: valid }]);
    const result = await create(server).generate(ask());
    expect(result.object).toEqual(valid);
    expect(server.requests).toHaveLength(2);
  });

  it("reports PROVIDER_RATE_LIMITED (retryable) when the retries run out", async () => {
    server.setRespond({ status: 429, retryAfterSeconds: 0.01, message: "slow down" });
    const error = await failure(create(server, { maxRetries: 1 }).generate(ask()));
    expect(error.code).toBe("PROVIDER_RATE_LIMITED");
    expect(error.retryable).toBe(true);
    expect(error.message).toContain("slow down");
    expect(server.requests).toHaveLength(2);
  });

  it("reports PROVIDER_UNAVAILABLE (retryable) for a 5xx after the retries", async () => {
    server.setRespond({ status: 500, retryAfterMs: 1, message: "boom" });
    const error = await failure(create(server, { maxRetries: 0 }).generate(ask()));
    expect(error.code).toBe("PROVIDER_UNAVAILABLE");
    expect(error.retryable).toBe(true);
    expect(error.message).toContain("boom");
    expect(error.cause).toBeInstanceOf(Error);
  });

  it("reports PROVIDER_UNAVAILABLE when the connection is dropped", async () => {
    server.setRespond({ hangUp: true });
    const error = await failure(create(server, { maxRetries: 0 }).generate(ask()));
    expect(error.code).toBe("PROVIDER_UNAVAILABLE");
  });

  it("reports PROVIDER_TIMEOUT when the server is slower than the timeout", async () => {
    server.setRespond({ delayMs: 5_000 });
    const error = await failure(create(server, { timeoutMs: 50, maxRetries: 0 }).generate(ask()));
    expect(error.code).toBe("PROVIDER_TIMEOUT");
    expect(error.retryable).toBe(true);
  });

  it("honours the per-call timeout", async () => {
    server.setRespond({ delayMs: 5_000 });
    const error = await failure(create(server, { maxRetries: 0 }).generate(ask({ timeoutMs: 50 })));
    expect(error.code).toBe("PROVIDER_TIMEOUT");
  });

  it("reports CANCELLED when the signal aborts during the call", async () => {
    const controller = new AbortController();
    server.setRespond(() => {
      controller.abort();
      return { delayMs: 5_000 };
    });
    const error = await failure(create(server).generate(ask({ signal: controller.signal })));
    expect(error.code).toBe("CANCELLED");
    expect(server.requests).toHaveLength(1);
  });

  it("does not call the provider when the signal is already aborted", async () => {
    server.setRespond({ object: valid });
    const error = await failure(create(server).generate(ask({ signal: AbortSignal.abort() })));
    expect(error.code).toBe("CANCELLED");
    expect(server.requests).toHaveLength(0);
  });

  it("does exactly one repair round for an invalid answer, sending back the problems", async () => {
    server.setRespond([{ object: { answer: "Paris", confidence: 7 } }, { object: valid }]);
    const result = await create(server).generate(ask());

    expect(result.object).toEqual(valid);
    expect(server.requests).toHaveLength(2);
    const repair = server.requests[1];
    expect(repair?.messages.at(-2)).toEqual({
      role: "assistant",
      content: JSON.stringify({ answer: "Paris", confidence: 7 }),
    });
    expect(repair?.prompt).toContain("confidence");
    expect(repair?.schemaName).toBe("verdict");

    server.reset();
    server.setRespond({ object: valid });
    const single = await create(server).generate(ask());
    expect(result.usage.inputTokens).toBeGreaterThan(single.usage.inputTokens);
    expect(result.usage.outputTokens).toBeGreaterThan(single.usage.outputTokens);
  });

  it("repairs an answer that is not JSON at all", async () => {
    server.setRespond(["Sorry, I cannot answer in JSON.", { object: valid }]);
    const result = await create(server).generate(ask());
    expect(result.object).toEqual(valid);
    expect(server.requests[1]?.prompt).toContain("not valid JSON");
  });

  it("fails with MODEL_OUTPUT_INVALID listing the problems after a second invalid answer", async () => {
    server.setRespond({ object: { answer: "", confidence: 7 } });
    const error = await failure(create(server).generate(ask()));
    expect(error.code).toBe("MODEL_OUTPUT_INVALID");
    expect(error.issues.map((issue) => issue.field).sort()).toEqual(["answer", "confidence"]);
    expect(error.message).toContain("verdict");
    expect(error.message).toContain("confidence");
    expect(server.requests).toHaveLength(2);
    // What the two answers spent goes with the failure, for the invocation row.
    const spend = modelSpendOf(error);
    expect(spend?.answers).toBe(2);
    expect(spend?.usage.inputTokens).toBeGreaterThan(0);
    expect(spend?.usage.outputTokens).toBeGreaterThan(0);
  });

  it("reports PROVIDER_AUTH for a 401 without retrying and without leaking the key", async () => {
    const guarded = await createFakeModelServer({ apiKey: "the-right-key", respond: { object: valid } });
    try {
      const error = await failure(create(guarded, { apiKey: "sk-wrong-secret-123456" }).generate(ask()));
      expect(error.code).toBe("PROVIDER_AUTH");
      expect(error.retryable).toBe(false);
      expect(error.message).not.toContain("sk-wrong-secret-123456");
      expect(error.hint).toMatch(/API_KEY/);
      expect(guarded.requests).toHaveLength(1);
      expect(JSON.stringify(guarded.requests[0]?.headers)).not.toContain("sk-wrong-secret-123456");
    } finally {
      await guarded.close();
    }
  });

  it("reports PROVIDER_BAD_REQUEST for a 400 with the provider's message", async () => {
    server.setRespond({ status: 400, message: "max_tokens: too large" });
    const error = await failure(create(server).generate(ask()));
    expect(error.code).toBe("PROVIDER_BAD_REQUEST");
    expect(error.message).toContain("max_tokens: too large");
    expect(server.requests).toHaveLength(1);
  });

  it("reports PROVIDER_UNAVAILABLE when nothing listens at the base URL", async () => {
    const gone = await createFakeModelServer();
    await gone.close();
    const error = await failure(create(gone, { maxRetries: 0 }).generate(ask()));
    expect(error.code).toBe("PROVIDER_UNAVAILABLE");
    expect(error.message).toContain(gone.url);
  });

  it("wraps a schema whose root is not an object and unwraps the answer", async () => {
    server.setRespond({ object: { value: ["Paris", "Lyon"] } });
    const result = await create(server).generate({ ...ask(), schema: z.array(z.string()), schemaName: "cities" });
    expect(result.object).toEqual(["Paris", "Lyon"]);
    expect(server.requests[0]?.jsonSchema).toMatchObject({ type: "object", required: ["value"] });
  });
});
