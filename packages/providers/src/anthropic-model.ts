import type Anthropic from "@anthropic-ai/sdk";
import { extractJson, type JsonCandidate } from "./extract-json.ts";
import { generateWithRepair, throwIfAborted, type AnswerAttempt, type RepairRequest } from "./generate-with-repair.ts";
import type { FinishReason, GenerateOptions, GenerateResult, LanguageModel, Usage } from "./language-model.ts";
import { type SdkErrorClasses, toProviderError, type ProviderErrorContext } from "./provider-error.ts";
import { describeAnswerFormat, type AnswerFormat } from "./structured-answer.ts";

/** The Anthropic API, used when no base URL is given. */
export const defaultAnthropicBaseURL = "https://api.anthropic.com";

/** The smallest thinking budget the Anthropic API accepts. */
export const minimumThinkingBudget = 1024;

/** Settings of an Anthropic model (one SDK client). */
export interface AnthropicModelOptions {
  apiKey: string;
  /** Default model id, e.g. `claude-sonnet-4-5`; `GenerateOptions.modelId` overrides it per call. */
  modelId: string;
  /** Defaults to https://api.anthropic.com (the SDK appends `/v1/messages`). */
  baseURL?: string | undefined;
  /** Per-request timeout of the SDK, per attempt; `GenerateOptions.timeoutMs` overrides it. */
  timeoutMs: number;
  /** Retries the SDK makes on 408/409/429/5xx and connection failures, honouring retry-after. */
  maxRetries: number;
}

type MessageParam = Anthropic.MessageParam;
type ContentBlock = Anthropic.ContentBlock;
type ContentBlockParam = Anthropic.ContentBlockParam;
type TextBlockParam = Anthropic.TextBlockParam;
type Message = Anthropic.Message;

/** What the repair round needs to send an answer back: the assistant's blocks and the tool call, if any. */
interface AnthropicTurn {
  content: ContentBlockParam[];
  /** Every tool call in the answer: each needs a tool_result in the next user turn. */
  toolUseIds: string[];
}

/**
 * A LanguageModel on the Anthropic Messages API (`@anthropic-ai/sdk`).
 *
 * - Structured output through a forced tool whose input schema is the zod
 *   schema's JSON schema. With `thinkingBudget` the API forbids a forced
 *   tool, so the tool is offered with `tool_choice: auto` and an instruction
 *   to call it, and a JSON answer in text is accepted too.
 * - The system prompt is one text block with `cache_control: ephemeral`.
 * - Thinking: `thinking: { type: "enabled", budget_tokens }` with the budget
 *   raised to at least 1,024 and `max_tokens = maxTokens + budget`.
 * - `temperature` is never sent: the API version this SDK speaks (2026-10-21)
 *   rejects sampling parameters on every model.
 * - Retries, backoff and timeouts come from the SDK; `signal` is passed through.
 */
export function createAnthropicModel(options: AnthropicModelOptions): LanguageModel {
  const baseURL = options.baseURL ?? defaultAnthropicBaseURL;
  // The SDK loads on first use, not at start-up: a server that never calls this provider never pays for it.
  let loaded: Promise<{ client: Anthropic; errorContext: ProviderErrorContext }> | undefined;
  const load = () =>
    (loaded ??= import("@anthropic-ai/sdk").then((sdk) => {
      const errors: SdkErrorClasses = {
        base: sdk.AnthropicError,
        api: sdk.APIError,
        connection: sdk.APIConnectionError,
        timeout: sdk.APIConnectionTimeoutError,
        abort: sdk.APIUserAbortError,
      };
      return {
        client: new sdk.default({ apiKey: options.apiKey, baseURL, timeout: options.timeoutMs, maxRetries: options.maxRetries }),
        errorContext: { provider: "anthropic", baseURL, secrets: [options.apiKey], errors },
      };
    }));

  async function send(call: GenerateOptions<unknown>, body: Anthropic.MessageCreateParamsNonStreaming): Promise<Message> {
    throwIfAborted(call.signal);
    const { client, errorContext } = await load();
    try {
      return await client.messages.create(body, {
        ...(call.timeoutMs !== undefined ? { timeout: call.timeoutMs } : {}),
        ...(call.signal ? { signal: call.signal } : {}),
      });
    } catch (error) {
      throw toProviderError(error, errorContext);
    }
  }

  async function generate<T>(call: GenerateOptions<T>): Promise<GenerateResult<T>> {
    const modelId = call.modelId ?? options.modelId;
    const thinkingBudget =
      call.thinkingBudget !== undefined && call.thinkingBudget > 0
        ? Math.max(minimumThinkingBudget, Math.floor(call.thinkingBudget))
        : undefined;
    const base = {
      model: modelId,
      max_tokens: call.maxTokens + (thinkingBudget ?? 0),
      ...(thinkingBudget !== undefined ? { thinking: { type: "enabled" as const, budget_tokens: thinkingBudget } } : {}),
    };
    const system = systemBlocks(call.system);
    const messages: MessageParam[] = call.messages.map((message) => ({ role: message.role, content: message.content }));

    if (!call.schema) {
      const response = await send(call, { ...base, ...(system.length > 0 ? { system } : {}), messages });
      return {
        object: undefined as T,
        text: textOf(response.content),
        usage: toUsage(response.usage),
        finishReason: toFinishReason(response.stop_reason, false),
        modelId: response.model,
      };
    }

    const format = describeAnswerFormat({ schema: call.schema, schemaName: call.schemaName, schemaDescription: call.schemaDescription });
    const forced = thinkingBudget === undefined;
    const tool: Anthropic.Tool = {
      name: format.name,
      description: format.description ?? `Give your complete answer as the input of this tool.`,
      input_schema: format.jsonSchema as Anthropic.Tool.InputSchema,
    };
    const structuredSystem = forced
      ? system
      : [
          ...system,
          {
            type: "text" as const,
            text: `Answer by calling the \`${format.name}\` tool exactly once with your complete answer as its input. If you cannot call it, reply with only the JSON object.`,
          },
        ];

    return generateWithRepair<T, AnthropicTurn>({
      schema: call.schema,
      format,
      signal: call.signal,
      ask: async (repair) => {
        const response = await send(call, {
          ...base,
          ...(structuredSystem.length > 0 ? { system: structuredSystem } : {}),
          messages: repair ? [...messages, ...repairMessages(repair, format, forced)] : messages,
          tools: [tool],
          tool_choice: forced
            ? { type: "tool", name: format.name, disable_parallel_tool_use: true }
            : { type: "auto", disable_parallel_tool_use: true },
        });
        return toAttempt(response, format);
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

function toAttempt(response: Message, format: AnswerFormat): AnswerAttempt<AnthropicTurn> {
  const toolUse = response.content.find(
    (block): block is Anthropic.ToolUseBlock => block.type === "tool_use" && block.name === format.name,
  );
  const text = textOf(response.content);
  const candidate: JsonCandidate = toolUse ? { ok: true, value: toolUse.input } : extractJson(text);
  return {
    candidate,
    text: toolUse ? JSON.stringify(toolUse.input) : text,
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
function repairMessages(repair: RepairRequest<AnthropicTurn>, format: AnswerFormat, forced: boolean): MessageParam[] {
  const { content, toolUseIds } = repair.previous.turn;
  const assistant: MessageParam = {
    role: "assistant",
    content: content.length > 0 ? content : [{ type: "text", text: "(no answer)" }],
  };
  const how =
    forced || toolUseIds.length > 0 ? `Call the \`${format.name}\` tool with it.` : "Reply with only the JSON object.";
  const instruction = `${repair.instruction}\n${how}`;
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

/** Response blocks as request blocks, for sending an answer back; other block kinds are dropped. */
function toParams(blocks: ContentBlock[]): ContentBlockParam[] {
  const params: ContentBlockParam[] = [];
  for (const block of blocks) {
    if (block.type === "text" && block.text.length > 0) params.push({ type: "text", text: block.text });
    else if (block.type === "thinking") params.push({ type: "thinking", thinking: block.thinking, signature: block.signature });
    else if (block.type === "redacted_thinking") params.push({ type: "redacted_thinking", data: block.data });
    else if (block.type === "tool_use") params.push({ type: "tool_use", id: block.id, name: block.name, input: block.input });
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
