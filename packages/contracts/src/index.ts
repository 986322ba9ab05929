export { DeliberateError, errorBodySchema, errorCodeSchema } from "./errors.ts";
export type { DeliberateErrorOptions, ErrorBody, ErrorCode, FieldIssue } from "./errors.ts";
export { parseInput, toFieldIssues } from "./validation.ts";
export { looseBoolean, looseInteger, looseNumber, nonEmptyText, unitInterval } from "./coerce.ts";
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
export { coreToolDefinitions } from "./tools/index.ts";
