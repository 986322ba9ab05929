import type { Usage } from "../language-model.ts";

/** The two wire formats the fake model server speaks. */
export type FakeWire = "anthropic" | "openai";

/** A conversation message reduced to text (tool calls as their JSON input, tool results as their text). */
export interface FakeModelMessage {
  role: "user" | "assistant";
  content: string;
}

/** One request to the fake model server, normalized across both wire formats. */
export interface FakeModelRequest {
  wire: FakeWire;
  /** The request path, e.g. `/v1/messages`. */
  path: string;
  model: string;
  /** The system prompt as text (Anthropic system blocks / OpenAI system messages joined). */
  system: string;
  messages: FakeModelMessage[];
  /** Text of the last user message: what the model is asked now. */
  prompt: string;
  /**
   * Name of the structured answer asked for: the Anthropic tool name or the
   * OpenAI json_schema name; undefined for plain text calls.
   */
  schemaName: string | undefined;
  /** JSON schema of the structured answer (tool input_schema / json_schema.schema). */
  jsonSchema: Record<string, unknown> | undefined;
  /**
   * How the answer is requested: forced tool, offered tool, json_schema
   * (OpenAI `response_format`, Anthropic `output_config.format`), json_object,
   * or plain text.
   */
  structured: "tool" | "tool-auto" | "json_schema" | "json_object" | "none";
  /**
   * Whether the request asks for constrained decoding: OpenAI `json_schema`
   * with `strict: true`, Anthropic `output_config.format` or a tool with
   * `strict: true`.
   */
  strict: boolean;
  /** Anthropic `thinking.type` (`enabled`, `adaptive`, `disabled`), when sent. */
  thinking: string | undefined;
  /** Anthropic `thinking.budget_tokens` when thinking is enabled. */
  thinkingBudget: number | undefined;
  /** Anthropic `output_config.effort` / OpenAI `reasoning_effort`, when sent. */
  effort: string | undefined;
  temperature: number | undefined;
  /** `max_tokens`, or OpenAI's `max_completion_tokens` (reasoning models); see `body` for which was sent. */
  maxTokens: number | undefined;
  /** Whether the client asked for a streamed answer (`stream: true`); the server then answers with SSE events. */
  stream: boolean;
  /** Anthropic: how many blocks (tools, system, messages) carry `cache_control`; 0 for OpenAI, which caches by itself. */
  cacheBreakpoints: number;
  /** The SDK's retry count for this request (`x-stainless-retry-count`): 0 first, 1 for the first retry, ... */
  attempt: number;
  /** 0-based count of requests this server received before this one (since start or `reset()`). */
  index: number;
  /** Request headers, lower-case, with `authorization` and `x-api-key` redacted. */
  headers: Record<string, string>;
  /** The parsed JSON body as sent. */
  body: Record<string, unknown>;
  /**
   * Why the server refused the request with a 400, as the real API would
   * (see `anthropicRefusal` / `openaiRefusal`); undefined when it was accepted.
   */
  refused: string | undefined;
}

/** How a reply is streamed when the client asked for `stream: true` (ignored otherwise). */
export interface FakeStreamOptions {
  /** Characters per delta event (default 16). */
  chunkCharacters?: number;
  /** Pause before each delta event, in milliseconds. */
  streamDelayMs?: number;
  /**
   * The stream pauses after its deltas, before the closing events (stop
   * reason and usage), until this settles: lets a test act while the answer
   * is still streaming.
   */
  streamGate?: PromiseLike<unknown>;
  /** After the first delta, an error event in the wire's format (e.g. Anthropic `overloaded_error` for 529) ends the stream. */
  streamError?: { status: number; message?: string };
}

/** A structured answer: sent as a tool_use block (Anthropic, when a tool was offered) or as JSON content (OpenAI). */
export interface FakeObjectReply extends FakeStreamOptions {
  object: unknown;
  /** Figures to report instead of the estimate; `inputTokens` includes cache reads and writes. */
  usage?: Partial<Usage>;
  /** `length` reports the answer as cut off at the token limit. */
  finishReason?: "stop" | "length";
  delayMs?: number;
}

/** A text answer (Anthropic text block / OpenAI message content). */
export interface FakeTextReply extends FakeStreamOptions {
  text: string;
  usage?: Partial<Usage>;
  finishReason?: "stop" | "length";
  delayMs?: number;
}

/** An HTTP error in the wire's error format, e.g. `{ status: 429, retryAfterSeconds: 0.01 }`. */
export interface FakeFailureReply {
  status: number;
  message?: string;
  /** Sent as `retry-after` (the SDKs accept fractions). */
  retryAfterSeconds?: number;
  /** Sent as `retry-after-ms`, which the SDKs prefer. */
  retryAfterMs?: number;
  delayMs?: number;
}

/** Waits, then answers with empty text: with a small client timeout, provokes PROVIDER_TIMEOUT. */
export interface FakeDelayReply {
  delayMs: number;
}

/** Destroys the connection without an answer: a connection failure (PROVIDER_UNAVAILABLE). */
export interface FakeHangUpReply {
  hangUp: true;
}

/** What `respond` returns; a plain string is short for `{ text }`. */
export type FakeReply = string | FakeObjectReply | FakeTextReply | FakeFailureReply | FakeDelayReply | FakeHangUpReply;

/** Computes the reply to one request. */
export type FakeResponder = (request: FakeModelRequest) => FakeReply | Promise<FakeReply>;

/** A responder, one fixed reply for every request, or a list of replies (one per request, in order). */
export type FakeRespond = FakeResponder | FakeReply | readonly FakeReply[];
