import { createCoordinatorContext } from "./coordinator-context.ts";
import type { ReasoningCoordinator, ReasoningCoordinatorOptions } from "./coordinator-types.ts";
import { decide } from "./gates.ts";
import { abandonSession, handle, resumeSession } from "./interaction.ts";
import { endConversation } from "./kept-sessions.ts";

export type {
  CoordinatorOutcome,
  CoordinatorRequest,
  CritiqueFunction,
  InvocationDecision,
  ReasoningCoordinator,
  ReasoningCoordinatorOptions,
  ReasoningSessionRecord,
  StandardProcessor,
  ToolExecutor,
} from "./coordinator-types.ts";
export type { Route, StandardAnswer } from "./routing.ts";

/**
 * Creates the coordinator: decides when to use the reasoning server (explicit
 * reasoning requests direct, every other query but small talk standard first
 * with escalation on a weak answer), checks the gates (enabled, health,
 * capability) only when reasoning is about to be used, selects the reasoning
 * type from the advertised capability, handles every status (a refinement loop
 * on completed that keeps the original question and synthesises the final
 * answer to it, host tools on pending_tool_call, a resumable question on
 * pending_user_input, the fallback matrix on failed / max_iterations_reached /
 * timeouts / malformed answers), bounds every phase (health check, capability
 * read, each request, a liveness watch on the server, the whole turn), always
 * attempts endSession (or, with `keepSessionAcrossTurns`, keeps a conversation's
 * session open for its next turn), and presents the answer by the server's confidence.
 */
export function createReasoningCoordinator(options: ReasoningCoordinatorOptions): ReasoningCoordinator {
  const context = createCoordinatorContext(options);
  return {
    policy: context.policy,
    bounds: context.bounds,
    decide: (request) => decide(context, request),
    capabilities: (capabilityOptions) =>
      context.capabilities.get(context.client.transport, context.client.reasoning, capabilityOptions),
    handle: (request) => handle(context, request),
    resume: (input) => resumeSession(context, input),
    abandon: (reasoningSessionId) => abandonSession(context, reasoningSessionId),
    endConversation: (conversationId) => endConversation(context, conversationId),
  };
}
