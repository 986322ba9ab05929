import { defineTool } from "../tool-definition.ts";
import { endSessionRequestSchema, endSessionResponseSchema } from "./end-session.ts";
import { executeTaskRequestSchema, executeTaskResponseSchema } from "./execute-task.ts";

/** `reasoning/executeTask` as a tool, for hosts that can only call tools. */
export const executeTaskTool = defineTool({
  name: "reasoning_execute_task",
  description:
    "Reason over a per-session knowledge graph. reasoningType: inductive (patterns become abstract nodes), deductive (explicit rules applied by forward chaining, each deduction with its derivation), abductive (2-3 hypotheses scored on coverage, simplicity, consistency), planAndExecuteCoT (a plan of those operations and host tool calls). The first call seeds the graph from goalQuery and contextData (facts and rules may be given as data in contextData.facts / contextData.rules); send the last updatedSessionState as sessionState to continue (reasoningSessionId alone continues only a session bound to the same caller). Status pending_tool_call: run toolCallRequest and send toolResults [{toolCallId, result}]; pending_user_input: ask the user and send userInput; failed: error says why (retryable for transient model failures). The same as the reasoning/executeTask method.",
  inputSchema: executeTaskRequestSchema,
  outputSchema: executeTaskResponseSchema,
  annotations: { title: "Execute Reasoning Task", readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
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
  annotations: { title: "End Reasoning Session", readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
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
