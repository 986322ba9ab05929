import type { IncomingMessage, OutgoingHttpHeaders, RequestListener, ServerResponse } from "node:http";
import type { HttpChecks } from "../http-checks.ts";
import { clientAddressOf } from "../middleware/rate-limit.ts";
import { readIncomingText } from "../routes/read-json.ts";
import { AnswerWriter } from "./answer-writer.ts";
import { ClientEnds, type RunningRequests } from "./client-ends.ts";
import {
  answerOf,
  type JsonOperation,
  neverAborted,
  type OperationRequest,
  wantsEventStream,
} from "./json-operation.ts";
import type { OperationTable } from "./operation-table.ts";
import {
  type CheckedRequest,
  newRequestState,
  type RequestCheck,
  type RequestState,
  runChecks,
  setHeaders,
} from "./request-checks.ts";

export interface DispatcherOptions {
  table: OperationTable;
  checks: HttpChecks;
  /** The request checks, in order (`requestChecks`): the same list the Hono app runs. */
  list: readonly RequestCheck[];
  /** Hono's listener (`getRequestListener(app.fetch)`), for every request not answered directly. */
  hono: RequestListener;
}

/** A header's value (only set-cookie is ever a list, and repeated headers never get here). */
const one = (value: string | string[] | undefined): string | undefined =>
  typeof value === "string" ? value : undefined;

/** How many distinct Host values the verdicts remember (cleared when full). */
const hostCacheSize = 64;
/** What is read and thrown away of a body nobody read before the connection is closed (as @hono/node-server drains). */
const maxDrainBytes = 64 * 1024 * 1024;
const drainTimeoutMs = 500;

/**
 * The HTTP API's one `node:http` request listener. It looks the request up in the operation table: a
 * JSON operation at exactly this method and path (no query string) is answered here — the request checks
 * (`requestChecks`), its input, its handler and the JSON answer (written with the other answers of its
 * turn when the turn's I/O ends: `AnswerWriter`), with no fetch Request or Response, router or middleware
 * chain in between, as Hono's own dispatch answers a route with a single handler directly.
 * Everything else goes to the Hono app, which answers it from the same table and the same checks:
 * another path or method, a query string or path parameters, a stream asked for, a repeated header (Hono
 * sees the values joined), and a Host header @hono/node-server would refuse or rewrite (missing, or not
 * its own URL's host). Both ways give the same status, headers and body (test/dispatcher.test.ts).
 */
export function createDispatcher(options: DispatcherOptions): RequestListener {
  const { table, checks, list, hono } = options;
  // @hono/node-server builds the request URL from Host and answers 400 itself when that changes the name.
  const hostVerdicts = new Map<string, boolean>();
  const keptByNodeServer = (host: string): boolean => {
    let verdict = hostVerdicts.get(host);
    if (verdict === undefined) {
      try {
        const { hostname } = new URL(`http://${host}/`);
        verdict = hostname.length === host.length || hostname === host.replace(/:\d+$/, "");
      } catch {
        verdict = false;
      }
      if (hostVerdicts.size >= hostCacheSize) hostVerdicts.clear();
      hostVerdicts.set(host, verdict);
    }
    return verdict;
  };

  function directOperation(request: IncomingMessage): JsonOperation | undefined {
    const operation = table.find(request.method ?? "", request.url ?? "");
    if (operation === undefined) return undefined;
    const headers = request.headers;
    let count = 0;
    for (const _name in headers) count += 1;
    if (request.rawHeaders.length !== 2 * count) return undefined;
    const host = headers.host;
    if (host === undefined || !keptByNodeServer(host)) return undefined;
    if (operation.stream !== undefined && wantsEventStream(headers.accept)) return undefined;
    return operation;
  }

  // Answers are written together at the end of the turn that computed them (see AnswerWriter).
  const writer = new AnswerWriter<ReadyAnswer>((ready) => writeAnswer(ready, checks));
  // A client's FIN: the answers made are written first; requests still running are cancelled (see ClientEnds).
  const clientEnds = new ClientEnds(() => writer.flush());

  /** Answers a request served directly; never rejects: an error answer that cannot be made closes the connection. */
  async function answer(
    request: IncomingMessage,
    response: ServerResponse,
    operation: JsonOperation,
    running: RunningRequests,
  ): Promise<void> {
    try {
      const started = performance.now();
      const path = request.url as string;
      const state = newRequestState();
      const headers = state.headers;
      let status: number;
      let body: string;
      try {
        const view = new NodeRequest(request, response, path, state, checks.settings);
        const pending = runChecks(list, view, state);
        if (pending !== undefined) await pending;
        // Awaited only when pending: a synchronous answer (health, listings) is queued in the same turn.
        let input = operation.input === undefined ? undefined : operation.input(view);
        if (input instanceof Promise) input = await input;
        let result = operation.answer(input, view);
        if (result instanceof Promise) result = await result;
        const answered = answerOf(operation, result);
        status = answered.status;
        setHeaders(headers, answered.headers);
        body = JSON.stringify(answered.body);
      } catch (error) {
        const failure = checks.errorAnswer(error, {
          requestId: state.requestId,
          path,
          timedOut: state.signal?.timedOut() ?? false,
        });
        status = failure.status;
        setHeaders(headers, failure.headers);
        body = JSON.stringify(failure.body);
      } finally {
        state.signal?.done();
      }
      headers["content-type"] = "application/json";
      (headers as Record<string, string | number>)["content-length"] = Buffer.byteLength(body);
      writer.enqueue(new ReadyAnswer(request, response, status, headers, body, path, started, state.requestId));
      running.finished();
    } catch (error) {
      // Only an error answer that cannot be made gets here: the connection is closed.
      running.finished();
      response.destroy(error instanceof Error ? error : undefined);
    }
  }

  return (request, response) => {
    // Answers a long turn has held for a while go out first; this turn's are written before what it schedules.
    writer.flushOverdue();
    writer.arm();
    const running = clientEnds.started(request.socket);
    const operation = directOperation(request);
    if (operation === undefined) {
      response.once("close", running.finished);
      hono(request, response);
      return;
    }
    // No .catch: answer never rejects (a promise and a hop fewer per request).
    void answer(request, response, operation, running);
  };
}

/** Writes an answer, then drains what the client sent and nobody read, and logs the request. */
function writeAnswer(ready: ReadyAnswer, checks: HttpChecks): void {
  const { request, response } = ready;
  try {
    response.writeHead(ready.status, ready.headers);
    response.end(ready.body);
  } catch (error) {
    // Only writing the answer can fail here: the connection is gone.
    response.destroy(error instanceof Error ? error : undefined);
    return;
  }
  if (!request.complete) drainUnread(request);
  checks.logRequest({
    method: request.method as string,
    path: ready.path,
    status: ready.status,
    duration_ms: Math.round(performance.now() - ready.started),
    request_id: ready.requestId,
  });
}

/** An answer ready to be written, and what the request log says of it. */
class ReadyAnswer {
  constructor(
    readonly request: IncomingMessage,
    readonly response: ServerResponse,
    readonly status: number,
    readonly headers: OutgoingHttpHeaders,
    readonly body: string,
    readonly path: string,
    readonly started: number,
    readonly requestId: string,
  ) {}
}

/**
 * The request as the checks (`CheckedRequest`) and its operation (`OperationRequest`) see it, in one object
 * per request; served directly, a path has no parameters and no query string.
 */
class NodeRequest implements CheckedRequest, OperationRequest {
  constructor(
    private readonly request: IncomingMessage,
    readonly outgoing: ServerResponse,
    readonly path: string,
    private readonly state: RequestState,
    private readonly settings: HttpChecks["settings"],
  ) {}
  get requestId(): string {
    return this.state.requestId;
  }
  get signal(): AbortSignal {
    return this.state.signal?.signal ?? neverAborted;
  }
  header(name: string): string | undefined {
    return one(this.request.headers[name]);
  }
  client(): string {
    const forwardedFor = this.settings.trustProxy ? one(this.request.headers["x-forwarded-for"]) : undefined;
    return clientAddressOf(forwardedFor, () => this.request.socket.remoteAddress ?? "unknown");
  }
  param(): string {
    return "";
  }
  query(): Record<string, string> {
    return {};
  }
  text(): Promise<string> {
    return readIncomingText(this.request, this.settings.maxBodyBytes);
  }
}

/** A body left unread by an answer given before it (a refused request): read and dropped, within bounds. */
function drainUnread(request: IncomingMessage): void {
  let read = 0;
  const close = () => {
    cleanup();
    request.socket.destroySoon();
  };
  const timer = setTimeout(close, drainTimeoutMs);
  timer.unref();
  const onData = (chunk: Buffer) => {
    read += chunk.length;
    if (read > maxDrainBytes) close();
  };
  const cleanup = () => {
    clearTimeout(timer);
    request.off("data", onData);
    request.off("end", cleanup);
    request.off("error", cleanup);
  };
  request.on("data", onData);
  request.on("end", cleanup);
  request.on("error", cleanup);
  request.resume();
}
