// The job shapes are part of the wire contract (the client is typed from them): they live in contracts.
export {
  cancelRequestSchema,
  cancelResponseSchema,
  jobAcceptedSchema,
  jobStatusSchema,
  jobViewSchema,
} from "@deliberate/contracts";
export type { CancelRequest, CancelResponse, JobView } from "@deliberate/contracts";
