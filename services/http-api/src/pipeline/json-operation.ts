import type { Context } from "hono";
import type { AppEnv } from "../app-env.ts";
import type { Operation } from "./operation.ts";

/**
 * One request as an operation sees it, whichever way it came in (through Hono, or served directly on
 * `node:http` by the dispatcher): the same few accessors, so an operation is written once.
 */
export interface OperationRequest {
  readonly requestId: string;
  /**
   * Aborted when the client goes away or the request times out, on routes that run model work (elsewhere
   * `neverAborted`); made when first read, so pass it on lazily (model-free work never reads it).
   */
  readonly signal: AbortSignal;
  /** A request header (lower-case name). */
  header(name: string): string | undefined;
  /** A path parameter (`:session_id`). */
  param(name: string): string;
  /** The query string's parameters (the first value of each). */
  query(): Record<string, string>;
  /** The body as text, at most REASONING_API_MAX_BODY_BYTES (413 beyond, chunked bodies too). */
  text(): Promise<string>;
}

/** The signal of a request on a route without model work (nothing aborts it). */
export const neverAborted: AbortSignal = new AbortController().signal;

/** A JSON answer with a status or headers of its own (a handler returning anything else answers it with the operation's status). */
export class JsonAnswer {
  constructor(
    readonly body: unknown,
    readonly status: number,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {}
}

/**
 * An operation answered with JSON, as data: its OpenAPI description (`Operation`), how the request becomes
 * its input, and its handler. From one record the Hono route and the direct `node:http` answer are derived
 * (`honoHandlerOf`, `createDispatcher`), and `/openapi.json` describes it.
 */
export interface JsonOperation<Input = unknown> extends Operation {
  /**
   * The handler's input from the request (e.g. `jsonBody(parse)`); absent: no input. Give it a reader held
   * in a constant: TypeScript infers `Input` from that, not from a generic call written inline here.
   */
  input?: (request: OperationRequest) => Promise<Input> | Input;
  /** The answer: the JSON body (with `response.status`), or a `JsonAnswer`. Throw to answer an error. */
  answer: (input: NoInfer<Input>, request: OperationRequest) => unknown;
  /** With `Accept: text/event-stream` (operations that `streams`): the streamed answer, through Hono only. */
  stream?: (input: NoInfer<Input>, request: OperationRequest, c: Context<AppEnv>) => Response | Promise<Response>;
}

/** Whether the client asks for Server-Sent Events (an operation that `streams` then answers with a stream). */
export function wantsEventStream(accept: string | undefined): boolean {
  return accept?.includes("text/event-stream") === true;
}

/** The status, headers and body of what an operation's `answer` returned. */
export function answerOf(operation: JsonOperation, result: unknown): JsonAnswer {
  return result instanceof JsonAnswer ? result : new JsonAnswer(result, operation.response.status ?? 200);
}
