export { DeliberateError } from "@deliberate/base";
export {
  errorBodySchema,
  errorCodeSchema,
  errorDetailSchema,
  errorResponseSchema,
  httpErrorCodeSchema,
} from "./errors.ts";
export type { ErrorDetail, ErrorResponse, HttpErrorCode } from "./errors.ts";
export type { ErrorBody, ErrorCode, FieldIssue } from "@deliberate/base";
export { lazySchema } from "./lazy-schema.ts";
export { parseInput, toFieldIssues } from "./validation.ts";
export { nullsAsAbsent } from "./null-as-absent.ts";
export { containsNulCharacter, nulCharacterIssues, nulCharacterMessage } from "./nul-characters.ts";
export { endlessRefs, schemaExpansion, unsafePatterns } from "./json-schema-patterns.ts";
export { looseInteger } from "./coerce.ts";
export { defineTool } from "./tool-definition.ts";
export type { ToolDefinition, ToolInput, ToolOutput } from "./tool-definition.ts";
export { healthSchema, readinessSchema, sessionSchema, thoughtSchema } from "./shapes.ts";
export type { BranchStatus, Health, Invocation, Readiness, Session, Thought } from "./shapes.ts";

export { linearTool } from "./reasoning/linear.ts";
export { treeTool } from "./reasoning/tree.ts";
export { divergentTool } from "./reasoning/divergent.ts";
export { reflectionTool } from "./reasoning/reflection.ts";
export { checkpointTool } from "./reasoning/checkpoint.ts";
export { autoModeSchema, autoTool } from "./reasoning/auto.ts";
export { allToolDefinitions, toolCatalogue } from "./catalogue.ts";
export type { ToolCatalogue, ToolName } from "./catalogue.ts";
export { reasoningTools } from "./reasoning/index.ts";
export {
  biasTypes,
  detectionCategoryOf,
  detectOutputSchema,
  detectSeveritySchema,
  detectTool,
  formalFallacyTypes,
  informalFallacyTypes,
} from "./reasoning/detect.ts";
export type { Detection, DetectSeverity, DetectType } from "./reasoning/detect.ts";
export { criterionDirectionSchema, decisionOutputSchema, decisionTool } from "./reasoning/decision.ts";
export type { CriterionDirection, DecisionType } from "./reasoning/decision.ts";
export { chainOfCustodySchema, evidenceOutputSchema, evidenceTool, sourceTypeSchema } from "./reasoning/evidence.ts";
export type { EvidenceChainOfCustody, EvidenceSourceType } from "./reasoning/evidence.ts";
export { counterfactualOutputSchema, counterfactualTool } from "./reasoning/counterfactual.ts";
export type { AnalysisDepth } from "./reasoning/counterfactual.ts";
export { needsCompletionSchema, orNeedsCompletion } from "./reasoning/needs-completion.ts";
export type { CompactPendingPrompt, NeedsCompletion, PendingPrompt } from "./reasoning/needs-completion.ts";
export { createHostContext, expandNeedsCompletion } from "./reasoning/host-context.ts";
export type { HostContext } from "./reasoning/host-context.ts";
export { submitInputSchema, submitTool } from "./reasoning/submit.ts";
export { presetOutputSchema, presetTool } from "./reasoning/preset.ts";
export { metricsOutputSchema, metricsTool } from "./reasoning/metrics.ts";
export { graphConfigDefaults, graphTool } from "./reasoning/graph.ts";
export { timelineTool } from "./reasoning/timeline.ts";
export { mctsTool } from "./reasoning/mcts.ts";
export {
  listWorkflowsTool,
  startChainOfThoughtTool,
  startWorkflowTool,
  submitThoughtTool,
  workflowProgressSchema,
} from "./reasoning/guided-workflow.ts";
export { agentIntentRequestSchema, agentIntentResponseSchema, offeredToolSchema } from "./agent-intent/agent-intent.ts";
export type {
  AgentIntentRequest,
  AgentIntentResponse,
  DecidedBy,
  OfferedToolInput,
  TraceEntry,
} from "./agent-intent/agent-intent.ts";
export { agentIntentDecideTool, agentIntentDecisionSchema } from "./agent-intent/decide-tool.ts";
export { defaultOfferedTools } from "./agent-intent/default-tools.ts";
export type { AgentIntentDecision, AgentIntentDecisionInput } from "./agent-intent/decide-tool.ts";
export {
  cancelRequestSchema,
  cancelResponseSchema,
  jobAcceptedSchema,
  jobStatusSchema,
  jobViewSchema,
} from "./agent-intent/jobs.ts";
export type { CancelRequest, CancelResponse, JobAccepted, JobView } from "./agent-intent/jobs.ts";
export {
  workflowIntentRequestSchema,
  workflowIntentResponseSchema,
  workflowSummarySchema,
} from "./agent-intent/workflow-intent.ts";
export type { WorkflowIntentRequest, WorkflowIntentResponse, WorkflowSummary } from "./agent-intent/workflow-intent.ts";
export { publishedSchemas, toJsonSchema } from "./json-schema.ts";
export type { JsonSchema } from "./json-schema.ts";

// The dialog module's tools (multi-agent reasoning sessions).
export {
  agentListSchema,
  defaultDialogPlan,
  dialogPlanProblems,
  dialogPresetNameSchema,
  dialogScoreDecimals,
  getReasoningResultOutputSchema,
  getReasoningResultTool,
  getSessionStatusTool,
  listReasoningPresetsOutputSchema,
  listReasoningPresetsTool,
  runReasoningExchangeOutputSchema,
  runReasoningExchangeTool,
  startReasoningSessionTool,
} from "./dialog/index.ts";
export type {
  AgentConfig,
  DialogAct,
  DialogConsciousnessState,
  DialogExchange,
  DialogExchangeStatus,
  DialogGradedBy,
  DialogPlan,
  DialogPresetName,
  DialogResultFormat,
  DialogSessionStatus,
  DialogStopReason,
  DialogTurn,
} from "./dialog/index.ts";

// The knowledge-graph module's wire contract (reasoning/executeTask, reasoning/endSession).
export {
  cotVariationSchema,
  endSessionRequestSchema,
  endSessionResponseSchema,
  endSessionTool,
  executeTaskRequestSchema,
  executeTaskResponseSchema,
  executeTaskTool,
  knowledgeGraphMethods,
  outputFormatSchema,
  reasoningCapabilitySchema,
  reasoningTypeSchema,
  traceStepSchema,
  epistemicStatusSchema,
} from "./knowledge-graph/index.ts";
export type {
  AvailableTool,
  CoTVariation,
  ConfidenceMethod,
  ConfidenceReport,
  ContextData,
  Derivation,
  EndSessionRequest,
  EndSessionResponse,
  ExecuteTaskError,
  ExecuteTaskRequest,
  ExecuteTaskRequestInput,
  ExecuteTaskResponse,
  HostFact,
  HostRule,
  KnowledgeEntity,
  KnowledgeGraphSessionState,
  KnowledgeRelation,
  KnowledgeSubgraph,
  Notice,
  OutputFormat,
  Plan,
  Provenance,
  ProvenanceKind,
  ReasoningCapability,
  ReasoningTrace,
  ReasoningType,
  SessionStateInput,
  ToolCallRequest,
  ToolResult,
  TraceStep,
  Triple,
  UpdatedSessionState,
  Validity,
  EpistemicStatus,
} from "./knowledge-graph/index.ts";
export { jsonDepthField, jsonDepthViolation, maxJsonDepth } from "./json-depth.ts";
export { answerAndClose, httpParseRefusal, rawHttpResponse } from "./http-parse-refusal.ts";
export {
  defaultSessionPageSize,
  maxSessionPageSize,
  pageSessionRecord,
  sessionPageQuerySchema,
  sessionPageSchema,
} from "./session-page.ts";
export type { SessionPage, SessionPageQuery } from "./session-page.ts";
export { defaultMaxBodyBytes, isLoopbackHost, unsupportedCharset } from "./http-request-rules.ts";
export { canonicalizeHostHeader } from "./canonical-host-request.ts";
export { listPage, listWindow } from "./list-page.ts";
