import { defineTool } from "../tool-definition.ts";
import { endSessionRequestSchema, endSessionResponseSchema } from "./end-session.ts";
import { executeTaskRequestSchema, executeTaskResponseSchema } from "./execute-task.ts";

/** `reasoning/executeTask` as a tool, for hosts that can only call tools. */
export const executeTaskTool = defineTool({
  name: "reasoning_execute_task",
  description:
    "Reason over a per-session knowledge graph seeded from goalQuery and contextData (facts and rules may also be given as data: contextData.facts, contextData.rules). reasoningType: inductive (patterns), deductive (rules by forward chaining, with derivations), abductive (scored hypotheses), planAndExecuteCoT (a plan of those plus host tool calls). Continue with the last updatedSessionState as sessionState (reasoningSessionId alone only for the caller the session is bound to). pending_tool_call: run toolCallRequest, send toolResults; pending_user_input: send the user's answer as userInput; failed: error says why (retryable for transient model failures).",
  inputSchema: executeTaskRequestSchema,
  outputSchema: executeTaskResponseSchema,
  annotations: {
    title: "Execute Reasoning Task",
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: false,
  },
  operations: [],
  usesModel: true,
});

/** `reasoning/endSession` as a tool. */
export const endSessionTool = defineTool({
  name: "reasoning_end_session",
  description:
    "End a knowledge-graph reasoning session started by reasoning_execute_task (send its updatedSessionState as sessionState; reasoningSessionId alone ends only a session bound to the same caller): it stops counting toward the active-session cap and can no longer be continued; its graph stays readable in exports. Ending an ended session reports it again. The same as the reasoning/endSession method.",
  inputSchema: endSessionRequestSchema,
  outputSchema: endSessionResponseSchema,
  annotations: {
    title: "End Reasoning Session",
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  operations: [],
  usesModel: false,
});

/** The knowledge-graph module's tools. */
export const knowledgeGraphToolDefinitions = [executeTaskTool, endSessionTool] as const;

/** The knowledge-graph module's tools by name (its part of the tool catalogue). */
export const knowledgeGraphTools = {
  reasoning_execute_task: executeTaskTool,
  reasoning_end_session: endSessionTool,
} as const;
