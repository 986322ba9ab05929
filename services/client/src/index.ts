export { createDeliberateClient, isRepeatable } from "./client.ts";
export type {
  CompleteFunction,
  CompletionContext,
  DeliberateClient,
  DeliberateClientOptions,
  NeedsCompletion,
  PendingPrompt,
  ToolCallOptions,
  ToolInput,
  ToolMethods,
  ToolName,
  ToolOutput,
} from "./client.ts";
export { clientOnlyErrorCodes, DeliberateClientError, isClientError } from "./errors.ts";
export type { ClientErrorCode, ClientOnlyErrorCode, DeliberateClientErrorOptions } from "./errors.ts";
export type { CallOptions, ProgressUpdate, ServerDescription, Transport, TransportCallOptions } from "./transport.ts";
export { createHttpTransport, httpToolTimeoutMs } from "./http/http-transport.ts";
export type { HttpTransportOptions } from "./http/http-transport.ts";
export { httpDefaults, resolveHttpConnection } from "./http/config.ts";
export type { HttpConnection, HttpConnectionOptions } from "./http/config.ts";
export { backoffDelay, decideRetry, parseRetryAfter } from "./http/retry-policy.ts";
export type { RetryDecision, RetryDecisionInput } from "./http/retry-policy.ts";
export { createAgentIntentClient } from "./agent-intent/agent-intent-client.ts";
export type {
  AgentIntentAsyncOptions,
  AgentIntentCallOptions,
  AgentIntentClient,
  AgentIntentClientOptions,
  AgentIntentRequestInput,
  AsyncIntent,
  WaitOptions,
  WorkflowIntentRequestInput,
} from "./agent-intent/agent-intent-client.ts";
export { validateIntent } from "./agent-intent/tool-validation.ts";
export type { HostTool } from "./agent-intent/tool-validation.ts";
export { toolCatalogue } from "@deliberate/contracts";
export type {
  AgentIntentResponse,
  CancelResponse,
  ErrorCode,
  FieldIssue,
  Health,
  HttpErrorCode,
  JobAccepted,
  JobView,
  ToolCatalogue,
  WorkflowIntentResponse,
  WorkflowSummary,
} from "@deliberate/contracts";
export { clientVersion } from "./version.ts";
