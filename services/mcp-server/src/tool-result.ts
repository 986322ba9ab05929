import { DeliberateError, type ErrorBody, toDeliberateError } from "@deliberate/base";
import type { CallToolResult } from "@modelcontextprotocol/server";

/** A successful call: the output as `structuredContent` and the same JSON as text. */
export function toToolResult(output: Record<string, unknown>): CallToolResult {
  return { content: [{ type: "text", text: JSON.stringify(output) }], structuredContent: output };
}

/**
 * The one place failures become MCP results. A DeliberateError becomes a tool
 * result with `isError: true` whose text is the JSON error body (code,
 * message, issues naming fields, hint, retryable), so the calling model can
 * read what went wrong and fix its call. Anything else is an INTERNAL error
 * whose details stay in the server log.
 */
export function toToolErrorResult(error: unknown): { result: CallToolResult; body: ErrorBody; unexpected: boolean } {
  const unexpected = !DeliberateError.isInstance(error);
  const deliberate = toDeliberateError(error);
  const body = deliberate.toJSON();
  return { result: { content: [{ type: "text", text: JSON.stringify(body) }], isError: true }, body, unexpected };
}
