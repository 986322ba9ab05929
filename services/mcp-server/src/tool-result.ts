import { type PublicErrorBody, toPublicError } from "@deliberate/runtime";
import type { CallToolResult } from "@modelcontextprotocol/server";

/** The error body of a failed call: `error_id` is set when the details stayed in the server log. */
export type ToolErrorBody = PublicErrorBody;

/**
 * A successful call: the output as `structuredContent` and the same JSON as
 * text. An output's `agent_instructions` (guided workflows) is also put where
 * the guided-workflow ticket's hosts read it: `_meta.agentInstructions`.
 */
export function toToolResult(output: Record<string, unknown>): CallToolResult {
  const result = toolResultOf(output, JSON.stringify(output));
  if (result._meta === undefined) jsonTextResults.add(result);
  return result;
}

/**
 * `toToolResult` for an output whose JSON text the caller already made (and keeps: the result is not
 * registered for `structuredJsonOf`). The same fields in the same order.
 */
export function toolResultOf(output: Record<string, unknown>, json: string): CallToolResult {
  const instructions = output["agent_instructions"];
  const result: CallToolResult = { content: [{ type: "text", text: json }], structuredContent: output };
  if (typeof instructions === "string") result._meta = { agentInstructions: instructions };
  return result;
}

/** Results made by `toToolResult` without `_meta`: `{ content: [text], structuredContent }`, the text being the structured content as JSON. */
const jsonTextResults = new WeakSet<CallToolResult>();

/** The JSON text of such a result's structured content (so a writer need not serialise it again), else undefined. */
export function structuredJsonOf(result: CallToolResult): string | undefined {
  const [first] = result.content;
  return jsonTextResults.has(result) && first?.type === "text" ? first.text : undefined;
}

// The public body of a failure is the same over MCP and REST (toPublicError of @deliberate/runtime).
export { newErrorId, privateErrorBody } from "@deliberate/runtime";

/**
 * The one place failures become MCP results. A DeliberateError becomes a tool
 * result with `isError: true` whose text is the JSON error body (code,
 * message, issues naming fields, hint, retryable), so the calling model can
 * read what went wrong and fix its call. INTERNAL and STORAGE failures, and
 * anything that is not a DeliberateError, answer a stable message with an
 * `error_id`; their details (`unexpected`) belong in the server log under that id.
 */
export function toToolErrorResult(error: unknown): {
  result: CallToolResult;
  body: ToolErrorBody;
  unexpected: boolean;
  errorId?: string;
} {
  const { body, errorId } = toPublicError(error);
  const result: CallToolResult = { content: [{ type: "text", text: JSON.stringify(body) }], isError: true };
  return errorId === undefined ? { result, body, unexpected: false } : { result, body, unexpected: true, errorId };
}
