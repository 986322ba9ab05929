import type { PendingPrompt } from "@deliberate/contracts";
import type { CallOptions } from "./transport.ts";

/** What the host's `complete` function is told besides the prompt. */
export interface CompletionContext {
  /** The tool whose call is suspended. */
  tool: string;
  /** 1 for the first needs_completion step of the call, then 2, ... */
  round: number;
  signal: AbortSignal | undefined;
  /** Set when the server rejected the previous answer to this prompt: why, to fix it. */
  feedback?: string;
}

/**
 * The host's own model: answers one prompt of a `needs_completion` step with
 * an object matching `prompt.schema` (or its JSON text), following
 * `prompt.system` and `prompt.user`.
 */
export type CompleteFunction = (prompt: PendingPrompt, context: CompletionContext) => Promise<unknown> | unknown;

/** Options of one typed tool call. */
export interface ToolCallOptions extends CallOptions {
  /** Overrides the client's `complete` for this call. */
  complete?: CompleteFunction;
}
