import type OpenAI from "openai";
import { extractJson } from "./extract-json.ts";
import { generateWithRepair, throwIfAborted, type AnswerAttempt } from "./generate-with-repair.ts";
import type { FinishReason, GenerateOptions, GenerateResult, LanguageModel, Usage } from "./language-model.ts";
import { type SdkErrorClasses, toProviderError, type ProviderErrorContext } from "./provider-error.ts";
import { describeAnswerFormat, type AnswerFormat } from "./structured-answer.ts";

/** The OpenAI API, used when no base URL is given. */
export const defaultOpenAIBaseURL = "https://api.openai.com/v1";

/** Sent as the key to servers that need none (Ollama, vLLM, LM Studio): the SDK insists on one. */
const placeholderApiKey = "not-needed";

/**
 * How a structured answer is requested: `json_schema` (OpenAI, vLLM, recent
 * Ollama and LM Studio) or `json_object` plus the schema in the prompt, for
 * servers that only offer JSON mode.
 */
export type OpenAIStructuredOutput = "json_schema" | "json_object";

/** Settings of an OpenAI or OpenAI-compatible model (one SDK client). */
export interface OpenAIModelOptions {
  /** May be absent for local servers; a placeholder is sent then. */
  apiKey?: string | undefined;
  /** Defaults to https://api.openai.com/v1; for compatible servers the URL up to and including `/v1`. */
  baseURL?: string | undefined;
  /** Default model id, e.g. `gpt-4.1-mini` or `llama3.1:8b`; `GenerateOptions.modelId` overrides it per call. */
  modelId: string;
  /** Per-request timeout of the SDK, per attempt; `GenerateOptions.timeoutMs` overrides it. */
  timeoutMs: number;
  /** Retries the SDK makes on 408/409/429/5xx and connection failures, honouring retry-after. */
  maxRetries: number;
  /** Defaults to `json_schema`. */
  structuredOutput?: OpenAIStructuredOutput | undefined;
}

type ChatMessage = OpenAI.Chat.ChatCompletionMessageParam;
type ChatCompletion = OpenAI.Chat.ChatCompletion;

/**
 * A LanguageModel on the Chat Completions API (`openai`), for OpenAI and for
 * every OpenAI-compatible server reached by `baseURL`.
 *
 * - Structured output through `response_format: json_schema` (`strict: false`,
 *   so any zod schema works), or `json_object` with the schema in the prompt.
 * - Sends `max_tokens` (understood by every compatible server).
 * - `thinkingBudget` is ignored; prompt caching is automatic on OpenAI and
 *   reported as `cacheReadTokens` from `prompt_tokens_details.cached_tokens`.
 * - Retries, backoff and timeouts come from the SDK; `signal` is passed through.
 */
export function createOpenAIModel(options: OpenAIModelOptions): LanguageModel {
  const baseURL = options.baseURL ?? defaultOpenAIBaseURL;
  const structuredOutput = options.structuredOutput ?? "json_schema";
  // The SDK loads on first use, not at start-up: a server that never calls this provider never pays for it.
  let loaded: Promise<{ client: OpenAI; errorContext: ProviderErrorContext }> | undefined;
  const load = () =>
    (loaded ??= import("openai").then((sdk) => {
      const errors: SdkErrorClasses = {
        base: sdk.OpenAIError,
        api: sdk.APIError,
        connection: sdk.APIConnectionError,
        timeout: sdk.APIConnectionTimeoutError,
        abort: sdk.APIUserAbortError,
      };
      return {
        client: new sdk.default({ apiKey: options.apiKey ?? placeholderApiKey, baseURL, timeout: options.timeoutMs, maxRetries: options.maxRetries }),
        errorContext: { provider: "openai", baseURL, secrets: [options.apiKey], errors },
      };
    }));

  async function send(
    call: GenerateOptions<unknown>,
    body: OpenAI.Chat.ChatCompletionCreateParamsNonStreaming,
  ): Promise<ChatCompletion> {
    throwIfAborted(call.signal);
    const { client, errorContext } = await load();
    try {
      return await client.chat.completions.create(body, {
        ...(call.timeoutMs !== undefined ? { timeout: call.timeoutMs } : {}),
        ...(call.signal ? { signal: call.signal } : {}),
      });
    } catch (error) {
      throw toProviderError(error, errorContext);
    }
  }

  async function generate<T>(call: GenerateOptions<T>): Promise<GenerateResult<T>> {
    const base = {
      model: call.modelId ?? options.modelId,
      max_tokens: call.maxTokens,
      ...(call.temperature !== undefined ? { temperature: call.temperature } : {}),
    };
    const conversation: ChatMessage[] = call.messages.map((message) => ({ role: message.role, content: message.content }));

    if (!call.schema) {
      const completion = await send(call, { ...base, messages: [...systemMessage(call.system), ...conversation] });
      const choice = completion.choices[0];
      return {
        object: undefined as T,
        text: choice?.message.content ?? "",
        usage: toUsage(completion.usage),
        finishReason: toFinishReason(choice?.finish_reason),
        modelId: completion.model || base.model,
      };
    }

    const format = describeAnswerFormat({ schema: call.schema, schemaName: call.schemaName, schemaDescription: call.schemaDescription });
    const system = `${call.system}${call.system.trim().length > 0 ? "\n\n" : ""}${answerInstruction(format, structuredOutput)}`;
    const responseFormat: OpenAI.Chat.ChatCompletionCreateParams["response_format"] =
      structuredOutput === "json_schema"
        ? {
            type: "json_schema",
            json_schema: {
              name: format.name,
              ...(format.description ? { description: format.description } : {}),
              schema: format.jsonSchema,
              strict: false,
            },
          }
        : { type: "json_object" };

    return generateWithRepair<T, undefined>({
      schema: call.schema,
      format,
      signal: call.signal,
      ask: async (repair) => {
        const messages: ChatMessage[] = [...systemMessage(system), ...conversation];
        if (repair) {
          messages.push(
            { role: "assistant", content: repair.previous.text.length > 0 ? repair.previous.text : "(no answer)" },
            { role: "user", content: `${repair.instruction}\nReply with only the JSON object.` },
          );
        }
        const completion = await send(call, { ...base, messages, response_format: responseFormat });
        return toAttempt(completion, base.model);
      },
    });
  }

  return { provider: "openai", modelId: options.modelId, generate };
}

/** One system message (several, or a late one, trip up some compatible servers' chat templates). */
function systemMessage(system: string): ChatMessage[] {
  return system.trim().length > 0 ? [{ role: "system", content: system }] : [];
}

function answerInstruction(format: AnswerFormat, structuredOutput: OpenAIStructuredOutput): string {
  if (structuredOutput === "json_schema") {
    return `Reply with only a JSON object for "${format.name}" that follows the given JSON schema.`;
  }
  return `Reply with only a JSON object for "${format.name}" that follows this JSON schema:\n${JSON.stringify(format.jsonSchema)}`;
}

function toAttempt(completion: ChatCompletion, requestedModel: string): AnswerAttempt<undefined> {
  const choice = completion.choices[0];
  const content = choice?.message.content ?? "";
  const refusal = choice?.message.refusal;
  return {
    candidate: refusal
      ? { ok: false, problem: `The model refused: ${refusal}` }
      : choice
        ? extractJson(content)
        : { ok: false, problem: "The server returned no choices." },
    text: content,
    usage: toUsage(completion.usage),
    finishReason: toFinishReason(choice?.finish_reason),
    modelId: completion.model || requestedModel,
    turn: undefined,
  };
}

/** `prompt_tokens` already includes the cached tokens; compatible servers may omit usage (zeros then). */
function toUsage(usage: OpenAI.CompletionUsage | undefined): Usage {
  return {
    inputTokens: usage?.prompt_tokens ?? 0,
    outputTokens: usage?.completion_tokens ?? 0,
    cacheReadTokens: usage?.prompt_tokens_details?.cached_tokens ?? 0,
    cacheWriteTokens: 0,
  };
}

function toFinishReason(reason: string | null | undefined): FinishReason {
  switch (reason) {
    case "stop":
      return "stop";
    case "length":
      return "length";
    case "content_filter":
      return "content-filter";
    case "tool_calls":
    case "function_call":
      return "tool-calls";
    default:
      return "other";
  }
}
