import type { Usage } from "../language-model.ts";
import type { FakeModelMessage, FakeModelRequest, FakeWire } from "./fake-model-request.ts";

/** The wire-specific part of a request, before the server adds path, attempt, index and headers. */
export type NormalizedBody = Omit<FakeModelRequest, "wire" | "path" | "attempt" | "index" | "headers" | "body"> & {
  /** Whether the system prompt asked to be cached (Anthropic cache_control; OpenAI caches automatically). */
  cacheableSystem: boolean;
};

/** What a success response is made from. */
export interface SuccessInput {
  request: FakeModelRequest;
  answer: { kind: "object"; value: unknown } | { kind: "text"; text: string };
  usage: Usage;
  finishReason: "stop" | "length";
  id: number;
}

/** One wire format: how to read a request and write answers and errors. */
export interface WireFormat {
  wire: FakeWire;
  normalize(body: Record<string, unknown>): NormalizedBody;
  success(input: SuccessInput): unknown;
  error(status: number, message: string): unknown;
}

type Json = Record<string, unknown>;

const asRecord = (value: unknown): Json => (typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Json) : {});
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
    const system = typeof systemValue === "string" ? systemValue : systemBlocks.map((block) => asString(block["text"]) ?? "").join("\n");
    const messages: FakeModelMessage[] = asArray(body["messages"]).map((raw) => {
      const message = asRecord(raw);
      return { role: message["role"] === "assistant" ? "assistant" : "user", content: contentText(message["content"]) };
    });
    const tools = asArray(body["tools"]).map(asRecord);
    const toolChoice = asRecord(body["tool_choice"]);
    const forcedName = toolChoice["type"] === "tool" ? asString(toolChoice["name"]) : undefined;
    const offered = toolChoice["type"] === "none" ? undefined : tools.find((tool) => tool["name"] === forcedName) ?? tools[0];
    const thinking = asRecord(body["thinking"]);
    return {
      model: asString(body["model"]) ?? "",
      system,
      messages,
      prompt: lastUserText(messages),
      schemaName: asString(offered?.["name"]),
      jsonSchema: offered ? asRecord(offered["input_schema"]) : undefined,
      structured: offered ? (forcedName !== undefined || toolChoice["type"] === "any" ? "tool" : "tool-auto") : "none",
      thinkingBudget: thinking["type"] === "enabled" ? asNumber(thinking["budget_tokens"]) : undefined,
      temperature: asNumber(body["temperature"]),
      maxTokens: asNumber(body["max_tokens"]),
      cacheableSystem: systemBlocks.some((block) => block["cache_control"] !== undefined && block["cache_control"] !== null),
    };
  },
  success({ request, answer, usage, finishReason, id }) {
    const content: Json[] = [];
    if (request.thinkingBudget !== undefined) {
      content.push({ type: "thinking", thinking: "(fake model server) Working out the answer.", signature: `fake-signature-${id}` });
    }
    const asTool = answer.kind === "object" && request.schemaName !== undefined;
    if (asTool) {
      content.push({ type: "tool_use", id: `toolu_fake_${id}`, name: request.schemaName, input: answer.value, caller: { type: "direct" } });
    } else {
      const text = answer.kind === "object" ? JSON.stringify(answer.value) : answer.text;
      content.push({ type: "text", text, citations: null });
    }
    return {
      id: `msg_fake_${id}`,
      type: "message",
      role: "assistant",
      model: request.model,
      content,
      stop_reason: finishReason === "length" ? "max_tokens" : asTool ? "tool_use" : "end_turn",
      stop_sequence: null,
      stop_details: null,
      container: null,
      diagnostics: null,
      usage: {
        input_tokens: Math.max(0, usage.inputTokens - usage.cacheReadTokens - usage.cacheWriteTokens),
        output_tokens: usage.outputTokens,
        cache_creation_input_tokens: usage.cacheWriteTokens,
        cache_read_input_tokens: usage.cacheReadTokens,
        cache_creation: { ephemeral_5m_input_tokens: usage.cacheWriteTokens, ephemeral_1h_input_tokens: 0 },
        server_tool_use: null,
        service_tier: "standard",
        inference_geo: null,
        output_tokens_details: null,
        speed: null,
      },
    };
  },
  error(status, message) {
    return { type: "error", error: { type: anthropicErrorType(status), message } };
  },
};

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
      .map((message) => ({ role: message["role"] === "assistant" ? "assistant" : "user", content: contentText(message["content"]) }));
    const responseFormat = asRecord(body["response_format"]);
    const jsonSchema = asRecord(responseFormat["json_schema"]);
    const structured =
      responseFormat["type"] === "json_schema" ? "json_schema" : responseFormat["type"] === "json_object" ? "json_object" : "none";
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
      thinkingBudget: undefined,
      temperature: asNumber(body["temperature"]),
      maxTokens: asNumber(body["max_tokens"]) ?? asNumber(body["max_completion_tokens"]),
      cacheableSystem: system.length > 0,
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
      choices: [{ index: 0, message: { role: "assistant", content, refusal: null }, finish_reason: finishReason, logprobs: null }],
      usage: {
        prompt_tokens: usage.inputTokens,
        completion_tokens: usage.outputTokens,
        total_tokens: usage.inputTokens + usage.outputTokens,
        prompt_tokens_details: { cached_tokens: usage.cacheReadTokens, audio_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0 },
      },
    };
  },
  error(status, message) {
    const type = status === 429 ? "rate_limit_exceeded" : status >= 500 ? "server_error" : "invalid_request_error";
    const code = status === 401 ? "invalid_api_key" : status === 429 ? "rate_limit_exceeded" : null;
    return { error: { message, type, param: null, code } };
  },
};
