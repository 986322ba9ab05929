// The workflow-intent shapes are part of the wire contract (the client is typed from them): they live in contracts.
export {
  workflowIntentRequestSchema,
  workflowIntentResponseSchema,
  workflowSummarySchema,
} from "@deliberate/contracts";
export type { WorkflowIntentRequest, WorkflowIntentResponse } from "@deliberate/contracts";
