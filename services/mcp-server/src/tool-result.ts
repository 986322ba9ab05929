import { randomUUID } from "node:crypto";
import { DeliberateError, databaseRetryAfterSeconds, type ErrorBody, type ErrorCode, toDeliberateError } from "@deliberate/base";
import type { CallToolResult } from "@modelcontextprotocol/server";

/** The error body of a failed call: `error_id` is set when the details stayed in the server log. */
export type ToolErrorBody = ErrorBody & { error_id?: string; retry_after_seconds?: number };

/**
 * A successful call: the output as `structuredContent` and the same JSON as
 * text. An output's `agent_instructions` (guided workflows) is also put where
 * the guided-workflow ticket's hosts read it: `_meta.agentInstructions`.
 */
export function toToolResult(output: Record<string, unknown>): CallToolResult {
  const instructions = output["agent_instructions"];
  const result: CallToolResult = {
    content: [{ type: "text", text: JSON.stringify(output) }],
    structuredContent: output,
    ...(typeof instructions === "string" ? { _meta: { agentInstructions: instructions } } : {}),
  };
  if (result._meta === undefined) jsonTextResults.add(result);
  return result;
}

/** Results made by `toToolResult` without `_meta`: `{ content: [text], structuredContent }`, the text being the structured content as JSON. */
const jsonTextResults = new WeakSet<CallToolResult>();

/** The JSON text of such a result's structured content (so a writer need not serialise it again), else undefined. */
export function structuredJsonOf(result: CallToolResult): string | undefined {
  const [first] = result.content;
  return jsonTextResults.has(result) && first?.type === "text" ? first.text : undefined;
}

/** Codes whose messages describe the server's insides (stack overflows, SQL, schema dumps): never shown to callers. */
const privateCodes: ReadonlySet<ErrorCode> = new Set(["INTERNAL", "STORAGE"]);

/** A new id that ties an error answer to its log line. */
export function newErrorId(): string {
  return `err_${randomUUID().replaceAll("-", "").slice(0, 16)}`;
}

/**
 * The stable public body of a failure whose details must stay in the log:
 * the code, a fixed message carrying the error id, and whether retrying helps.
 */
export function privateErrorBody(code: ErrorCode, errorId: string, retryable: boolean): ToolErrorBody {
  const storage = code === "STORAGE";
  if (storage && retryable) {
    // The database is away (restart, fail-over, busy): the call may pass later (the HTTP API answers 503 + Retry-After).
    return {
      code,
      message: `The database is unavailable for the moment (error ${errorId}); the call did not complete.`,
      hint: `Retry after ${databaseRetryAfterSeconds} seconds; the server recovers by itself once its database answers again.`,
      retryable: true,
      retry_after_seconds: databaseRetryAfterSeconds,
      error_id: errorId,
    };
  }
  return {
    code,
    message: storage
      ? `The server could not read or write its database (error ${errorId}); the details are in its log.`
      : `The server failed unexpectedly while handling the call (error ${errorId}); the details are in its log.`,
    hint: retryable ? "Try again shortly; if it keeps failing, report the error id with the server log." : "Report the error id with the server log; retrying the same call will likely fail again.",
    retryable,
    error_id: errorId,
  };
}

/**
 * The one place failures become MCP results. A DeliberateError becomes a tool
 * result with `isError: true` whose text is the JSON error body (code,
 * message, issues naming fields, hint, retryable), so the calling model can
 * read what went wrong and fix its call. INTERNAL and STORAGE failures, and
 * anything that is not a DeliberateError, answer a stable message with an
 * `error_id`; their details (`unexpected`) belong in the server log under that id.
 */
export function toToolErrorResult(error: unknown): { result: CallToolResult; body: ToolErrorBody; unexpected: boolean; errorId?: string } {
  const deliberate = toDeliberateError(error);
  if (DeliberateError.isInstance(error) && !privateCodes.has(deliberate.code)) {
    const body = deliberate.toJSON();
    return { result: { content: [{ type: "text", text: JSON.stringify(body) }], isError: true }, body, unexpected: false };
  }
  const errorId = newErrorId();
  const body = privateErrorBody(deliberate.code, errorId, deliberate.retryable);
  return { result: { content: [{ type: "text", text: JSON.stringify(body) }], isError: true }, body, unexpected: true, errorId };
}
