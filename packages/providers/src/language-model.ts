import type { z } from "zod";

/** A message in the conversation sent to the model (system text is separate). */
export interface ModelMessage {
  role: "user" | "assistant";
  content: string;
}

/**
 * Token accounting for one call (summed over a repair round when there was one);
 * zero when a provider does not report a figure.
 */
export interface Usage {
  /** Every prompt token processed, including those read from or written to the prompt cache. */
  inputTokens: number;
  outputTokens: number;
  /** Prompt tokens served from the provider's prompt cache (part of `inputTokens`). */
  cacheReadTokens: number;
  /** Prompt tokens written to the provider's prompt cache (part of `inputTokens`). */
  cacheWriteTokens: number;
}

/** Why the model stopped; a structured answer delivered through a tool counts as `stop`. */
export type FinishReason = "stop" | "length" | "tool-calls" | "content-filter" | "error" | "other";

/** Options for one model call. */
export interface GenerateOptions<T = unknown> {
  /** Stable system prompt (providers that support it cache this). */
  system: string;
  messages: ModelMessage[];
  /**
   * When present the model must answer with an object matching this schema;
   * the provider validates it and does one repair round before failing with
   * MODEL_OUTPUT_INVALID.
   */
  schema?: z.ZodType<T>;
  /** Name for the structured answer (tool name / json_schema name). */
  schemaName?: string;
  schemaDescription?: string;
  /**
   * Sampling temperature, sent to OpenAI-compatible servers. Anthropic never
   * receives it: API version 2026-10-21 (spoken by @anthropic-ai/sdk 1.x)
   * rejects sampling parameters on every model.
   */
  temperature?: number;
  /** Maximum tokens of the answer (Anthropic adds the thinking budget on top). */
  maxTokens: number;
  /**
   * Extended thinking budget in tokens, where the provider supports it
   * (Anthropic: at least 1,024; the OpenAI provider ignores it).
   */
  thinkingBudget?: number;
  /** Per-call timeout; the provider also honours `signal`. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Overrides the provider's default model id for this call. */
  modelId?: string;
}

/** What one model call produced. */
export interface GenerateResult<T = unknown> {
  /** The validated object when `schema` was given; undefined otherwise. */
  object: T;
  /** Raw text the model produced (the JSON text for structured calls). */
  text: string;
  usage: Usage;
  finishReason: FinishReason;
  /** The model that actually answered. */
  modelId: string;
}

/**
 * The language-model spec every provider implements (after the Vercel AI SDK's
 * provider spec). Implementations: anthropic, openai (and compatible servers),
 * testing; later sampling and host.
 */
export interface LanguageModel {
  /** `anthropic`, `openai`, `scripted`, ... */
  readonly provider: string;
  /** The default model id; `GenerateOptions.modelId` overrides it per call. */
  readonly modelId: string;
  generate<T = unknown>(options: GenerateOptions<T>): Promise<GenerateResult<T>>;
}

/** Usage with every figure zero. */
export const emptyUsage: Usage = Object.freeze({ inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 });

/** Sums two usage records figure by figure. */
export function addUsage(a: Usage, b: Usage): Usage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
    cacheWriteTokens: a.cacheWriteTokens + b.cacheWriteTokens,
  };
}
