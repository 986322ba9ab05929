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
  AcceptedIntent,
  AgentIntentAsyncOptions,
  AgentIntentCallOptions,
  AgentIntentClient,
  AgentIntentClientOptions,
  AgentIntentRequestInput,
  AsyncIntent,
  IntentHandle,
  QueuedIntent,
  WaitOptions,
  WorkflowIntentRequestInput,
} from "./agent-intent/agent-intent-client.ts";
export { createMemoryOutbox, isApiUnavailable } from "./agent-intent/outbox.ts";
export type { OutboxEntry, OutboxStore } from "./agent-intent/outbox.ts";
export { validateIntent } from "./agent-intent/tool-validation.ts";
export type { HostTool } from "./agent-intent/tool-validation.ts";
export { createHostContext, defaultOfferedTools, expandNeedsCompletion, toolCatalogue } from "@deliberate/contracts";
export type {
  AgentIntentResponse,
  CompactPendingPrompt,
  HostContext,
  CancelResponse,
  ErrorCode,
  FieldIssue,
  Health,
  HttpErrorCode,
  JobAccepted,
  JobView,
  OfferedToolInput,
  ToolCatalogue,
  WorkflowIntentResponse,
  WorkflowSummary,
} from "@deliberate/contracts";
export { clientVersion } from "./version.ts";
export { createReasoningOperations, reasoningVia } from "./reasoning-operations.ts";
export type {
  AdvertisedReasoning,
  EndSessionRequestInput,
  ReasoningCallOptions,
  ReasoningOperations,
  ReasoningVia,
} from "./reasoning-operations.ts";
export { createReasoningCoordinator } from "./coordinator/coordinator.ts";
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
} from "./coordinator/coordinator.ts";
export { defaultPolicy, resolvePolicy } from "./coordinator/policy.ts";
export { explicitRequestPatterns } from "./coordinator/explicit-requests.ts";
export { defaultTimings, resolveBounds } from "./coordinator/bounds.ts";
export type { CoordinatorBounds, CoordinatorPhase, CoordinatorTimingOptions } from "./coordinator/bounds.ts";
export type { FollowUpFinding } from "./coordinator/refinement.ts";
export type { CoordinatorPolicy, CoordinatorPolicyOverrides, WeightedPattern } from "./coordinator/policy.ts";
export { analyzeQuery, entityTokens } from "./coordinator/heuristics.ts";
export type { QueryAnalysis, QueryContext, ScoreReason } from "./coordinator/heuristics.ts";
export { keywordMatches, selectReasoningType } from "./coordinator/type-selection.ts";
export type { SelectionRule, TypeSelection, TypeSelectionInput } from "./coordinator/type-selection.ts";
export { decideRoute, shouldEscalate } from "./coordinator/routing.ts";
export type { EscalationReason, GateResult, Route, RouteDecision, StandardAnswer } from "./coordinator/routing.ts";
export {
  classifyFailure,
  failureKinds,
  failureOf,
  fallbackAction,
  fallbackMatrix,
  unavailableMessage,
} from "./coordinator/fallback.ts";
export type { FailureKind, FallbackRule, ReasoningFailure } from "./coordinator/fallback.ts";
export {
  bandLabels,
  confidenceBand,
  defaultHedges,
  lowConfidenceReason,
  serverConfidence,
  summarizeWork,
  userInputPrompt,
} from "./coordinator/presentation.ts";
export type { ConfidenceBand, HedgeTemplates, WorkSummary } from "./coordinator/presentation.ts";
export type { KeepSessionOptions, KeptSession } from "./coordinator/conversation-sessions.ts";
export { createMemoryStateStore } from "./coordinator/state-store.ts";
export type { MemoryStateStoreOptions, ReasoningStateStore } from "./coordinator/state-store.ts";
export { capabilityKey, createCapabilityCache } from "./coordinator/capability-cache.ts";
export type { CachedCapability, CapabilityCache, CapabilityCacheOptions } from "./coordinator/capability-cache.ts";
export type { CoordinatorEvent, CoordinatorEventListener, ProgressStage } from "./coordinator/events.ts";
export type {
  AvailableTool,
  CoTVariation,
  EndSessionResponse,
  ExecuteTaskRequestInput,
  ExecuteTaskResponse,
  ReasoningCapability,
  ReasoningTrace,
  ReasoningType,
  ToolCallRequest,
} from "@deliberate/contracts";
