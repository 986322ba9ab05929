import { DeliberateError, nulCharacterMessage } from "@deliberate/contracts";
import type { Context, Hono } from "hono";
import type { z } from "zod";
import type { AppEnv } from "../app-env.ts";

/** A named schema: becomes `#/components/schemas/<name>`. */
export interface NamedSchema {
  name: string;
  schema: z.ZodType;
}

/** One endpoint as data: registered on the app and described in /openapi.json from the same record. */
export interface Operation {
  method: "get" | "post";
  /** Hono path; `:param` segments become OpenAPI path parameters. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tags: readonly string[];
  /** Reachable without the bearer token (health, docs). */
  public?: boolean;
  /** Answered whatever the Host and Origin (health probes): no 403. */
  anyHost?: boolean;
  request?: NamedSchema & { example?: unknown };
  /** The success response (200 unless `status` says otherwise). */
  response: { status?: number; description: string; body?: NamedSchema; contentType?: string };
  /** Error statuses this endpoint can answer with (the ErrorResponse body). */
  errors?: readonly number[];
  /** Also streams progress as Server-Sent Events when asked with `Accept: text/event-stream`. */
  streams?: boolean;
  /** Described path parameters. */
  parameters?: Readonly<Record<string, string>>;
  /** Query parameters: each field of the object is one (its description and JSON Schema are published). */
  query?: z.ZodObject;
}

export type OperationHandler = (c: Context<AppEnv>) => Response | Promise<Response>;

/** Collects operations while registering them, for the OpenAPI document. */
export interface OperationCatalog {
  readonly operations: readonly Operation[];
  add(app: Hono<AppEnv>, operation: Operation, handler: OperationHandler): void;
}

export function createOperationCatalog(): OperationCatalog {
  const operations: Operation[] = [];
  return {
    operations,
    add(app, operation, handler) {
      operations.push(operation);
      const checked = operation.path.includes("/:") ? withPathIdsChecked(handler) : handler;
      if (operation.method === "get") app.get(operation.path, checked);
      else app.post(operation.path, checked);
    },
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
