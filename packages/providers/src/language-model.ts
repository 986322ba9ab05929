import type { z } from "zod";
import type { ThinkingEffort } from "./thinking-effort.ts";

/** A message in the conversation sent to the model (system text is separate). */
export interface ModelMessage {
  role: "user" | "assistant";
  content: string;
  /**
   * Marks the end of a stable prefix worth caching: the system prompt plus
   * every message up to and including this one. Send a session's stable
   * history as separate messages, mark the last of them, and put the varying
   * prompt after it; later calls of the session then read that prefix from the
   * provider's prompt cache. Anthropic gets a `cache_control` breakpoint on
   * this message (the last three marked messages at most, with the system
   * prompt's four in all, the API's limit); OpenAI caches prefixes by itself
   * and ignores the mark; other providers ignore it too.
   */
  cache?: boolean;
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

/**
 * Progress of one model call, reported while the answer is generated
 * (streamed calls: as the stream arrives; other calls: once per answer).
 */
export interface GenerateProgress {
  /**
   * Output tokens generated so far in this call, repair round included: an
   * estimate (characters / 4) while an answer streams, corrected to the
   * provider's count (hidden thinking included) when that answer completes.
   */
  outputTokens: number;
  /** Characters of output received so far in the current answer (text, answer JSON and thinking). */
  characters: number;
  /** 0 for the first answer, 1 for the repair round. */
  attempt: number;
  /** What the model is producing now: hidden reasoning (`thinking`) or the answer itself. */
  phase: "thinking" | "answer";
  /** True for the last event of an answer; its `outputTokens` then comes from the provider's usage. */
  done: boolean;
}

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
   * Thinking budget in tokens. Budget models (Claude Sonnet 4.5, Haiku 4.5,
   * Opus 4.5) get it as `budget_tokens` (at least 1,024); effort models
   * (Claude Opus 4.6+, the 5 family, OpenAI reasoning models) get the effort
   * it stands for (`effortForBudget`: up to 2,048 low, 6,144 medium, 12,288
   * high, above xhigh), and the answer's cap grows to leave room for it.
   * Chat models ignore it.
   */
  thinkingBudget?: number;
  /**
   * How hard the model should think, when set: wins over `thinkingBudget`'s
   * effort. Mapped to the closest level the model accepts; budget models get
   * the budget it stands for (`budgetForEffort`).
   */
  effort?: ThinkingEffort;
  /** Per-call timeout; the provider also honours `signal`. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Overrides the provider's default model id for this call. */
  modelId?: string;
  /**
   * Called as the answer is generated. Errors it throws are ignored (a
   * progress consumer never fails the call). Events arrive once per streamed
   * delta, so throttle before turning them into notifications.
   */
  onProgress?: (progress: GenerateProgress) => void;
  /**
   * Whether to stream the answer from the provider. Defaults to true when
   * `onProgress` is given or when the answer may take long (max tokens above
   * `longRequestTokens`), else false. The result is the same either way:
   * the final object is validated exactly as without streaming.
   */
  stream?: boolean;
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
export const emptyUsage: Usage = Object.freeze({
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
});

/** Sums two usage records figure by figure. */
export function addUsage(a: Usage, b: Usage): Usage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
    cacheWriteTokens: a.cacheWriteTokens + b.cacheWriteTokens,
  };
}
