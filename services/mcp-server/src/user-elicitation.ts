import { DeliberateError } from "@deliberate/contracts";
import type { InvokeOptions } from "@deliberate/engine";
import type { McpServer, ServerContext } from "@modelcontextprotocol/server";
import type { Logger } from "./logger.ts";

type Invoke = (name: string, rawArguments: unknown, options: InvokeOptions) => Promise<Record<string, unknown>>;

/** Most questions answered by elicitation within one call (then the pending result goes back as today). */
const maxQuestions = 8;

/** A result that waits for the user: the knowledge graph's `pending_user_input` with its question and session. */
function pendingQuestion(output: Record<string, unknown>): { question: string; sessionId: string } | undefined {
  const question = output["userInputRequest"];
  const sessionId = output["reasoningSessionId"];
  return output["status"] === "pending_user_input" && typeof question === "string" && typeof sessionId === "string"
    ? { question, sessionId }
    : undefined;
}

/**
 * Wraps an engine call so that a result waiting for the user
 * (`pending_user_input`) is asked of the user directly through the client's
 * form elicitation, when the client declares it on a connection that can
 * push requests, and the call continues with the answer (same arguments,
 * `reasoningSessionId` and `userInput`). Without the capability, or when the
 * user declines or cancels, or elicitation fails, the pending result is
 * returned as before: the agent asks and calls again.
 */
export function withUserElicitation(server: McpServer, context: ServerContext, logger: Logger, invoke: Invoke): Invoke {
  const elicitation = server.server.getClientCapabilities()?.elicitation as { form?: object; url?: object } | undefined;
  // Form mode: declared as `form`, or an empty object (the 2025-06-18 form, before modes).
  const formOffered = elicitation !== undefined && (elicitation.form !== undefined || elicitation.url === undefined);
  if (!formOffered || context.mcpReq.envelope !== undefined) return invoke;
  return async (name, rawArguments, options) => {
    let output = await invoke(name, rawArguments, options);
    const base =
      rawArguments !== null && typeof rawArguments === "object" ? (rawArguments as Record<string, unknown>) : {};
    for (let asked = 0; asked < maxQuestions; asked += 1) {
      const pending = pendingQuestion(output);
      if (!pending) return output;
      let answer: string | undefined;
      try {
        const reply = await context.mcpReq.elicitInput(
          {
            mode: "form",
            message: pending.question,
            requestedSchema: {
              type: "object",
              properties: { answer: { type: "string", title: "Your answer", description: pending.question } },
              required: ["answer"],
            },
          },
          options.signal ? { signal: options.signal } : {},
        );
        const content = reply.action === "accept" ? reply.content?.["answer"] : undefined;
        answer = typeof content === "string" && content.trim() !== "" ? content : undefined;
      } catch (error) {
        logger.info("elicitation failed; the question goes back to the agent", { tool: name, error });
        return output;
      }
      if (answer === undefined) return output;
      const { toolResults: _results, sessionState: _state, userInput: _previous, ...rest } = base;
      try {
        output = await invoke(name, { ...rest, reasoningSessionId: pending.sessionId, userInput: answer }, options);
      } catch (error) {
        // An answer the task refuses (e.g. too long) is the user's, not the caller's: the question goes back to the agent.
        if (!(DeliberateError.isInstance(error) && error.code === "INVALID_INPUT")) throw error;
        logger.info("the user's answer was refused; the question goes back to the agent", {
          tool: name,
          detail: error.message,
        });
        return output;
      }
    }
    return output;
  };
}
