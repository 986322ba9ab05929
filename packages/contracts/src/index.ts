export { DeliberateError, errorBodySchema, errorCodeSchema } from "./errors.ts";
export type { DeliberateErrorOptions, ErrorBody, ErrorCode, FieldIssue } from "./errors.ts";
export { parseInput, toFieldIssues } from "./validation.ts";
export { decimalNumberPattern, keepCoercedDefaults, looseBoolean, looseInteger, looseNumber, nonEmptyText, unitInterval } from "./coerce.ts";
export { defineTool } from "./tool-definition.ts";
export type { ToolAnnotations, ToolDefinition, ToolInput, ToolOutput } from "./tool-definition.ts";
export {
  branchStatusSchema,
  invocationSchema,
  modeIdSchema,
  sessionSchema,
  thoughtSchema,
  thoughtStatusSchema,
} from "./shapes.ts";
export type { BranchStatus, Invocation, ModeId, Session, Thought } from "./shapes.ts";

export { linearInputSchema, linearOutputSchema, linearTool } from "./tools/linear.ts";
export { treeBranchSchema, treeInputSchema, treeOperationSchema, treeOutputSchema, treeTool } from "./tools/tree.ts";
export { divergentInputSchema, divergentOutputSchema, divergentTool, perspectiveSchema } from "./tools/divergent.ts";
export { reflectionInputSchema, reflectionOperationSchema, reflectionOutputSchema, reflectionTool } from "./tools/reflection.ts";
export {
  checkpointInputSchema,
  checkpointOperationSchema,
  checkpointOutputSchema,
  checkpointSummarySchema,
  checkpointTool,
  restoredStateSchema,
} from "./tools/checkpoint.ts";
export { autoInputSchema, autoModeSchema, autoOutputSchema, autoTool } from "./tools/auto.ts";
export { allToolDefinitions, analysisToolDefinitions, coreToolDefinitions } from "./tools/index.ts";
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
} from "./tools/detect.ts";
export type { DetectionCategory, Detection, DetectSeverity, DetectType } from "./tools/detect.ts";
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
} from "./tools/decision.ts";
export type { CriterionDirection, DecisionType } from "./tools/decision.ts";
export {
  chainOfCustodySchema,
  evidenceInputSchema,
  evidenceItemSchema,
  evidenceLimits,
  evidenceOutputSchema,
  evidenceTool,
  evidenceTypeSchema,
  sourceTypeSchema,
} from "./tools/evidence.ts";
export type { EvidenceChainOfCustody, EvidenceSourceType, EvidenceType } from "./tools/evidence.ts";
export {
  analysisDepthSchema,
  causalModelInputSchema,
  causalModelLimits,
  counterfactualInputSchema,
  counterfactualOutputSchema,
  counterfactualTool,
  interventionTargetSchema,
} from "./tools/counterfactual.ts";
export type { AnalysisDepth } from "./tools/counterfactual.ts";
export { needsCompletionSchema, orNeedsCompletion, pendingPromptSchema } from "./tools/needs-completion.ts";
export type { NeedsCompletion, PendingPrompt } from "./tools/needs-completion.ts";
export { submitInputSchema, submitTool } from "./tools/submit.ts";
export { infrastructureToolDefinitions } from "./tools/index.ts";
export {
  presetExecutionResultSchema,
  presetInputSchema,
  presetOperationSchema,
  presetOutputSchema,
  presetStepResultSchema,
  presetSummarySchema,
  presetTool,
} from "./tools/preset.ts";
export {
  metricsFallbacksSchema,
  metricsInputSchema,
  metricsInvocationSchema,
  metricsOutputSchema,
  metricsQuerySchema,
  metricsSummarySchema,
  metricsTool,
  modeStatsSchema,
} from "./tools/metrics.ts";
export { statefulToolDefinitions } from "./tools/index.ts";
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
} from "./tools/graph.ts";
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
} from "./tools/timeline.ts";
export { backtrackSuggestionSchema, mctsInputSchema, mctsOperationSchema, mctsOutputSchema, mctsPathNodeSchema, mctsTool } from "./tools/mcts.ts";
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
} from "./tools/guided-workflow.ts";
export { jsonDepthField, jsonDepthViolation, maxJsonDepth } from "./json-depth.ts";
export type { JsonDepthViolation } from "./json-depth.ts";
export { defaultSessionPageSize, maxSessionPageSize, pageSessionRecord, sessionPageQuerySchema, sessionPageSchema } from "./session-page.ts";
export type { SessionPage, SessionPageQuery } from "./session-page.ts";
