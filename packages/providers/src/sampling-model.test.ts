import { DeliberateError } from "@deliberate/base";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { parseProviderEnvironment, resolveKeylessMode } from "./environment.ts";
import { createSamplingModel, type SamplingRequest } from "./sampling-model.ts";

const schema = z.object({ answer: z.number() });

describe("sampling model", () => {
  it("asks the client's model for JSON in text and validates it", async () => {
    const requests: SamplingRequest[] = [];
    const model = createSamplingModel({
      createMessage: async (request) => {
        requests.push(request);
        return { model: "client-model", content: { type: "text", text: '```json\n{"answer": 42}\n```' } };
      },
    });
    const result = await model.generate({
      system: "Be exact.",
      messages: [{ role: "user", content: "6*7?" }],
      schema,
      schemaName: "math",
      maxTokens: 100,
      temperature: 0.2,
    });
    expect(result.object).toEqual({ answer: 42 });
    expect(result.modelId).toBe("client-model");
    expect(requests[0]?.systemPrompt).toContain("Be exact.");
    expect(requests[0]?.systemPrompt).toContain('"answer"');
    expect(requests[0]).toMatchObject({ maxTokens: 100, temperature: 0.2, includeContext: "none" });
  });

  it("repairs once, then fails with MODEL_OUTPUT_INVALID", async () => {
    const answers = ['{"answer": "x"}', '{"answer": 1}'];
    const requests: SamplingRequest[] = [];
    const model = createSamplingModel({
      createMessage: async (request) => {
        requests.push(request);
        return { content: [{ type: "text", text: answers.shift() ?? "nope" }] };
      },
    });
    const repaired = await model.generate({
      system: "",
      messages: [{ role: "user", content: "q" }],
      schema,
      maxTokens: 10,
    });
    expect(repaired.object).toEqual({ answer: 1 });
    expect(requests[1]?.messages.at(-1)?.content.text).toContain("answer");

    const failing = createSamplingModel({
      createMessage: async () => ({ content: { type: "text", text: "no json here" } }),
    });
    const error = await failing
      .generate({ system: "", messages: [{ role: "user", content: "q" }], schema, maxTokens: 10 })
      .catch((caught: unknown) => caught);
    expect(DeliberateError.isInstance(error) && error.code).toBe("MODEL_OUTPUT_INVALID");
  });

  it("reports a client that refuses sampling as PROVIDER_UNAVAILABLE", async () => {
    const model = createSamplingModel({
      createMessage: async () => {
        throw new Error("user rejected sampling");
      },
    });
    const error = await model
      .generate({ system: "", messages: [{ role: "user", content: "q" }], schema, maxTokens: 10 })
      .catch((caught: unknown) => caught);
    expect(DeliberateError.isInstance(error) && error.code).toBe("PROVIDER_UNAVAILABLE");
    expect(DeliberateError.isInstance(error) && error.message).toContain("user rejected sampling");
  });
});

describe("keyless resolution", () => {
  it("prefers sampling when offered, else host, by default", () => {
    const settings = parseProviderEnvironment({});
    expect(settings.keyless).toEqual(["sampling", "host"]);
    expect(resolveKeylessMode(settings, { sampling: true })).toBe("sampling");
    expect(resolveKeylessMode(settings, { sampling: false })).toBe("host");
  });

  it("follows DELIBERATE_KEYLESS_ORDER and an explicit DELIBERATE_PROVIDER", () => {
    expect(
      resolveKeylessMode(parseProviderEnvironment({ DELIBERATE_KEYLESS_ORDER: "host,sampling" }), { sampling: true }),
    ).toBe("host");
    const explicit = parseProviderEnvironment({ DELIBERATE_PROVIDER: "sampling" });
    expect(explicit.reason).toBe("DELIBERATE_PROVIDER is sampling");
    expect(resolveKeylessMode(explicit, { sampling: false })).toBeUndefined();
    expect(
      resolveKeylessMode(parseProviderEnvironment({ ANTHROPIC_API_KEY: "k" }), { sampling: true }),
    ).toBeUndefined();
  });

  it("rejects an invalid order naming the variable", () => {
    const error = (() => {
      try {
        parseProviderEnvironment({ DELIBERATE_KEYLESS_ORDER: "telepathy" });
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(DeliberateError.isInstance(error) && error.issues[0]?.field).toBe("DELIBERATE_KEYLESS_ORDER");
  });
});
