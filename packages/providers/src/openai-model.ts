import type OpenAI from "openai";
import { extractJson } from "./extract-json.ts";
import { generateWithRepair, type AnswerAttempt } from "./generate-with-repair.ts";
import type { FinishReason, GenerateOptions, GenerateResult, LanguageModel, Usage } from "./language-model.ts";
import { createOpenAISender, type OpenAIAnswer as Answer } from "./openai-send.ts";
import { type CapabilityOverride, type OpenAICapabilities, openaiCapabilities } from "./model-capabilities.ts";
import { openaiParameters } from "./openai-parameters.ts";
import { defaultReasoningModels, isReasoningModel } from "./reasoning-models.ts";
import { createProgressTracker } from "./streaming.ts";
import { describeAnswerFormat, type AnswerFormat } from "./structured-answer.ts";

/**
 * How a structured answer is requested: `json_schema` (OpenAI, vLLM, recent
 * Ollama and LM Studio) or `json_object` plus the schema in the prompt, for
 * servers that only offer JSON mode.
 */
export type OpenAIStructuredOutput = "json_schema" | "json_object";

export { defaultOpenAIBaseURL } from "./openai-send.ts";

/** Settings of an OpenAI or OpenAI-compatible model (one SDK client). */
export interface OpenAIModelOptions {
  /** May be absent for local servers; a placeholder is sent then. */
  apiKey?: string | undefined;
  /** Defaults to https://api.openai.com/v1; for compatible servers the URL up to and including `/v1`. */
  baseURL?: string | undefined;
  /** Default model id, e.g. `gpt-5-mini` or `llama3.1:8b`; `GenerateOptions.modelId` overrides it per call. */
  modelId: string;
  /** Per-request timeout of the SDK, per attempt; `GenerateOptions.timeoutMs` overrides it. */
  timeoutMs: number;
  /** Retries the SDK makes on 408/409/429/5xx and connection failures, honouring retry-after. */
  maxRetries: number;
  /** Defaults to `json_schema`. */
  structuredOutput?: OpenAIStructuredOutput | undefined;
  /**
   * Which model ids are reasoning models (sent `max_completion_tokens` and no
   * `temperature`): ids with `*` wildcards, `default` for the built-in
   * pattern (o-series and gpt-5), `!id` to exclude. Defaults to `["default"]`.
   * See `isReasoningModel`.
   */
  reasoningModels?: readonly string[] | undefined;
  /** Changes to the capability table (`OPENAI_MODEL_CAPABILITIES`), applied after its rows and `reasoningModels`. */
  capabilityOverrides?: readonly CapabilityOverride<OpenAICapabilities>[] | undefined;
  /** Where a schema without a strict form is reported (once per name); default: a JSON line on stderr. */
  warn?: ((message: string) => void) | undefined;
}

type ChatMessage = OpenAI.Chat.ChatCompletionMessageParam;

/** The response_format of a structured request: the JSON Schema (strict when the schema and model allow), or plain JSON mode. */
function responseFormatOf(
  format: ReturnType<typeof describeAnswerFormat>,
  strict: boolean,
  structuredOutput: NonNullable<OpenAIModelOptions["structuredOutput"]>,
): OpenAI.Chat.ChatCompletionCreateParams["response_format"] {
  if (structuredOutput !== "json_schema") return { type: "json_object" };
  return {
    type: "json_schema",
    json_schema: {
      name: format.name,
      ...(format.description ? { description: format.description } : {}),
      schema: strict ? format.jsonSchema : format.looseJsonSchema,
      strict,
    },
  };
}

/**
 * A LanguageModel on the Chat Completions API (`openai`), for OpenAI and for
 * every OpenAI-compatible server reached by `baseURL`. What each model
 * accepts comes from the capability table (`openaiCapabilities`).
 *
 * - Structured output through `response_format: json_schema` with the
 *   schema's strict form and `strict: true` (constrained decoding), or the
 *   plain schema with `strict: false` where the schema or model cannot have
 *   it; or `json_object` with the schema in the prompt.
 * - Chat models get `max_tokens` and the temperature. Reasoning models
 *   (o-series, gpt-5, or as configured by `reasoningModels`) get
 *   `max_completion_tokens` = answer + `reasoningAllowance(effort)` (their
 *   hidden reasoning counts against it), `reasoning_effort` from the call's
 *   effort or thinking budget, and no temperature, which they refuse.
 * - Streaming (`stream`, default when `onProgress` is given or the answer may
 *   be long): `stream: true` with `stream_options.include_usage`, content
 *   accumulated as it arrives; a server that refuses to stream a model (an
 *   unverified organization and o3, say) is asked again without streaming,
 *   and that model is not streamed again by this client.
 * - Prompt caching is automatic on OpenAI (messages marked `cache` need
 *   nothing more) and reported as `cacheReadTokens` from
 *   `prompt_tokens_details.cached_tokens`.
 * - Retries, backoff and timeouts come from the SDK; `signal` is passed through.
 */
export function createOpenAIModel(options: OpenAIModelOptions): LanguageModel {
  const structuredOutput = options.structuredOutput ?? "json_schema";
  const send = createOpenAISender(options);
  const reasoningModels = options.reasoningModels ?? defaultReasoningModels;
  const usesBuiltInList = reasoningModels.length === 1 && reasoningModels[0]?.toLowerCase() === "default";

  async function generate<T>(call: GenerateOptions<T>): Promise<GenerateResult<T>> {
    const model = call.modelId ?? options.modelId;
    const capabilities = openaiCapabilities(model, {
      // The built-in list is the table's own judgement; a configured list decides for the ids it names.
      isReasoning: usesBuiltInList ? undefined : isReasoningModel(model, reasoningModels),
      overrides: options.capabilityOverrides,
    });
    const base = openaiParameters(call, model, capabilities);
    const conversation: ChatMessage[] = call.messages.map((message) => ({
      role: message.role,
      content: message.content,
    }));
    const progress = createProgressTracker(call.onProgress);

    if (!call.schema) {
      const answer = await send(
        call,
        { ...base, messages: [...systemMessage(call.system), ...conversation] },
        progress,
        0,
      );
      return {
        object: undefined as T,
        text: answer.content,
        usage: toUsage(answer.usage),
        finishReason: toFinishReason(answer.finishReason),
        modelId: answer.model,
      };
    }

    const format = describeAnswerFormat({
      schema: call.schema,
      schemaName: call.schemaName,
      schemaDescription: call.schemaDescription,
      warn: options.warn,
    });
    const strict = format.strict && capabilities.strictJsonSchema;
    const system = `${call.system}${call.system.trim().length > 0 ? "\n\n" : ""}${answerInstruction(format, structuredOutput)}`;
    const responseFormat = responseFormatOf(format, strict, structuredOutput);

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
        const answer = await send(
          call,
          { ...base, messages, response_format: responseFormat },
          progress,
          repair ? 1 : 0,
        );
        return toAttempt(answer);
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

function toAttempt(answer: Answer): AnswerAttempt<undefined> {
  return {
    candidate: answer.refusal
      ? { ok: false, problem: `The model refused: ${answer.refusal}` }
      : answer.hasChoice
        ? extractJson(answer.content)
        : { ok: false, problem: "The server returned no choices." },
    text: answer.content,
    usage: toUsage(answer.usage),
    finishReason: toFinishReason(answer.finishReason),
    modelId: answer.model,
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
