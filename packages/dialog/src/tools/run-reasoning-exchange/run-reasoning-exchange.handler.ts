import type { runReasoningExchangeTool, ToolInput, ToolOutput } from "@deliberate/contracts";
import type { DialogToolContext } from "../../dialog-context.ts";
import { runExchange } from "./run-exchange.ts";

/** Runs the session's next iteration (see runExchange). Unknown sessions are NOT_FOUND naming session_id. */
export async function runReasoningExchange(
  input: ToolInput<typeof runReasoningExchangeTool>,
  context: DialogToolContext,
): Promise<ToolOutput<typeof runReasoningExchangeTool>> {
  const session = await context.store.dialogSessions.getSession(input.session_id);
  return runExchange(context, session, input.iteration);
}
