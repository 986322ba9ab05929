export {
  confidenceMethodSchema,
  cotVariationSchema,
  epistemicStatusSchema,
  executeTaskStatusSchema,
  knowledgeGraphMethods,
  knowledgeGraphRequestLimits,
  knowledgeGraphSessionStateSchema,
  outputFormatSchema,
  provenanceKindSchema,
  reasoningTypeSchema,
  validitySchema,
} from "./vocabulary.ts";
export type {
  CoTVariation,
  ConfidenceMethod,
  EpistemicStatus,
  ExecuteTaskStatus,
  KnowledgeGraphSessionState,
  OutputFormat,
  ProvenanceKind,
  ReasoningType,
  Validity,
} from "./vocabulary.ts";
export {
  derivationSchema,
  knowledgeEntitySchema,
  knowledgeRelationSchema,
  knowledgeSubgraphSchema,
  provenanceSchema,
  tripleSchema,
} from "./graph-shapes.ts";
export type {
  Derivation,
  KnowledgeEntity,
  KnowledgeRelation,
  KnowledgeSubgraph,
  Provenance,
  Triple,
} from "./graph-shapes.ts";
export {
  availableToolSchema,
  availableToolsSchema,
  toolCallRequestSchema,
  toolResultSchema,
} from "./tool-interaction.ts";
export type { AvailableTool, ToolCallRequest, ToolResult } from "./tool-interaction.ts";
export {
  confidenceReportSchema,
  contextDataSchema,
  executeTaskErrorSchema,
  executeTaskRequestSchema,
  executeTaskResponseSchema,
  executeTaskResultSchema,
  noticeSchema,
  outputRequirementsSchema,
  planSchema,
  planStepKindSchema,
  planStepSchema,
  reasoningSessionIdSchema,
  reasoningTraceSchema,
  scoredHypothesisSchema,
  sessionStateSchema,
  traceStepSchema,
  updatedSessionStateSchema,
} from "./execute-task.ts";
export type {
  ConfidenceReport,
  ContextData,
  ExecuteTaskError,
  ExecuteTaskRequest,
  ExecuteTaskRequestInput,
  ExecuteTaskResponse,
  ExecuteTaskResult,
  Notice,
  OutputRequirements,
  Plan,
  PlanStep,
  PlanStepKind,
  ReasoningTrace,
  SessionStateInput,
  TraceStep,
  UpdatedSessionState,
} from "./execute-task.ts";
export {
  hostFactSchema,
  hostFactsSchema,
  hostKnowledgeLimits,
  hostRuleSchema,
  hostRulesSchema,
  ruleAtomSchema,
  ruleInequalitySchema,
} from "./host-knowledge.ts";
export type { HostFact, HostRule, RuleAtom, RuleInequality } from "./host-knowledge.ts";
export { endSessionRequestSchema, endSessionResponseSchema } from "./end-session.ts";
export type { EndSessionRequest, EndSessionResponse } from "./end-session.ts";
export { reasoningCapabilitySchema } from "./capabilities.ts";
export type { ReasoningCapability } from "./capabilities.ts";
export { endSessionTool, executeTaskTool, knowledgeGraphToolDefinitions, knowledgeGraphTools } from "./tools.ts";
