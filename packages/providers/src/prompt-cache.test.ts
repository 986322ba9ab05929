import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createAnthropicModel } from "./anthropic-model.ts";
import type { LanguageModel, ModelMessage, Usage } from "./language-model.ts";
import { addUsage, emptyUsage } from "./language-model.ts";
import { createOpenAIModel } from "./openai-model.ts";
import { createFakeModelServer, type FakeModelServer } from "./testing/index.ts";

/**
 * A 10-call session with a growing history against the fake server's prompt
 * cache, with the real minimum cacheable length (1,024 tokens): the share of
 * input tokens read from the cache is what prompt caching saves.
 */

const stepSchema = z.object({ thought: z.string(), confidence: z.number().min(0).max(1) });

const system = [
  "You are a careful analyst working through a problem one step at a time.",
  "Each step builds on the previous ones: reread them, do not repeat them, and add one new, concrete thought.",
  "State the assumption you rely on, the evidence for it, and what would change your mind.",
  "Answer with the structured object only; keep the thought under 120 words; confidence is between 0 and 1.",
]
  .join(" ")
  .repeat(4);

function question(step: number): string {
  return `Step ${step}: consider the supply chain of the shelf factory from the point of view of risk number ${step}. `.repeat(
    6,
  );
}

function answer(step: number): string {
  return JSON.stringify({
    thought: `Risk ${step} matters because the supplier of part ${step} is single-sourced. `.repeat(4),
    confidence: 0.7,
  });
}

/** The messages of call `step` (1-based): every earlier step as a question and its answer, then this step's question. */
function session(step: number, markHistory: boolean): ModelMessage[] {
  const history: ModelMessage[] = [];
  for (let earlier = 1; earlier < step; earlier += 1) {
    history.push({ role: "user", content: question(earlier) }, { role: "assistant", content: answer(earlier) });
  }
  const last = history.at(-1);
  if (markHistory && last) history[history.length - 1] = { ...last, cache: true };
  return [...history, { role: "user", content: question(step) }];
}

async function runSession(
  model: LanguageModel,
  markHistory: boolean,
): Promise<{ usage: Usage; share: number; calls: Usage[] }> {
  let usage = emptyUsage;
  const calls: Usage[] = [];
  for (let step = 1; step <= 10; step += 1) {
    const result = await model.generate({
      system,
      messages: session(step, markHistory),
      schema: stepSchema,
      schemaName: "reasoning_step",
      maxTokens: 600,
    });
    usage = addUsage(usage, result.usage);
    calls.push(result.usage);
  }
  const share = usage.cacheReadTokens / usage.inputTokens;
  // PRINT_CACHE_SHARE=1 prints the figures: npx vitest run src/prompt-cache.test.ts
  if (process.env["PRINT_CACHE_SHARE"])
    console.info(`${model.provider} marked=${markHistory} ${JSON.stringify(usage)} share=${share.toFixed(3)}`);
  return { usage, share, calls };
}

let server: FakeModelServer;
beforeAll(async () => {
  server = await createFakeModelServer({
    cacheMinimumTokens: 1_024,
    respond: (request) => ({ object: JSON.parse(answer(Number(/Step (\d+)/.exec(request.prompt)?.[1] ?? "0"))) }),
  });
});
afterAll(async () => {
  await server.close();
});

const anthropic = () =>
  createAnthropicModel({
    apiKey: "k",
    baseURL: server.anthropicBaseURL,
    modelId: "claude-test",
    timeoutMs: 10_000,
    maxRetries: 0,
  });
const openai = () =>
  createOpenAIModel({
    apiKey: "k",
    baseURL: server.openaiBaseURL,
    modelId: "gpt-test",
    timeoutMs: 10_000,
    maxRetries: 0,
  });

describe("prompt caching over a 10-call session with a growing history", () => {
  it("Anthropic: marking the history reads most input from the cache; the system prompt alone is too short to cache", async () => {
    server.reset();
    const marked = await runSession(anthropic(), true);
    server.reset();
    const unmarked = await runSession(anthropic(), false);

    expect(unmarked.usage.cacheReadTokens).toBe(0);
    expect(unmarked.usage.cacheWriteTokens).toBe(0);
    expect(marked.share).toBeGreaterThan(0.6);
    expect(marked.usage.inputTokens).toBe(unmarked.usage.inputTokens);
    // The first calls' prefixes are below the minimum; once one is written, every later call reads all
    // that was cached before it and writes only the history added since.
    const firstWrite = marked.calls.findIndex((call) => call.cacheWriteTokens > 0);
    expect(firstWrite).toBeGreaterThan(0);
    expect(marked.calls.slice(0, firstWrite + 1).every((call) => call.cacheReadTokens === 0)).toBe(true);
    for (let index = firstWrite + 1; index < marked.calls.length; index += 1) {
      const previous = marked.calls[index - 1];
      expect(marked.calls[index]?.cacheReadTokens).toBe(
        (previous?.cacheReadTokens ?? 0) + (previous?.cacheWriteTokens ?? 0),
      );
    }
  });

  it("OpenAI: the automatic prefix cache reads the repeated history, marks or not", async () => {
    server.reset();
    const marked = await runSession(openai(), true);
    server.reset();
    const unmarked = await runSession(openai(), false);
    expect(marked.share).toBeGreaterThan(0.6);
    expect(unmarked.usage).toEqual(marked.usage);
  });
});
