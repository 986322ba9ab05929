import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Usage } from "../language-model.ts";
import type {
  FakeModelRequest,
  FakeReply,
  FakeRespond,
  FakeResponder,
  FakeStreamOptions,
  FakeWire,
} from "./fake-model-request.ts";
import { FakePromptCache, fakeTokens, maximumFakeCacheBreakpoints } from "./fake-prompt-cache.ts";
import { FakeScriptError, toResponder } from "./fake-respond.ts";
import { anthropicWire, openaiWire, type SseEvent, type StreamedAnswer, type WireFormat } from "./fake-wire-formats.ts";

/** Options of the fake model server. */
export interface FakeModelServerOptions {
  /** How to answer; defaults to a 500 saying that nothing was scripted. Change it later with `setRespond`. */
  respond?: FakeRespond;
  /** When set, requests without this key (Bearer or x-api-key) get a 401 before `respond` is asked. */
  apiKey?: string;
  /**
   * The shortest prefix the fake prompt cache stores, in tokens (default 0:
   * any marked prefix). Real providers cache nothing shorter than 1,024
   * tokens (Anthropic: 1,024–4,096 by model); set it to see what pays.
   */
  cacheMinimumTokens?: number;
}

/** A running fake model server on 127.0.0.1. */
export interface FakeModelServer {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** What to give the Anthropic SDK / ANTHROPIC_BASE_URL: the server URL (the SDK adds `/v1/messages`). */
  readonly anthropicBaseURL: string;
  /** What to give the OpenAI SDK / OPENAI_BASE_URL: the server URL plus `/v1`. */
  readonly openaiBaseURL: string;
  /** Every model request received, in order (retries included). */
  readonly requests: FakeModelRequest[];
  /** Replaces how the server answers from the next request on. */
  setRespond(respond: FakeRespond): void;
  /** Forgets recorded requests, the request count and the prompt-cache memory. */
  reset(): void;
  /**
   * Environment variables that point a Deliberate service at this server, e.g.
   * `{ DELIBERATE_PROVIDER: "openai", OPENAI_API_KEY, OPENAI_BASE_URL }`.
   */
  environment(wire: FakeWire): Record<string, string>;
  /** Stops the server, dropping open connections and pending delays. */
  close(): Promise<void>;
}

/** The key `environment()` hands out (and, unless `apiKey` is given, any key is accepted). */
const fakeApiKey = "fake-model-server-key";
/** Characters per streamed delta unless a reply says otherwise. */
const defaultChunkCharacters = 16;
const maximumBodyBytes = 10 * 1024 * 1024;

/**
 * A loopback HTTP server that speaks the Anthropic Messages
 * (`POST /v1/messages`) and OpenAI Chat Completions
 * (`POST /v1/chat/completions`) wire formats, for tests that run the real
 * SDKs (or a whole service process) against scripted answers. Any path ending
 * in `/messages` or `/chat/completions` is accepted.
 *
 * `respond` receives a normalized request (wire, model, system, messages,
 * schemaName, jsonSchema, attempt, ...) and returns `{ object }`, `{ text }`
 * (or a string), `{ status, retryAfterSeconds?, retryAfterMs?, message? }`,
 * `{ delayMs }` or `{ hangUp: true }`. Structured answers come back in each
 * wire's shape (Anthropic: a tool_use block for the offered tool; OpenAI: the
 * JSON as message content) with usage estimated at 4 characters a token.
 * A request with `stream: true` gets the answer as server-sent events in the
 * wire's streaming format (Anthropic `message_start` ... `message_stop`;
 * OpenAI `chat.completion.chunk`s, the usage chunk when
 * `stream_options.include_usage`, then `[DONE]`).
 *
 * Prompt caching is imitated (see `FakePromptCache`): Anthropic reads and
 * writes the prefixes ending at `cache_control` breakpoints (more than 4 is
 * a 400, as on the real API), OpenAI reads any prefix it has seen before.
 *
 * @example
 * const server = await createFakeModelServer({ respond: (request) => ({ object: { answer: 42 } }) });
 * const model = createOpenAIModel({ baseURL: server.openaiBaseURL, modelId: "fake", timeoutMs: 5000, maxRetries: 0 });
 * // ... later: await server.close();
 */
export async function createFakeModelServer(options: FakeModelServerOptions = {}): Promise<FakeModelServer> {
  let responder: FakeResponder = options.respond ? toResponder(options.respond) : unscripted;
  const requests: FakeModelRequest[] = [];
  const cache = new FakePromptCache(options.cacheMinimumTokens ?? 0);
  const pending = new Set<AbortController>();
  let received = 0;

  const server = createServer((incoming, outgoing) => {
    handle(incoming, outgoing).catch((error: unknown) => {
      if (!outgoing.headersSent)
        sendJson(outgoing, 500, { error: { message: String(error) } }, { "x-should-retry": "false" });
      else outgoing.destroy();
    });
  });

  async function handle(incoming: IncomingMessage, outgoing: ServerResponse): Promise<void> {
    const path = new URL(incoming.url ?? "/", "http://localhost").pathname.replace(/\/+$/, "");
    if (incoming.method === "GET" && path.endsWith("/models")) {
      sendJson(outgoing, 200, modelList());
      return;
    }
    const format = incoming.method === "POST" ? wireFor(path) : undefined;
    if (!format) {
      sendJson(outgoing, 404, {
        error: { type: "not_found_error", message: `The fake model server has no ${incoming.method} ${path}.` },
      });
      return;
    }
    const rawBody = await readBody(incoming);
    let body: Record<string, unknown>;
    try {
      const parsed: unknown = JSON.parse(rawBody);
      if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
        throw new Error("the body is not a JSON object");
      body = parsed as Record<string, unknown>;
    } catch (error) {
      sendJson(
        outgoing,
        400,
        format.error(400, `Invalid JSON body: ${error instanceof Error ? error.message : String(error)}`),
      );
      return;
    }
    const { cachePrompt, ...normalized } = format.normalize(body);
    const request: FakeModelRequest = {
      ...normalized,
      wire: format.wire,
      path,
      attempt: Number(headerValue(incoming, "x-stainless-retry-count") ?? "0") || 0,
      index: received,
      headers: redactedHeaders(incoming),
      body,
      refused: undefined,
    };
    received += 1;
    requests.push(request);
    const id = request.index + 1;

    if (options.apiKey !== undefined && !carriesKey(incoming, options.apiKey)) {
      sendJson(outgoing, 401, format.error(401, "invalid x-api-key"));
      return;
    }
    const refusal = format.refusal(body);
    if (refusal) {
      request.refused = refusal.message;
      sendJson(outgoing, 400, format.error(400, refusal.message, refusal), { "x-should-retry": "false" });
      return;
    }
    if (request.cacheBreakpoints > maximumFakeCacheBreakpoints) {
      const message = `A maximum of ${maximumFakeCacheBreakpoints} blocks with cache_control may be provided. Found ${request.cacheBreakpoints}.`;
      sendJson(outgoing, 400, format.error(400, message));
      return;
    }

    let reply: FakeReply;
    try {
      reply = await responder(request);
      checkReply(reply);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const prefix = error instanceof FakeScriptError ? "" : "The fake model server's respond failed: ";
      sendJson(outgoing, 500, format.error(500, `${prefix}${message}`), { "x-should-retry": "false" });
      return;
    }
    if (typeof reply === "string") reply = { text: reply };

    if ("delayMs" in reply && reply.delayMs !== undefined && reply.delayMs > 0) {
      const completed = await waitUnlessClosed(reply.delayMs, outgoing);
      if (!completed) return;
    }
    if ("hangUp" in reply) {
      incoming.socket.destroy();
      return;
    }
    if ("status" in reply) {
      const headers: Record<string, string> = {
        "x-should-retry": reply.status === 429 || reply.status >= 500 ? "true" : "false",
      };
      if (reply.retryAfterSeconds !== undefined) headers["retry-after"] = String(reply.retryAfterSeconds);
      if (reply.retryAfterMs !== undefined) headers["retry-after-ms"] = String(reply.retryAfterMs);
      const message = reply.message ?? defaultErrorMessage(reply.status);
      sendJson(outgoing, reply.status, format.error(reply.status, message), headers);
      return;
    }
    const answer =
      "object" in reply
        ? { kind: "object" as const, value: reply.object }
        : { kind: "text" as const, text: "text" in reply ? reply.text : "" };
    const answerText = answer.kind === "object" ? (JSON.stringify(answer.value) ?? "") : answer.text;
    const measured = cache.measure(`${request.wire}\u0000${request.model}`, cachePrompt);
    const thinkingTokens = request.thinking === "enabled" || request.thinking === "adaptive" ? 12 : 0;
    const usage: Usage = {
      ...measured,
      outputTokens: fakeTokens(answerText) + thinkingTokens,
      ...("usage" in reply ? reply.usage : {}),
    };
    const finishReason = "finishReason" in reply && reply.finishReason === "length" ? "length" : "stop";
    const success = { request, answer, usage, finishReason, id } as const;
    if (request.stream) {
      const streaming: FakeStreamOptions = "object" in reply || "text" in reply ? reply : {};
      await sendStream(
        outgoing,
        format,
        format.stream(success, streaming.chunkCharacters ?? defaultChunkCharacters),
        streaming,
        id,
      );
      return;
    }
    sendJson(outgoing, 200, format.success(success), { "request-id": `req_fake_${id}` });
  }

  /** Writes a streamed answer as SSE: opening, deltas (paced by streamDelayMs), the gate, closing; or an error event midway. */
  async function sendStream(
    outgoing: ServerResponse,
    format: WireFormat,
    streamed: StreamedAnswer,
    reply: FakeStreamOptions,
    id: number,
  ): Promise<void> {
    outgoing.writeHead(200, {
      "content-type": "text/event-stream",
      "cache-control": "no-cache",
      "request-id": `req_fake_${id}`,
    });
    const write = (event: SseEvent) => {
      const data = typeof event.data === "string" ? event.data : JSON.stringify(event.data);
      outgoing.write(`${event.event !== undefined ? `event: ${event.event}\n` : ""}data: ${data}\n\n`);
    };
    for (const event of streamed.opening) write(event);
    for (const [index, event] of streamed.body.entries()) {
      if (reply.streamDelayMs !== undefined && reply.streamDelayMs > 0) {
        if (!(await waitUnlessClosed(reply.streamDelayMs, outgoing))) return;
      }
      write(event);
      if (reply.streamError && index === firstDeltaIndex(streamed.body)) {
        const error = reply.streamError;
        write({
          event: format.streamErrorEvent,
          data: format.error(error.status, error.message ?? defaultErrorMessage(error.status)),
        });
        outgoing.end();
        return;
      }
    }
    if (reply.streamGate) {
      if (!(await waitForGate(reply.streamGate, outgoing))) return;
    }
    for (const event of streamed.closing) write(event);
    outgoing.end();
  }

  /** Waits for a scripted gate, unless the client goes away or the server closes first. */
  function waitForGate(gate: PromiseLike<unknown>, outgoing: ServerResponse): Promise<boolean> {
    return new Promise((resolve) => {
      const controller = new AbortController();
      pending.add(controller);
      let settled = false;
      const finish = (completed: boolean) => {
        if (settled) return;
        settled = true;
        pending.delete(controller);
        outgoing.off("close", onClose);
        resolve(completed);
      };
      const onClose = () => finish(false);
      outgoing.on("close", onClose);
      controller.signal.addEventListener("abort", () => finish(false), { once: true });
      Promise.resolve(gate).then(
        () => finish(true),
        () => finish(true),
      );
    });
  }

  function waitUnlessClosed(milliseconds: number, outgoing: ServerResponse): Promise<boolean> {
    return new Promise((resolve) => {
      const controller = new AbortController();
      pending.add(controller);
      const finish = (completed: boolean) => {
        clearTimeout(timer);
        pending.delete(controller);
        outgoing.off("close", onClose);
        resolve(completed);
      };
      const onClose = () => finish(false);
      const timer = setTimeout(() => finish(true), milliseconds);
      outgoing.on("close", onClose);
      controller.signal.addEventListener("abort", () => finish(false), { once: true });
    });
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    anthropicBaseURL: url,
    openaiBaseURL: `${url}/v1`,
    requests,
    setRespond(respond) {
      responder = toResponder(respond);
    },
    reset() {
      requests.length = 0;
      received = 0;
      cache.clear();
    },
    environment(wire): Record<string, string> {
      if (wire === "anthropic") {
        return {
          DELIBERATE_PROVIDER: "anthropic",
          ANTHROPIC_API_KEY: options.apiKey ?? fakeApiKey,
          ANTHROPIC_BASE_URL: url,
        };
      }
      return {
        DELIBERATE_PROVIDER: "openai",
        OPENAI_API_KEY: options.apiKey ?? fakeApiKey,
        OPENAI_BASE_URL: `${url}/v1`,
      };
    },
    close() {
      for (const controller of [...pending]) controller.abort();
      return new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
    },
  };
}

const unscripted: FakeResponder = (request) => {
  throw new FakeScriptError(
    `Nothing is scripted for this ${request.wire} request (schema "${request.schemaName ?? "(plain text)"}"): pass respond to createFakeModelServer or call setRespond.`,
  );
};

function wireFor(path: string): WireFormat | undefined {
  if (path.endsWith("/chat/completions")) return openaiWire;
  if (path.endsWith("/messages")) return anthropicWire;
  return undefined;
}

const replyKeys = ["object", "text", "status", "delayMs", "hangUp"];

function checkReply(reply: FakeReply): void {
  if (typeof reply === "string") return;
  if (typeof reply === "object" && reply !== null && replyKeys.some((key) => key in reply)) return;
  const shape = typeof reply === "object" && reply !== null ? `{ ${Object.keys(reply).join(", ")} }` : String(reply);
  throw new FakeScriptError(
    `respond returned ${shape}, which is not a reply: use { object }, { text } or a string, { status }, { delayMs } or { hangUp: true } (wrap a structured answer as { object: ... }).`,
  );
}

function defaultErrorMessage(status: number): string {
  if (status === 401) return "invalid x-api-key";
  if (status === 429) return "Rate limited by the fake model server.";
  if (status >= 500) return "The fake model server failed on purpose.";
  return `The fake model server answered ${status} on purpose.`;
}

/** The first event of a stream body that carries output (Anthropic: after the block start; OpenAI: the first chunk). */
function firstDeltaIndex(body: SseEvent[]): number {
  const index = body.findIndex((event) => event.event === undefined || event.event === "content_block_delta");
  return index === -1 ? 0 : index;
}

function headerValue(incoming: IncomingMessage, name: string): string | undefined {
  const value = incoming.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function carriesKey(incoming: IncomingMessage, apiKey: string): boolean {
  return headerValue(incoming, "authorization") === `Bearer ${apiKey}` || headerValue(incoming, "x-api-key") === apiKey;
}

function redactedHeaders(incoming: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(incoming.headers)) {
    if (value === undefined) continue;
    headers[name] =
      name === "authorization" || name === "x-api-key" ? "[redacted]" : Array.isArray(value) ? value.join(", ") : value;
  }
  return headers;
}

function readBody(incoming: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    incoming.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > maximumBodyBytes) {
        reject(new Error("request body too large"));
        incoming.destroy();
        return;
      }
      chunks.push(chunk);
    });
    incoming.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    incoming.on("error", reject);
  });
}

function sendJson(outgoing: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  outgoing.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    ...headers,
  });
  outgoing.end(text);
}

function modelList(): unknown {
  const created = Math.floor(Date.now() / 1000);
  const data = [
    {
      id: "fake-model",
      object: "model",
      type: "model",
      display_name: "Fake model",
      created,
      created_at: new Date(created * 1000).toISOString(),
      owned_by: "deliberate",
    },
  ];
  return { object: "list", data, has_more: false, first_id: "fake-model", last_id: "fake-model" };
}
