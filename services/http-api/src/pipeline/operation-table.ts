import { DeliberateError, nulCharacterMessage } from "@deliberate/contracts";
import type { Context, Hono } from "hono";
import type { AppEnv } from "../app-env.ts";
import type { Operation } from "./operation.ts";
import { readBodyText } from "../routes/read-json.ts";
import {
  answerOf,
  type JsonOperation,
  neverAborted,
  type OperationRequest,
  wantsEventStream,
} from "./json-operation.ts";

export type OperationHandler = (c: Context<AppEnv>) => Response | Promise<Response>;

/**
 * The HTTP API's operations, in one table: every route file adds its operations here. `serve` adds a JSON
 * operation (its Hono route is derived from it, and the dispatcher may answer it on `node:http` directly);
 * `add` adds one only Hono answers (HTML, assets, hand-written handlers). The OpenAPI document is built
 * from `operations`.
 */
export interface OperationTable {
  readonly operations: readonly Operation[];
  add(app: Hono<AppEnv>, operation: Operation, handler: OperationHandler): void;
  serve<Input>(app: Hono<AppEnv>, operation: JsonOperation<Input>): void;
  /** The JSON operation at exactly `method` and `path` (no path parameters), if there is one. */
  find(method: string, path: string): JsonOperation | undefined;
}

export function createOperationTable(): OperationTable {
  const operations: Operation[] = [];
  // By method (upper-case, as node gives it), then path: only paths without parameters.
  const direct = new Map<string, Map<string, JsonOperation>>();
  function register(app: Hono<AppEnv>, operation: Operation, handler: OperationHandler): void {
    operations.push(operation);
    const checked = operation.path.includes("/:") ? withPathIdsChecked(handler) : handler;
    if (operation.method === "get") app.get(operation.path, checked);
    else app.post(operation.path, checked);
  }
  return {
    operations,
    add: register,
    serve(app, operation) {
      register(app, operation, honoHandlerOf(operation as JsonOperation));
      if (operation.path.includes("/:")) return;
      const method = operation.method.toUpperCase();
      const paths = direct.get(method) ?? new Map<string, JsonOperation>();
      paths.set(operation.path, operation as JsonOperation);
      direct.set(method, paths);
    },
    find: (method, path) => direct.get(method)?.get(path),
  };
}

/** The request as a Hono context shows it (a class: see lazy-signal.ts for why not a literal with a getter). */
class HonoRequest implements OperationRequest {
  readonly requestId: string;
  constructor(private readonly c: Context<AppEnv>) {
    this.requestId = c.get("requestId");
  }
  get signal(): AbortSignal {
    return this.c.get("signal") ?? neverAborted;
  }
  header(name: string): string | undefined {
    return this.c.req.header(name);
  }
  param(name: string): string {
    return this.c.req.param(name) ?? "";
  }
  query(): Record<string, string> {
    return this.c.req.query();
  }
  text(): Promise<string> {
    return readBodyText(this.c);
  }
}

/** The Hono route of a JSON operation. */
function honoHandlerOf(operation: JsonOperation): OperationHandler {
  return async (c) => {
    const request = new HonoRequest(c);
    const input = operation.input ? await operation.input(request) : undefined;
    if (operation.stream && wantsEventStream(c.req.header("accept"))) return operation.stream(input, request, c);
    const { status, headers, body } = answerOf(operation, await operation.answer(input, request));
    for (const [name, value] of Object.entries(headers)) c.header(name, value);
    return c.json(body as object, status as 200);
  };
}

/**
 * Path ids (`:session_id`, `:job_id`, ...) holding U+0000 are INVALID_INPUT
 * naming the parameter, as the same id is in a tool's input (MCP or REST),
 * rather than looked up and reported unknown.
 */
function withPathIdsChecked(handler: OperationHandler): OperationHandler {
  return (c) => {
    const issues = Object.entries(c.req.param() as Record<string, string>)
      .filter(([, value]) => value.includes("\0"))
      .map(([field]) => ({ field, message: nulCharacterMessage }));
    if (issues.length > 0) {
      throw new DeliberateError({
        code: "INVALID_INPUT",
        message: `Invalid input: ${issues.map((issue) => `${issue.field}: ${issue.message}`).join("; ")}`,
        issues,
        hint: "Fix the named fields and call again; nothing was written.",
      });
    }
    return handler(c);
  };
}
