import type { Usage } from "../language-model.ts";
import type { FakeModelMessage, FakeModelRequest, FakeWire } from "./fake-model-request.ts";
import { countBreakpoints, type FakeCachePrompt } from "./fake-prompt-cache.ts";
import { anthropicRefusal, type FakeRefusal, openaiRefusal } from "./fake-request-rules.ts";

/** The wire-specific part of a request, before the server adds path, attempt, index and headers. */
export type NormalizedBody = Omit<
  FakeModelRequest,
  "wire" | "path" | "attempt" | "index" | "headers" | "body" | "refused"
> & {
  /** The prompt as the fake prompt cache measures it. */
  cachePrompt: FakeCachePrompt;
};

/** What a success response is made from. */
export interface SuccessInput {
  request: FakeModelRequest;
  answer: { kind: "object"; value: unknown } | { kind: "text"; text: string };
  usage: Usage;
  finishReason: "stop" | "length";
  id: number;
}

/** One server-sent event: `event:` line (Anthropic names every event; OpenAI none) and the `data:` payload. */
export interface SseEvent {
  event: string | undefined;
  /** JSON-encoded when sent; a string is sent as it is (OpenAI's closing `[DONE]`). */
  data: unknown;
}

/**
 * A streamed answer in three parts: the opening (message start), the body
 * (content blocks and their deltas), and the closing (stop reason, usage,
 * end of stream). Scripted pauses and errors go between them.
 */
export interface StreamedAnswer {
  opening: SseEvent[];
  body: SseEvent[];
  closing: SseEvent[];
}

/** One wire format: how to read a request and write answers (whole or streamed) and errors. */
export interface WireFormat {
  wire: FakeWire;
  normalize(body: Record<string, unknown>): NormalizedBody;
  success(input: SuccessInput): unknown;
  /** The answer as the SSE events of a streamed response, deltas `chunkCharacters` long. */
  stream(input: SuccessInput, chunkCharacters: number): StreamedAnswer;
  /** An error in the wire's format: the body of an error response, or the data of an error event mid-stream. */
  error(status: number, message: string, detail?: { param?: string | undefined; code?: string | undefined }): unknown;
  /** The 400 the real API answers this request with, if it breaks one of its rules. */
  refusal(body: Record<string, unknown>): FakeRefusal | undefined;
  /** The name of a mid-stream error event (Anthropic `error`; OpenAI sends an unnamed event with `error`). */
  streamErrorEvent: string | undefined;
}

/** Splits text into pieces of `size` characters (at least one piece, possibly empty). */
export function chunkText(text: string, size: number): string[] {
  const step = Math.max(1, Math.floor(size));
  if (text.length === 0) return [""];
  const chunks: string[] = [];
  for (let start = 0; start < text.length; start += step) chunks.push(text.slice(start, start + step));
  return chunks;
}

/** The fake thinking text of an answer to a request with thinking enabled. */
const fakeThinking = "(fake model server) Working out the answer.";

type Json = Record<string, unknown>;

const asRecord = (value: unknown): Json =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Json) : {};
const asArray = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const asString = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);
const asNumber = (value: unknown): number | undefined => (typeof value === "number" ? value : undefined);

/** Text of a content value: a string, or blocks / parts whose text, tool input or tool result is joined. */
function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  return asArray(content)
    .map((part) => {
      const block = asRecord(part);
      switch (block["type"]) {
        case "text":
          return asString(block["text"]) ?? "";
        case "tool_use":
          return JSON.stringify(block["input"]);
        case "tool_result":
          return contentText(block["content"]);
        default:
          return "";
      }
    })
    .filter((text) => text.length > 0)
    .join("\n");
}

function lastUserText(messages: FakeModelMessage[]): string {
  return messages.filter((message) => message.role === "user").at(-1)?.content ?? "";
}

function anthropicErrorType(status: number): string {
  const types: Record<number, string> = {
    400: "invalid_request_error",
    401: "authentication_error",
    402: "billing_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    504: "timeout_error",
    529: "overloaded_error",
  };
  return types[status] ?? (status >= 500 ? "api_error" : "invalid_request_error");
}

/** Anthropic Messages API: `POST /v1/messages`. */
export const anthropicWire: WireFormat = {
  wire: "anthropic",
  normalize(body) {
    const systemValue = body["system"];
    const systemBlocks = Array.isArray(systemValue) ? systemValue.map(asRecord) : [];
    const system =
      typeof systemValue === "string"
        ? systemValue
        : systemBlocks.map((block) => asString(block["text"]) ?? "").join("\n");
    const messages: FakeModelMessage[] = asArray(body["messages"]).map((raw) => {
      const message = asRecord(raw);
      return { role: message["role"] === "assistant" ? "assistant" : "user", content: contentText(message["content"]) };
    });
    const tools = asArray(body["tools"]).map(asRecord);
    const toolChoice = asRecord(body["tool_choice"]);
    const forcedName = toolChoice["type"] === "tool" ? asString(toolChoice["name"]) : undefined;
    const offered =
      toolChoice["type"] === "none" ? undefined : (tools.find((tool) => tool["name"] === forcedName) ?? tools[0]);
    const thinking = asRecord(body["thinking"]);
    const outputConfig = asRecord(body["output_config"]);
    const format = asRecord(outputConfig["format"]);
    const formatted = format["type"] === "json_schema";
    const cachePrompt = anthropicCachePrompt(body, tools);
    return {
      model: asString(body["model"]) ?? "",
      system,
      messages,
      prompt: lastUserText(messages),
      schemaName: formatted ? jsonObjectNamePattern.exec(system)?.[1] : asString(offered?.["name"]),
      jsonSchema: formatted ? asRecord(format["schema"]) : offered ? asRecord(offered["input_schema"]) : undefined,
      structured: formatted
        ? "json_schema"
        : offered
          ? forcedName !== undefined || toolChoice["type"] === "any"
            ? "tool"
            : "tool-auto"
          : "none",
      strict: formatted || offered?.["strict"] === true,
      thinking: asString(thinking["type"]),
      thinkingBudget: thinking["type"] === "enabled" ? asNumber(thinking["budget_tokens"]) : undefined,
      effort: asString(outputConfig["effort"]),
      temperature: asNumber(body["temperature"]),
      maxTokens: asNumber(body["max_tokens"]),
      stream: body["stream"] === true,
      cacheBreakpoints: countBreakpoints(cachePrompt),
      cachePrompt,
    };
  },
  success(input) {
    const { request, id } = input;
    const { blocks, stopReason } = anthropicContent(input);
    return {
      id: `msg_fake_${id}`,
      type: "message",
      role: "assistant",
      model: request.model,
      content: blocks.map((block) => block.complete),
      stop_reason: stopReason,
      stop_sequence: null,
      stop_details: null,
      container: null,
      diagnostics: null,
      usage: anthropicUsage(input.usage, input.usage.outputTokens),
    };
  },
  stream(input, chunkCharacters) {
    const { request, id, usage } = input;
    const { blocks, stopReason } = anthropicContent(input);
    const opening: SseEvent[] = [
      {
        event: "message_start",
        data: {
          type: "message_start",
          message: {
            id: `msg_fake_${id}`,
            type: "message",
            role: "assistant",
            model: request.model,
            content: [],
            stop_reason: null,
            stop_sequence: null,
            stop_details: null,
            container: null,
            diagnostics: null,
            usage: anthropicUsage(usage, 1),
          },
        },
      },
      { event: "ping", data: { type: "ping" } },
    ];
    const body: SseEvent[] = [];
    blocks.forEach((block, index) => {
      body.push({
        event: "content_block_start",
        data: { type: "content_block_start", index, content_block: block.start },
      });
      for (const piece of chunkText(block.streamed, chunkCharacters)) {
        if (piece.length === 0 && block.deltaType !== "input_json_delta") continue;
        body.push({
          event: "content_block_delta",
          data: { type: "content_block_delta", index, delta: block.delta(piece) },
        });
      }
      if (block.signature !== undefined) {
        body.push({
          event: "content_block_delta",
          data: { type: "content_block_delta", index, delta: { type: "signature_delta", signature: block.signature } },
        });
      }
      body.push({ event: "content_block_stop", data: { type: "content_block_stop", index } });
    });
    const closing: SseEvent[] = [
      {
        event: "message_delta",
        data: {
          type: "message_delta",
          delta: { stop_reason: stopReason, stop_sequence: null, stop_details: null, container: null },
          usage: {
            input_tokens: Math.max(0, usage.inputTokens - usage.cacheReadTokens - usage.cacheWriteTokens),
            output_tokens: usage.outputTokens,
            cache_creation_input_tokens: usage.cacheWriteTokens,
            cache_read_input_tokens: usage.cacheReadTokens,
            server_tool_use: null,
            output_tokens_details: null,
          },
        },
      },
      { event: "message_stop", data: { type: "message_stop" } },
    ];
    return { opening, body, closing };
  },
  error(status, message) {
    return { type: "error", error: { type: anthropicErrorType(status), message } };
  },
  refusal: anthropicRefusal,
  streamErrorEvent: "error",
};

/** One content block of an Anthropic answer: whole, and as a stream (start block, delta text, delta shape). */
interface AnthropicBlock {
  complete: Json;
  start: Json;
  streamed: string;
  deltaType: "text_delta" | "input_json_delta" | "thinking_delta";
  delta(piece: string): Json;
  signature?: string;
}

function anthropicContent({ request, answer, finishReason, id }: SuccessInput): {
  blocks: AnthropicBlock[];
  stopReason: string;
} {
  const blocks: AnthropicBlock[] = [];
  if (request.thinking === "enabled" || request.thinking === "adaptive") {
    const signature = `fake-signature-${id}`;
    blocks.push({
      complete: { type: "thinking", thinking: fakeThinking, signature },
      start: { type: "thinking", thinking: "", signature: "" },
      streamed: fakeThinking,
      deltaType: "thinking_delta",
      delta: (piece) => ({ type: "thinking_delta", thinking: piece }),
      signature,
    });
  }
  const asTool =
    answer.kind === "object" &&
    request.schemaName !== undefined &&
    (request.structured === "tool" || request.structured === "tool-auto");
  if (asTool) {
    const toolId = `toolu_fake_${id}`;
    const value = answer.kind === "object" ? answer.value : undefined;
    blocks.push({
      complete: { type: "tool_use", id: toolId, name: request.schemaName, input: value, caller: { type: "direct" } },
      start: { type: "tool_use", id: toolId, name: request.schemaName, input: {}, caller: { type: "direct" } },
      streamed: JSON.stringify(value) ?? "",
      deltaType: "input_json_delta",
      delta: (piece) => ({ type: "input_json_delta", partial_json: piece }),
    });
  } else {
    const text = answer.kind === "object" ? (JSON.stringify(answer.value) ?? "") : answer.text;
    blocks.push({
      complete: { type: "text", text, citations: null },
      start: { type: "text", text: "", citations: null },
      streamed: text,
      deltaType: "text_delta",
      delta: (piece) => ({ type: "text_delta", text: piece }),
    });
  }
  const stopReason = finishReason === "length" ? "max_tokens" : asTool ? "tool_use" : "end_turn";
  return { blocks, stopReason };
}

/** Anthropic usage: `input_tokens` counts only the uncached part. */
function anthropicUsage(usage: Usage, outputTokens: number): Json {
  return {
    input_tokens: Math.max(0, usage.inputTokens - usage.cacheReadTokens - usage.cacheWriteTokens),
    output_tokens: outputTokens,
    cache_creation_input_tokens: usage.cacheWriteTokens,
    cache_read_input_tokens: usage.cacheReadTokens,
    cache_creation: { ephemeral_5m_input_tokens: usage.cacheWriteTokens, ephemeral_1h_input_tokens: 0 },
    server_tool_use: null,
    service_tier: "standard",
    inference_geo: null,
    output_tokens_details: null,
    speed: null,
  };
}

/** Anthropic's cache order: tools, then system blocks, then message blocks; a block carrying cache_control is a breakpoint. */
function anthropicCachePrompt(body: Json, tools: Json[]): FakeCachePrompt {
  const segments: Array<{ text: string; breakpoint: boolean }> = [];
  const marked = (block: Json) => block["cache_control"] !== undefined && block["cache_control"] !== null;
  for (const tool of tools) {
    segments.push({ text: JSON.stringify(tool["input_schema"] ?? {}), breakpoint: marked(tool) });
  }
  // A response format becomes part of the prompt the API builds: a changed schema is a changed prefix.
  const format = asRecord(asRecord(body["output_config"])["format"]);
  if (format["schema"] !== undefined) segments.push({ text: JSON.stringify(format["schema"]), breakpoint: false });
  const systemValue = body["system"];
  if (typeof systemValue === "string") segments.push({ text: systemValue, breakpoint: false });
  else
    for (const block of asArray(systemValue).map(asRecord))
      segments.push({ text: asString(block["text"]) ?? "", breakpoint: marked(block) });
  for (const raw of asArray(body["messages"])) {
    const content = asRecord(raw)["content"];
    if (typeof content === "string") {
      segments.push({ text: content, breakpoint: false });
      continue;
    }
    for (const block of asArray(content).map(asRecord))
      segments.push({ text: contentText([block]), breakpoint: marked(block) });
  }
  return { kind: "breakpoints", segments };
}

/** The JSON-mode instruction the OpenAI provider writes; lets json_object requests still carry a name. */
const jsonObjectNamePattern = /JSON object for "([^"]+)"/;

/** OpenAI Chat Completions API: `POST /v1/chat/completions`. */
export const openaiWire: WireFormat = {
  wire: "openai",
  normalize(body) {
    const all = asArray(body["messages"]).map(asRecord);
    const system = all
      .filter((message) => message["role"] === "system" || message["role"] === "developer")
      .map((message) => contentText(message["content"]))
      .join("\n\n");
    const messages: FakeModelMessage[] = all
      .filter((message) => message["role"] === "user" || message["role"] === "assistant")
      .map((message) => ({
        role: message["role"] === "assistant" ? "assistant" : "user",
        content: contentText(message["content"]),
      }));
    const responseFormat = asRecord(body["response_format"]);
    const jsonSchema = asRecord(responseFormat["json_schema"]);
    const structured =
      responseFormat["type"] === "json_schema"
        ? "json_schema"
        : responseFormat["type"] === "json_object"
          ? "json_object"
          : "none";
    return {
      model: asString(body["model"]) ?? "",
      system,
      messages,
      prompt: lastUserText(messages),
      schemaName:
        structured === "json_schema"
          ? asString(jsonSchema["name"])
          : structured === "json_object"
            ? jsonObjectNamePattern.exec(system)?.[1]
            : undefined,
      jsonSchema: structured === "json_schema" ? asRecord(jsonSchema["schema"]) : undefined,
      structured,
      strict: structured === "json_schema" && jsonSchema["strict"] === true,
      thinking: undefined,
      thinkingBudget: undefined,
      effort: asString(body["reasoning_effort"]),
      temperature: asNumber(body["temperature"]),
      maxTokens: asNumber(body["max_tokens"]) ?? asNumber(body["max_completion_tokens"]),
      stream: body["stream"] === true,
      cacheBreakpoints: 0,
      // OpenAI caches any repeated prefix by itself: the answer format first, then the messages in order.
      cachePrompt: {
        kind: "prefix",
        parts: [
          ...(structured === "json_schema" ? [JSON.stringify(jsonSchema["schema"] ?? {})] : []),
          ...all.map((message) => `${asString(message["role"]) ?? ""}: ${contentText(message["content"])}`),
        ],
      },
    };
  },
  success({ request, answer, usage, finishReason, id }) {
    const content = answer.kind === "object" ? JSON.stringify(answer.value) : answer.text;
    return {
      id: `chatcmpl-fake-${id}`,
      object: "chat.completion",
      created: Math.floor(Date.now() / 1000),
      model: request.model,
      system_fingerprint: "fp_fake",
      choices: [
        {
          index: 0,
          message: { role: "assistant", content, refusal: null },
          finish_reason: finishReason,
          logprobs: null,
        },
      ],
      usage: openaiUsage(usage),
    };
  },
  stream({ request, answer, usage, finishReason, id }, chunkCharacters) {
    const content = answer.kind === "object" ? (JSON.stringify(answer.value) ?? "") : answer.text;
    const includeUsage = asRecord(request.body["stream_options"])["include_usage"] === true;
    const chunk = (choices: Json[], extra: Json = {}): SseEvent => ({
      event: undefined,
      data: {
        id: `chatcmpl-fake-${id}`,
        object: "chat.completion.chunk",
        created: Math.floor(Date.now() / 1000),
        model: request.model,
        system_fingerprint: "fp_fake",
        choices,
        ...(includeUsage ? { usage: null } : {}),
        ...extra,
      },
    });
    const opening = [
      chunk([
        { index: 0, delta: { role: "assistant", content: "", refusal: null }, logprobs: null, finish_reason: null },
      ]),
    ];
    const body = chunkText(content, chunkCharacters)
      .filter((piece) => piece.length > 0)
      .map((piece) => chunk([{ index: 0, delta: { content: piece }, logprobs: null, finish_reason: null }]));
    const closing = [chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: finishReason }])];
    if (includeUsage) closing.push(chunk([], { usage: openaiUsage(usage) }));
    closing.push({ event: undefined, data: "[DONE]" });
    return { opening, body, closing };
  },
  error(status, message, detail) {
    const type = status === 429 ? "rate_limit_exceeded" : status >= 500 ? "server_error" : "invalid_request_error";
    const code = detail?.code ?? (status === 401 ? "invalid_api_key" : status === 429 ? "rate_limit_exceeded" : null);
    return { error: { message, type, param: detail?.param ?? null, code } };
  },
  refusal: openaiRefusal,
  streamErrorEvent: undefined,
};

/** OpenAI usage: `prompt_tokens` includes the cached tokens. */
function openaiUsage(usage: Usage): Json {
  return {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    prompt_tokens_details: { cached_tokens: usage.cacheReadTokens, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0 },
  };
}
