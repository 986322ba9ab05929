import type Anthropic from "@anthropic-ai/sdk";
import { type AnthropicReceived as Received, createAnthropicSender } from "./anthropic-send.ts";
import { extractJson, type JsonCandidate } from "./extract-json.ts";
import { generateWithRepair, type AnswerAttempt, type RepairRequest } from "./generate-with-repair.ts";
import type {
  FinishReason,
  GenerateOptions,
  GenerateResult,
  LanguageModel,
  ModelMessage,
  Usage,
} from "./language-model.ts";
import { createProgressTracker } from "./streaming.ts";
import { type AnswerChannel, anthropicThinking, structuredRequest, withOutputConfig } from "./anthropic-request.ts";
import { anthropicCapabilities, type AnthropicCapabilities, type CapabilityOverride } from "./model-capabilities.ts";
import { describeAnswerFormat, type AnswerFormat } from "./structured-answer.ts";

export { defaultAnthropicBaseURL } from "./anthropic-send.ts";

/** The most `cache_control` breakpoints one Anthropic request may carry. */
export const maximumCacheBreakpoints = 4;

/** Settings of an Anthropic model (one SDK client). */
export interface AnthropicModelOptions {
  apiKey: string;
  /** Default model id, e.g. `claude-sonnet-5`; `GenerateOptions.modelId` overrides it per call. */
  modelId: string;
  /** Defaults to https://api.anthropic.com (the SDK appends `/v1/messages`). */
  baseURL?: string | undefined;
  /** Per-request timeout of the SDK, per attempt; `GenerateOptions.timeoutMs` overrides it. */
  timeoutMs: number;
  /** Retries the SDK makes on 408/409/429/5xx and connection failures, honouring retry-after. */
  maxRetries: number;
  /** Changes to the capability table (`ANTHROPIC_MODEL_CAPABILITIES`), applied after its rows. */
  capabilityOverrides?: readonly CapabilityOverride<AnthropicCapabilities>[] | undefined;
  /** Where a schema without a strict form is reported (once per name); default: a JSON line on stderr. */
  warn?: ((message: string) => void) | undefined;
}

type MessageParam = Anthropic.MessageParam;
type ContentBlock = Anthropic.ContentBlock;
type ContentBlockParam = Anthropic.ContentBlockParam;
type TextBlockParam = Anthropic.TextBlockParam;

/** What the repair round needs to send an answer back: the assistant's blocks and the tool call, if any. */
interface AnthropicTurn {
  content: ContentBlockParam[];
  /** Every tool call in the answer: each needs a tool_result in the next user turn. */
  toolUseIds: string[];
}

/**
 * A LanguageModel on the Anthropic Messages API (`@anthropic-ai/sdk`).
 * What each model accepts comes from the capability table
 * (`anthropicCapabilities`).
 *
 * - Structured output: `output_config.format` with the schema's strict form
 *   (constrained decoding) on models with structured outputs; otherwise a
 *   tool whose input schema is the answer's, forced when the model allows it
 *   and does not think, else offered with an instruction to call it (JSON
 *   in text accepted too). The root is always an object with no
 *   anyOf/oneOf/allOf there (others are wrapped as `{ value }`).
 * - Thinking: adaptive models get `thinking: {type: "adaptive"}` with
 *   `output_config.effort` (the call's `effort`, else its thinking budget
 *   mapped by `effortForBudget`); budget models
 *   `thinking: {type: "enabled", budget_tokens}` (at least 1,024). Either
 *   way `max_tokens` leaves room for the thinking.
 * - Prompt caching: the system prompt is one text block with
 *   `cache_control: ephemeral`, and so is the last message marked `cache`
 *   (with up to two earlier marked ones, four breakpoints in all), so a
 *   session's stable history is read from the cache by its later calls.
 * - Streaming (`stream`, default when `onProgress` is given or the answer may
 *   be long): the raw SSE events are accumulated into the same message a
 *   non-streamed call returns, reporting progress as deltas arrive; a stream
 *   silent for the timeout fails with PROVIDER_TIMEOUT.
 * - `temperature` is never sent: the API version this SDK speaks (2026-10-21)
 *   has no sampling parameters, and the adaptive generation refuses them.
 * - Retries, backoff and timeouts come from the SDK; `signal` is passed through.
 */
export function createAnthropicModel(options: AnthropicModelOptions): LanguageModel {
  const send = createAnthropicSender(options);

  async function generate<T>(call: GenerateOptions<T>): Promise<GenerateResult<T>> {
    const modelId = call.modelId ?? options.modelId;
    const capabilities = anthropicCapabilities(modelId, options.capabilityOverrides);
    const thinking = anthropicThinking(call, capabilities);
    const base = { model: modelId, max_tokens: thinking.maxTokens, ...thinking.params };
    const system = systemBlocks(call.system);
    const messages = toMessageParams(call.messages, maximumCacheBreakpoints - system.length);
    const progress = createProgressTracker(call.onProgress);

    if (!call.schema) {
      const { message: response } = await send(
        call,
        {
          ...base,
          ...withOutputConfig(thinking.effort, undefined),
          ...(system.length > 0 ? { system } : {}),
          messages,
        },
        progress,
        0,
      );
      return {
        object: undefined as T,
        text: textOf(response.content),
        usage: toUsage(response.usage),
        finishReason: toFinishReason(response.stop_reason, false),
        modelId: response.model,
      };
    }

    const format = describeAnswerFormat({
      schema: call.schema,
      schemaName: call.schemaName,
      schemaDescription: call.schemaDescription,
      warn: options.warn,
    });
    const request = structuredRequest(format, capabilities, thinking, system);

    return generateWithRepair<T, AnthropicTurn>({
      schema: call.schema,
      format,
      signal: call.signal,
      ask: async (repair) => {
        const received = await send(
          call,
          {
            ...base,
            ...withOutputConfig(thinking.effort, request.outputFormat),
            ...(request.system.length > 0 ? { system: request.system } : {}),
            messages: repair ? [...messages, ...repairMessages(repair, format, request.how)] : messages,
            ...(request.tool ? { tools: [request.tool], tool_choice: request.toolChoice } : {}),
          },
          progress,
          repair ? 1 : 0,
        );
        return toAttempt(received, format);
      },
    });
  }

  return { provider: "anthropic", modelId: options.modelId, generate };
}

/** The system prompt as one cacheable block (none when empty: the API rejects empty text blocks). */
function systemBlocks(system: string): TextBlockParam[] {
  if (system.trim().length === 0) return [];
  return [{ type: "text", text: system, cache_control: { type: "ephemeral" } }];
}

/**
 * The conversation as request messages, with a `cache_control` breakpoint on
 * the last `available` messages marked `cache` (latest first): the prefix up
 * to each is written to the cache, and a later call whose prefix matches reads
 * it (the API looks up to 20 blocks back from each breakpoint).
 */
function toMessageParams(messages: readonly ModelMessage[], available: number): MessageParam[] {
  const marked = new Set<number>();
  for (let index = messages.length - 1; index >= 0 && marked.size < available; index -= 1) {
    const message = messages[index];
    // An empty text block is rejected by the API, so an empty message cannot carry a breakpoint.
    if (message?.cache === true && message.content.length > 0) marked.add(index);
  }
  return messages.map((message, index) =>
    marked.has(index)
      ? { role: message.role, content: [{ type: "text", text: message.content, cache_control: { type: "ephemeral" } }] }
      : { role: message.role, content: message.content },
  );
}

function toAttempt(received: Received, format: AnswerFormat): AnswerAttempt<AnthropicTurn> {
  const response = received.message;
  const toolUse = response.content.find(
    (block): block is Anthropic.ToolUseBlock => block.type === "tool_use" && block.name === format.name,
  );
  const text = textOf(response.content);
  const streamedInput = toolUse ? received.toolInputText?.get(toolUse.id) : undefined;
  const candidate: JsonCandidate = toolUse
    ? streamedInput !== undefined
      ? parseToolInputText(streamedInput)
      : { ok: true, value: toolUse.input }
    : extractJson(text);
  return {
    candidate,
    text: toolUse ? (candidate.ok ? JSON.stringify(candidate.value) : (streamedInput ?? "")) : text,
    usage: toUsage(response.usage),
    finishReason: toFinishReason(response.stop_reason, toolUse !== undefined),
    modelId: response.model,
    turn: {
      content: toParams(response.content),
      toolUseIds: response.content.flatMap((block) => (block.type === "tool_use" ? [block.id] : [])),
    },
  };
}

/**
 * The repair round: the invalid answer goes back as the assistant turn
 * (thinking blocks included, as the API requires in a tool loop), followed by
 * a tool_result with `is_error` for a tool answer, or a user message for a
 * text answer.
 */
function repairMessages(
  repair: RepairRequest<AnthropicTurn>,
  format: AnswerFormat,
  how: AnswerChannel,
): MessageParam[] {
  const { content, toolUseIds } = repair.previous.turn;
  const assistant: MessageParam = {
    role: "assistant",
    content: content.length > 0 ? content : [{ type: "text", text: "(no answer)" }],
  };
  const instruction = `${repair.instruction}\n${how === "forced-tool" || toolUseIds.length > 0 ? `Call the \`${format.name}\` tool with it.` : "Reply with only the JSON object."}`;
  if (toolUseIds.length === 0) return [assistant, { role: "user", content: instruction }];
  return [
    assistant,
    {
      role: "user",
      content: toolUseIds.map((id, index) => ({
        type: "tool_result" as const,
        tool_use_id: id,
        is_error: true,
        content: index === 0 ? instruction : "Only one call is expected; see the other result.",
      })),
    },
  ];
}

/** A streamed tool input, parsed strictly: JSON cut off at the token limit is invalid, not partially accepted. */
function parseToolInputText(text: string): JsonCandidate {
  if (text.trim().length === 0) return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    return {
      ok: false,
      problem: `The answer is not valid JSON (${error instanceof Error ? error.message : String(error)}).`,
    };
  }
}

/** Response blocks as request blocks, for sending an answer back; other block kinds are dropped. */
function toParams(blocks: ContentBlock[]): ContentBlockParam[] {
  const params: ContentBlockParam[] = [];
  for (const block of blocks) {
    if (block.type === "text" && block.text.length > 0) params.push({ type: "text", text: block.text });
    else if (block.type === "thinking")
      params.push({ type: "thinking", thinking: block.thinking, signature: block.signature });
    else if (block.type === "redacted_thinking") params.push({ type: "redacted_thinking", data: block.data });
    else if (block.type === "tool_use")
      params.push({ type: "tool_use", id: block.id, name: block.name, input: block.input });
  }
  return params;
}

function textOf(blocks: ContentBlock[]): string {
  return blocks
    .filter((block): block is Anthropic.TextBlock => block.type === "text")
    .map((block) => block.text)
    .join("");
}

/** Anthropic reports uncached input separately; `inputTokens` is the total including cache reads and writes. */
function toUsage(usage: Anthropic.Usage): Usage {
  const cacheReadTokens = usage.cache_read_input_tokens ?? 0;
  const cacheWriteTokens = usage.cache_creation_input_tokens ?? 0;
  return {
    inputTokens: (usage.input_tokens ?? 0) + cacheReadTokens + cacheWriteTokens,
    outputTokens: usage.output_tokens ?? 0,
    cacheReadTokens,
    cacheWriteTokens,
  };
}

function toFinishReason(reason: Anthropic.StopReason | null, answeredByTool: boolean): FinishReason {
  switch (reason) {
    case "end_turn":
    case "stop_sequence":
      return "stop";
    case "tool_use":
      return answeredByTool ? "stop" : "tool-calls";
    case "max_tokens":
    case "model_context_window_exceeded":
      return "length";
    case "refusal":
      return "content-filter";
    default:
      return "other";
  }
}
