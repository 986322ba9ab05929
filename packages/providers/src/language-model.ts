import type { z } from "zod";

/** A message in the conversation sent to the model (system text is separate). */
export interface ModelMessage {
  role: "user" | "assistant";
  content: string;
}

/** Token accounting for one call; zero when a provider does not report a figure. */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

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
  temperature?: number;
  maxTokens: number;
  /** Extended thinking budget in tokens, where the provider supports it. */
  thinkingBudget?: number;
  /** Per-call timeout; the provider also honours `signal`. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Overrides the provider's default model id for this call. */
  modelId?: string;
}

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
  readonly provider: string;
  readonly modelId: string;
  generate<T = unknown>(options: GenerateOptions<T>): Promise<GenerateResult<T>>;
}

export const emptyUsage: Usage = Object.freeze({ inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 });

export function addUsage(a: Usage, b: Usage): Usage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
    cacheWriteTokens: a.cacheWriteTokens + b.cacheWriteTokens,
  };
}
