import { DeliberateError, type ToolResult } from "@deliberate/contracts";
import type { StoredSession } from "../store/repositories/knowledge-graph.repository.ts";
import { type PendingWork, pendingWorkSchema } from "./pending.ts";

/** What a session waits for (a tool result, the user's answer), or null; STORAGE when the stored form is unreadable. */
export function readPending(session: StoredSession): PendingWork | null {
  const parsed = session.pending === null ? null : pendingWorkSchema.safeParse(session.pending);
  if (parsed && !parsed.success) {
    throw new DeliberateError({
      code: "STORAGE",
      message: `The pending state of session ${session.sessionId} is unreadable: ${parsed.error.message}`,
    });
  }
  return parsed?.data ?? null;
}

/**
 * Checks the host's answers against what the session waits for: the result of the pending tool call, the
 * user's answer to the pending question, or nothing at all when nothing is pending.
 */
export function checkAnswersMatchPending(
  request: { toolResults?: ToolResult[] | null | undefined; userInput?: string | null | undefined },
  sessionId: string,
  pending: PendingWork | null,
): void {
  if (pending?.kind === "tool") {
    const results = request.toolResults ?? [];
    const unknown = results.findIndex((result) => result.toolCallId !== pending.toolCallId);
    if (unknown >= 0) {
      throw new DeliberateError({
        code: "INVALID_INPUT",
        message: `toolResults[${unknown}] answers tool call ${results[unknown]?.toolCallId}, but session ${sessionId} waits for tool call ${pending.toolCallId} (${pending.toolName})`,
        issues: [{ field: `toolResults.${unknown}.toolCallId`, message: `expected ${pending.toolCallId}` }],
        hint: "Send the result of the toolCallRequest of the session's last response.",
      });
    }
    if (results.length === 0) {
      throw new DeliberateError({
        code: "INVALID_INPUT",
        message: `Session ${sessionId} waits for the result of tool call ${pending.toolCallId} (${pending.toolName})`,
        issues: [{ field: "toolResults", message: `send the result of tool call ${pending.toolCallId}` }],
        hint: `Run ${pending.toolName} with the toolArguments of the last response and send toolResults: [{ toolCallId: "${pending.toolCallId}", result }] (isError: true if it failed).`,
      });
    }
    if (request.userInput != null) {
      throw new DeliberateError({
        code: "INVALID_INPUT",
        message: `Session ${sessionId} waits for a tool result, not user input`,
        issues: [{ field: "userInput", message: "not expected now" }],
        hint: "Send toolResults instead.",
      });
    }
  } else if (pending?.kind === "user") {
    if (request.userInput == null) {
      throw new DeliberateError({
        code: "INVALID_INPUT",
        message: `Session ${sessionId} waits for the user's answer to: ${pending.question}`,
        issues: [{ field: "userInput", message: "send the user's answer" }],
        hint: "Ask the user the userInputRequest of the last response and send the answer as userInput.",
      });
    }
    if (request.toolResults != null) {
      throw new DeliberateError({
        code: "INVALID_INPUT",
        message: `Session ${sessionId} waits for user input, not a tool result`,
        issues: [{ field: "toolResults", message: "not expected now" }],
        hint: "Send userInput instead.",
      });
    }
  } else {
    if (request.toolResults != null) {
      throw new DeliberateError({
        code: "INVALID_INPUT",
        message: `Session ${sessionId} is not waiting for a tool result`,
        issues: [{ field: "toolResults", message: "no tool call is pending" }],
        hint: "Omit toolResults.",
      });
    }
    if (request.userInput != null) {
      throw new DeliberateError({
        code: "INVALID_INPUT",
        message: `Session ${sessionId} is not waiting for user input`,
        issues: [{ field: "userInput", message: "no question is pending" }],
        hint: "Omit userInput.",
      });
    }
  }
}
