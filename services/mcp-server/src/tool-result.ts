import { DeliberateError, type ErrorBody, toDeliberateError } from "@deliberate/base";
import type { CallToolResult } from "@modelcontextprotocol/server";

/** Results made by `toToolResult`: their text is exactly their structured content as JSON. */
const jsonTextResults = new WeakSet<CallToolResult>();

/** A successful call: the output as `structuredContent` and the same JSON as text. */
export function toToolResult(output: Record<string, unknown>): CallToolResult {
  const result: CallToolResult = { content: [{ type: "text", text: JSON.stringify(output) }], structuredContent: output };
  jsonTextResults.add(result);
  return result;
}

/** The JSON text of a `toToolResult` result's structured content (so a writer need not serialise it again), else undefined. */
export function structuredJsonOf(result: CallToolResult): string | undefined {
  const [first] = result.content;
  return jsonTextResults.has(result) && first?.type === "text" ? first.text : undefined;
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
