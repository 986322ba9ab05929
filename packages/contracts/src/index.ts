export { DeliberateError, toDeliberateError } from "@deliberate/base";
export { errorBodySchema, errorCodeSchema, errorDetailSchema, errorResponseSchema, httpErrorCodeSchema } from "./errors.ts";
export type { ErrorDetail, ErrorResponse, HttpErrorCode } from "./errors.ts";
export type { DeliberateErrorOptions, ErrorBody, ErrorCode, FieldIssue } from "@deliberate/base";
export { parseInput, toFieldIssues } from "./validation.ts";
export { nullsAsAbsent } from "./null-as-absent.ts";
export { containsNulCharacter, nulCharacterIssues, nulCharacterMessage } from "./nul-characters.ts";
export { endlessRefs, maxSchemaExpansion, patternHazard, schemaExpansion, unsafePatterns, type PatternIssue } from "./json-schema-patterns.ts";
export { decimalNumberPattern, keepCoercedDefaults, looseBoolean, looseInteger, looseNumber, nonEmptyText, unitInterval } from "./coerce.ts";
export { defineTool } from "./tool-definition.ts";
export type { ToolAnnotations, ToolDefinition, ToolInput, ToolOutput } from "./tool-definition.ts";
export {
  branchStatusSchema,
  healthSchema,
  invocationSchema,
  readinessSchema,
  sessionSchema,
  thoughtSchema,
  thoughtStatusSchema,
} from "./shapes.ts";
export type { BranchStatus, Health, Invocation, Readiness, Session, Thought } from "./shapes.ts";

export { linearInputSchema, linearOutputSchema, linearTool } from "./reasoning/linear.ts";
export { treeBranchSchema, treeInputSchema, treeOperationSchema, treeOutputSchema, treeTool } from "./reasoning/tree.ts";
export { divergentInputSchema, divergentOutputSchema, divergentTool, perspectiveSchema } from "./reasoning/divergent.ts";
export { reflectionInputSchema, reflectionOperationSchema, reflectionOutputSchema, reflectionTool } from "./reasoning/reflection.ts";
export {
  checkpointInputSchema,
  checkpointOperationSchema,
  checkpointOutputSchema,
  checkpointSummarySchema,
  checkpointTool,
  restoredStateSchema,
} from "./reasoning/checkpoint.ts";
export { autoInputSchema, autoModeSchema, autoOutputSchema, autoTool } from "./reasoning/auto.ts";
export { allToolDefinitions, toolCatalogue } from "./catalogue.ts";
export type { ToolCatalogue, ToolName } from "./catalogue.ts";
export { reasoningTools } from "./reasoning/index.ts";
export {
  biasTypes,
  detectInputSchema,
  detectionCategoryOf,
  detectionCategorySchema,
  detectionSchema,
  detectOutputSchema,
  detectSeveritySchema,
  detectTool,
  detectTypeSchema,
  formalFallacyTypes,
  informalFallacyTypes,
} from "./reasoning/detect.ts";
export type { DetectionCategory, Detection, DetectSeverity, DetectType } from "./reasoning/detect.ts";
export {
  criterionDirectionSchema,
  decisionCriterionSchema,
  decisionInputSchema,
  decisionLimits,
  decisionOutputSchema,
  decisionTool,
  decisionTypeSchema,
  pairwiseTolerance,
  stakeholderInputSchema,
  stakeholderQuadrantSchema,
} from "./reasoning/decision.ts";
export type { CriterionDirection, DecisionType } from "./reasoning/decision.ts";
export {
  chainOfCustodySchema,
  evidenceInputSchema,
  evidenceItemSchema,
  evidenceLimits,
  evidenceOutputSchema,
  evidenceTool,
  evidenceTypeSchema,
  sourceTypeSchema,
} from "./reasoning/evidence.ts";
export type { EvidenceChainOfCustody, EvidenceSourceType, EvidenceType } from "./reasoning/evidence.ts";
export {
  analysisDepthSchema,
  causalModelInputSchema,
  causalModelLimits,
  counterfactualInputSchema,
  counterfactualOutputSchema,
  counterfactualTool,
  interventionTargetSchema,
} from "./reasoning/counterfactual.ts";
export type { AnalysisDepth } from "./reasoning/counterfactual.ts";
export { compactPendingPromptSchema, needsCompletionSchema, orNeedsCompletion, pendingPromptSchema } from "./reasoning/needs-completion.ts";
export type { CompactPendingPrompt, NeedsCompletion, PendingPrompt } from "./reasoning/needs-completion.ts";
export { createHostContext, expandNeedsCompletion } from "./reasoning/host-context.ts";
export type { HostContext } from "./reasoning/host-context.ts";
export { submitInputSchema, submitTool } from "./reasoning/submit.ts";
export {
  presetExecutionResultSchema,
  presetInputSchema,
  presetOperationSchema,
  presetOutputSchema,
  presetStepResultSchema,
  presetSummarySchema,
  presetTool,
} from "./reasoning/preset.ts";
export {
  metricsFallbacksSchema,
  metricsInputSchema,
  metricsInvocationSchema,
  metricsOutputSchema,
  metricsQuerySchema,
  metricsSummarySchema,
  metricsTool,
  modeStatsSchema,
} from "./reasoning/metrics.ts";
export {
  graphConfigCeilings,
  graphConfigDefaults,
  graphConfigSchema,
  graphEdgeKindSchema,
  graphEdgeSchema,
  graphInputSchema,
  graphNodeKindSchema,
  graphNodeSchema,
  graphNodeStatusSchema,
  graphOperationSchema,
  graphOutputSchema,
  graphStateSchema,
  graphTool,
} from "./reasoning/graph.ts";
export {
  timelineBranchSchema,
  timelineBranchStatusSchema,
  timelineComparisonSchema,
  timelineInputSchema,
  timelineMergeStrategySchema,
  timelineOperationSchema,
  timelineOutputSchema,
  timelinePairSchema,
  timelineTool,
} from "./reasoning/timeline.ts";
export { backtrackSuggestionSchema, mctsInputSchema, mctsOperationSchema, mctsOutputSchema, mctsPathNodeSchema, mctsTool } from "./reasoning/mcts.ts";
export {
  listWorkflowsOutputSchema,
  listWorkflowsTool,
  startChainOfThoughtInputSchema,
  startChainOfThoughtTool,
  startWorkflowInputSchema,
  startWorkflowTool,
  submitThoughtInputSchema,
  submitThoughtTool,
  workflowProgressSchema,
} from "./reasoning/guided-workflow.ts";
export {
  agentIntentRequestSchema,
  agentIntentResponseSchema,
  decidedBySchema,
  llmChoiceSchema,
  offeredToolSchema,
  traceEntrySchema,
} from "./agent-intent/agent-intent.ts";
export type { AgentIntentRequest, AgentIntentResponse, DecidedBy, OfferedToolInput, TraceEntry } from "./agent-intent/agent-intent.ts";
export { agentIntentDecideTool, agentIntentDecisionInputSchema, agentIntentDecisionSchema } from "./agent-intent/decide-tool.ts";
export { defaultOfferedTools } from "./agent-intent/default-tools.ts";
export type { AgentIntentDecision, AgentIntentDecisionInput } from "./agent-intent/decide-tool.ts";
export { cancelRequestSchema, cancelResponseSchema, jobAcceptedSchema, jobStatusSchema, jobViewSchema } from "./agent-intent/jobs.ts";
export type { CancelRequest, CancelResponse, JobAccepted, JobStatus, JobView } from "./agent-intent/jobs.ts";
export { workflowIntentRequestSchema, workflowIntentResponseSchema, workflowSummarySchema } from "./agent-intent/workflow-intent.ts";
export type { WorkflowIntentRequest, WorkflowIntentResponse, WorkflowSummary } from "./agent-intent/workflow-intent.ts";
export { publishedSchemas, toJsonSchema } from "./json-schema.ts";
export type { JsonSchema, PublishedSchemas } from "./json-schema.ts";

// The dialog module's tools (multi-agent reasoning sessions).
export {
  agentConfigSchema,
  agentListSchema,
  agentNamePattern,
  defaultDialogPlan,
  dialogActSchema,
  dialogConsciousnessStateSchema,
  dialogCriterionSchema,
  dialogDirectiveSchema,
  dialogExchangeSchema,
  dialogExchangeStatusSchema,
  dialogGradedBySchema,
  dialogIterationQualitySchema,
  dialogLimits,
  dialogPlanProblems,
  dialogPlanSchema,
  dialogPresetNameSchema,
  dialogPresetSchema,
  dialogResultFormatSchema,
  dialogReviewScoreSchema,
  dialogScoreDecimals,
  dialogSessionStatusSchema,
  dialogStopReasonSchema,
  dialogStoppingSchema,
  dialogStructuredResultSchema,
  dialogToolDefinitions,
  dialogTools,
  dialogTurnSchema,
  getReasoningResultInputSchema,
  getReasoningResultOutputSchema,
  getReasoningResultTool,
  getSessionStatusInputSchema,
  getSessionStatusOutputSchema,
  getSessionStatusTool,
  listReasoningPresetsInputSchema,
  listReasoningPresetsOutputSchema,
  listReasoningPresetsTool,
  runReasoningExchangeInputSchema,
  runReasoningExchangeOutputSchema,
  runReasoningExchangeTool,
  startReasoningSessionInputSchema,
  startReasoningSessionOutputSchema,
  startReasoningSessionTool,
} from "./dialog/index.ts";
export type {
  AgentConfig,
  DialogAct,
  DialogConsciousnessState,
  DialogExchange,
  DialogExchangeStatus,
  DialogGradedBy,
  DialogIterationQuality,
  DialogPlan,
  DialogPlanProblem,
  DialogPresetName,
  DialogPresetSummary,
  DialogResultFormat,
  DialogSessionStatus,
  DialogStopReason,
  DialogTurn,
} from "./dialog/index.ts";

// The knowledge-graph module's wire contract (reasoning/executeTask, reasoning/endSession).
export {
  availableToolSchema,
  availableToolsSchema,
  confidenceMethodSchema,
  confidenceReportSchema,
  contextDataSchema,
  cotVariationSchema,
  derivationSchema,
  endSessionRequestSchema,
  endSessionResponseSchema,
  endSessionTool,
  executeTaskErrorSchema,
  executeTaskRequestSchema,
  executeTaskResponseSchema,
  executeTaskResultSchema,
  executeTaskStatusSchema,
  executeTaskTool,
  hostFactSchema,
  hostFactsSchema,
  hostKnowledgeLimits,
  hostRuleSchema,
  hostRulesSchema,
  knowledgeEntitySchema,
  knowledgeGraphMethods,
  knowledgeGraphRequestLimits,
  knowledgeGraphSessionStateSchema,
  knowledgeGraphToolDefinitions,
  knowledgeGraphTools,
  knowledgeRelationSchema,
  knowledgeSubgraphSchema,
  noticeSchema,
  outputFormatSchema,
  outputRequirementsSchema,
  planSchema,
  planStepKindSchema,
  planStepSchema,
  provenanceKindSchema,
  provenanceSchema,
  reasoningCapabilitySchema,
  reasoningSessionIdSchema,
  reasoningTraceSchema,
  reasoningTypeSchema,
  ruleAtomSchema,
  ruleInequalitySchema,
  scoredHypothesisSchema,
  sessionStateSchema,
  toolCallRequestSchema,
  toolResultSchema,
  traceStepSchema,
  tripleSchema,
  updatedSessionStateSchema,
  validitySchema,
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
  ExecuteTaskResult,
  ExecuteTaskStatus,
  HostFact,
  HostRule,
  RuleInequality,
  KnowledgeEntity,
  KnowledgeGraphSessionState,
  KnowledgeRelation,
  KnowledgeSubgraph,
  Notice,
  OutputFormat,
  OutputRequirements,
  Plan,
  PlanStep,
  PlanStepKind,
  Provenance,
  ProvenanceKind,
  ReasoningCapability,
  ReasoningTrace,
  ReasoningType,
  RuleAtom,
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
export { answerAndClose, type HttpParseRefusal, httpParseRefusal, rawHttpResponse, refusalLingerMs } from "./http-parse-refusal.ts";
export type { JsonDepthViolation } from "./json-depth.ts";
export { defaultSessionPageSize, maxSessionPageSize, pageSessionRecord, sessionPageQuerySchema, sessionPageSchema } from "./session-page.ts";
export type { SessionPage, SessionPageQuery } from "./session-page.ts";
export { canonicalHostHeader, charsetOf, defaultMaxBodyBytes, isLoopbackHost, unsupportedCharset } from "./http-request-rules.ts";
export { canonicalizeHostHeader } from "./canonical-host-request.ts";
export { listPage, listPageInput, listPageSchema, listWindow } from "./list-page.ts";
export type { ListPage } from "./list-page.ts";
