import { type ClientErrorCode, DeliberateClientError, isAbortError } from "../errors.ts";
import { anySignal, sleep, timeoutSignal } from "../signals.ts";
import type { CallOptions, ProgressUpdate } from "../transport.ts";
import type { HttpConnection } from "./config.ts";
import { decideRetry, type FailureKind } from "./retry-policy.ts";

/** One REST request as the client sends it. */
export interface HttpRequest {
  method: "GET" | "POST";
  path: string;
  body?: unknown;
  /** Whether repeating it is harmless (see retry-policy.ts). */
  idempotent: boolean;
  /** Names the operation in error messages, e.g. `POST /agent_intent`. */
  what: string;
}

export interface HttpResponse {
  status: number;
  headers: Headers;
  body: unknown;
}

/** A code for an error response whose body is not the services' error body (e.g. from a proxy). */
function codeForStatus(status: number): ClientErrorCode {
  const byStatus: Record<number, ClientErrorCode> = {
    400: "INVALID_INPUT",
    401: "UNAUTHORIZED",
    404: "NOT_FOUND",
    408: "REQUEST_TIMEOUT",
    409: "CONFLICT",
    413: "PAYLOAD_TOO_LARGE",
    422: "LIMIT_EXCEEDED",
    429: "RATE_LIMITED",
    500: "INTERNAL",
    502: "CONNECTION_FAILED",
    503: "CONNECTION_FAILED",
    504: "TIMEOUT",
  };
  return byStatus[status] ?? "MALFORMED_RESPONSE";
}

interface ErrorEnvelope {
  error?: { code?: unknown; message?: unknown; issues?: unknown; hint?: unknown; retryable?: unknown };
  request_id?: unknown;
}

/** The client error for an error response: the server's code, message, issues and hint when its body is the error body. */
export function errorFromResponse(
  status: number,
  body: unknown,
  headers: Headers | null,
  what: string,
): DeliberateClientError {
  const envelope = (typeof body === "object" && body !== null ? body : {}) as ErrorEnvelope;
  const detail = envelope.error;
  const requestId =
    typeof envelope.request_id === "string" ? envelope.request_id : (headers?.get("x-request-id") ?? undefined);
  const retryAfter = headers?.get("retry-after") ?? null;
  if (detail && typeof detail.code === "string" && typeof detail.message === "string") {
    const issues = Array.isArray(detail.issues)
      ? detail.issues.filter(
          (issue): issue is { field: string; message: string } =>
            typeof issue?.field === "string" && typeof issue?.message === "string",
        )
      : [];
    return new DeliberateClientError({
      code: detail.code as ClientErrorCode,
      message: detail.message,
      issues,
      ...(typeof detail.hint === "string"
        ? { hint: detail.hint }
        : retryAfter
          ? { hint: `Retry after ${retryAfter} s.` }
          : {}),
      retryable: detail.retryable === true || status === 429,
      status,
      ...(requestId !== undefined ? { requestId } : {}),
    });
  }
  const code = codeForStatus(status);
  return new DeliberateClientError({
    code,
    message: `${what} answered ${status} without the error body${typeof body === "string" && body !== "" ? `: ${body.slice(0, 200)}` : ""}.`,
    retryable: status === 429 || status >= 502,
    status,
    ...(requestId !== undefined ? { requestId } : {}),
  });
}

function parseJson(text: string, what: string, status: number): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new DeliberateClientError({
      code: "MALFORMED_RESPONSE",
      message: `${what} answered ${status} with a body that is not JSON: ${text.slice(0, 200)}`,
      status,
      cause: error,
    });
  }
}

/**
 * Reads a `text/event-stream` of `progress` events and one `result` or
 * `error` event (the services' tool routes with `Accept: text/event-stream`).
 */
async function readEventStream(
  response: Response,
  what: string,
  onProgress: ((update: ProgressUpdate) => void) | undefined,
): Promise<unknown> {
  const reader = response.body?.getReader();
  if (!reader)
    throw new DeliberateClientError({
      code: "MALFORMED_RESPONSE",
      message: `${what} answered an event stream with no body.`,
    });
  const decoder = new TextDecoder();
  let buffer = "";
  const handle = (block: string): { done: true; value: unknown } | undefined => {
    let event = "message";
    const data: string[] = [];
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith("event:")) event = line.slice(6).trim();
      else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
    }
    if (data.length === 0) return undefined;
    const payload = parseJson(data.join("\n"), what, response.status);
    if (event === "progress") {
      onProgress?.(payload as ProgressUpdate);
      return undefined;
    }
    if (event === "result") return { done: true, value: payload };
    if (event === "error") throw errorFromResponse(500, payload, response.headers, what);
    return undefined;
  };
  for (;;) {
    const { value, done } = await reader.read();
    if (value) buffer += decoder.decode(value, { stream: true });
    for (let boundary = /\r?\n\r?\n/.exec(buffer); boundary !== null; boundary = /\r?\n\r?\n/.exec(buffer)) {
      const block = buffer.slice(0, boundary.index);
      buffer = buffer.slice(boundary.index + boundary[0].length);
      const outcome = handle(block);
      if (outcome) {
        await reader.cancel().catch(() => {});
        return outcome.value;
      }
    }
    if (done) break;
  }
  const outcome = buffer.trim() === "" ? undefined : handle(buffer);
  if (outcome) return outcome.value;
  throw new DeliberateClientError({
    code: "MALFORMED_RESPONSE",
    message: `${what}: the event stream ended without a result.`,
  });
}

function networkFailure(error: unknown): { refused: boolean; detail: string } {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
  const code = typeof cause?.code === "string" ? cause.code : undefined;
  const detail =
    typeof cause?.message === "string" ? cause.message : error instanceof Error ? error.message : String(error);
  return { refused: code === "ECONNREFUSED", detail };
}

/**
 * Sends one REST request with the connection's headers (Accept-Version,
 * bearer token), a timeout per attempt, and retries per the retry policy
 * (Retry-After honoured). Resolves with the parsed JSON of a 2xx answer;
 * rejects with a `DeliberateClientError` (the server's code for its error
 * answers; TIMEOUT, ABORTED, CONNECTION_FAILED, MALFORMED_RESPONSE otherwise).
 */
export async function sendHttpRequest(
  connection: HttpConnection,
  request: HttpRequest,
  options: CallOptions = {},
): Promise<HttpResponse> {
  const timeoutMs = options.timeoutMs ?? connection.timeoutMs;
  const headers: Record<string, string> = {
    accept: options.onProgress ? "text/event-stream, application/json" : "application/json",
    "accept-version": connection.version,
    ...connection.headers,
  };
  if (connection.token) headers["authorization"] = `Bearer ${connection.token}`;
  if (request.body !== undefined) headers["content-type"] = "application/json";
  const body = request.body === undefined ? undefined : JSON.stringify(request.body);
  const url = `${connection.baseUrl}${request.path}`;

  for (let attempt = 0; ; attempt += 1) {
    if (options.signal?.aborted)
      throw new DeliberateClientError({
        code: "ABORTED",
        message: `${request.what} was aborted.`,
        cause: options.signal.reason,
      });
    const timer = timeoutSignal(timeoutMs);
    const combined = anySignal([options.signal, timer.signal]);
    let failure: FailureKind;
    let error: DeliberateClientError;
    try {
      const response = await connection.fetch(url, {
        method: request.method,
        headers,
        ...(body !== undefined ? { body } : {}),
        signal: combined.signal,
      });
      const isStream = (response.headers.get("content-type") ?? "").includes("text/event-stream");
      if (response.ok && isStream)
        return {
          status: response.status,
          headers: response.headers,
          body: await readEventStream(response, request.what, options.onProgress),
        };
      const text = await response.text();
      if (response.ok)
        return {
          status: response.status,
          headers: response.headers,
          body: text === "" ? null : parseJson(text, request.what, response.status),
        };
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // Not the error body (a proxy's page, say): the status decides the code.
      }
      error = errorFromResponse(response.status, parsed, response.headers, request.what);
      failure = { kind: "status", status: response.status, retryAfter: response.headers.get("retry-after") };
    } catch (thrown) {
      if (DeliberateClientError.isInstance(thrown)) {
        if (!timer.timedOut()) throw thrown;
      }
      if (options.signal?.aborted)
        throw new DeliberateClientError({
          code: "ABORTED",
          message: `${request.what} was aborted.`,
          cause: options.signal.reason,
        });
      if (timer.timedOut()) {
        error = new DeliberateClientError({
          code: "TIMEOUT",
          message: `${request.what} did not answer within ${timeoutMs} ms.`,
          retryable: true,
          hint: "Raise the timeout (timeoutMs or REASONING_API_TIMEOUT_MS) or ask for less.",
          cause: thrown,
        });
        failure = { kind: "timeout" };
      } else if (isAbortError(thrown)) {
        throw new DeliberateClientError({ code: "ABORTED", message: `${request.what} was aborted.`, cause: thrown });
      } else {
        const network = networkFailure(thrown);
        error = new DeliberateClientError({
          code: "CONNECTION_FAILED",
          message: `${request.what}: could not reach ${connection.baseUrl} (${network.detail}).`,
          retryable: true,
          hint: "Check that deliberate-api runs at REASONING_API_URL.",
          cause: thrown,
        });
        failure = { kind: "network", refused: network.refused };
      }
    } finally {
      timer.clear();
      combined.dispose();
    }
    const decision = decideRetry({
      failure,
      attempt,
      retries: connection.retries,
      idempotent: request.idempotent,
      backoffMs: connection.backoffMs,
      maxRetryDelayMs: connection.maxRetryDelayMs,
      now: Date.now(),
      random: Math.random(),
    });
    if (!decision.retry) throw error;
    try {
      await sleep(decision.delayMs, options.signal);
    } catch (reason) {
      throw new DeliberateClientError({
        code: "ABORTED",
        message: `${request.what} was aborted while waiting to retry.`,
        cause: reason,
      });
    }
  }
}
