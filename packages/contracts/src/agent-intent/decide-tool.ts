import type { z } from "zod";
import { defineTool } from "../tool-definition.ts";
import { agentIntentRequestSchema, agentIntentResponseSchema } from "./agent-intent.ts";
import { lazySchema } from "../lazy-schema.ts";

/** What the decision takes: the request without its per-call key and delivery fields (never stored with a suspended call). */
export const agentIntentDecisionInputSchema = lazySchema(() =>
  agentIntentRequestSchema.omit({ llm: true, callback_url: true }).meta({ title: "AgentIntentDecisionInput" }),
);

/** The decision: the next tool and its arguments, or finish, and how it was made. */
export const agentIntentDecisionSchema = lazySchema(() =>
  agentIntentResponseSchema
    .pick({
      tool_name: true,
      tool_args: true,
      reasoning: true,
      finish: true,
      final_text: true,
      decided_by: true,
      model: true,
      trace: true,
    })
    .meta({ title: "AgentIntentDecision" }),
);

/**
 * The agent-intent decision as a tool, so it runs through the engine like any
 * other: validated, recorded in the invocation rows and metrics, and
 * host-executable (with no server model and a host router it returns the
 * decision prompt as needs_completion). POST /agent_intent wraps it.
 */
export const agentIntentDecideTool = defineTool({
  name: "agent_intent_decide",
  description:
    "Decide an agent's next action: one of the offered tools (with arguments valid against its input_schema) or finish. " +
    "max_steps reached ends the run; forced_tool skips the decision; with no model configured a documented heuristic decides. " +
    "The same decision POST /agent_intent returns, without the per-request llm choice and the async callback.",
  inputSchema: agentIntentDecisionInputSchema,
  outputSchema: agentIntentDecisionSchema,
  annotations: {
    title: "Agent next-action decision",
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: false,
  },
  operations: [],
  usesModel: true,
});

export type AgentIntentDecision = z.infer<typeof agentIntentDecisionSchema>;
export type AgentIntentDecisionInput = z.infer<typeof agentIntentDecisionInputSchema>;
