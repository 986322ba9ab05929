import { getReasoningResultTool } from "./get-reasoning-result.ts";
import { getSessionStatusTool } from "./get-session-status.ts";
import { listReasoningPresetsTool } from "./list-reasoning-presets.ts";
import { runReasoningExchangeTool } from "./run-reasoning-exchange.ts";
import { startReasoningSessionTool } from "./start-reasoning-session.ts";

/** The dialog module's five tools, by name, in the order surfaces list them. */
export const dialogTools = {
  start_reasoning_session: startReasoningSessionTool,
  run_reasoning_exchange: runReasoningExchangeTool,
  get_reasoning_result: getReasoningResultTool,
  list_reasoning_presets: listReasoningPresetsTool,
  get_session_status: getSessionStatusTool,
} as const;

/** The dialog module's five tools, in the order surfaces list them. */
export const dialogToolDefinitions = Object.values(dialogTools);

export {
  agentConfigSchema,
  agentListSchema,
  agentNamePattern,
  dialogActSchema,
  dialogLimits,
  dialogPresetNameSchema,
} from "./agent.ts";
export type { AgentConfig, DialogAct, DialogPresetName } from "./agent.ts";
export { defaultDialogPlan, dialogPlanProblems, dialogPlanSchema, dialogTurnSchema } from "./plan.ts";
export type { DialogPlan, DialogPlanProblem, DialogTurn } from "./plan.ts";
export {
  dialogConsciousnessStateSchema,
  dialogCriterionSchema,
  dialogDirectiveSchema,
  dialogExchangeSchema,
  dialogExchangeStatusSchema,
  dialogGradedBySchema,
  dialogIterationQualitySchema,
  dialogReviewScoreSchema,
  dialogScoreDecimals,
  dialogSessionStatusSchema,
  dialogStoppingSchema,
  dialogStopReasonSchema,
} from "./exchange.ts";
export type {
  DialogConsciousnessState,
  DialogExchange,
  DialogExchangeStatus,
  DialogGradedBy,
  DialogIterationQuality,
  DialogSessionStatus,
  DialogStopReason,
} from "./exchange.ts";
export {
  startReasoningSessionInputSchema,
  startReasoningSessionOutputSchema,
  startReasoningSessionTool,
} from "./start-reasoning-session.ts";
export {
  runReasoningExchangeInputSchema,
  runReasoningExchangeOutputSchema,
  runReasoningExchangeTool,
} from "./run-reasoning-exchange.ts";
export {
  dialogResultFormatSchema,
  dialogStructuredResultSchema,
  getReasoningResultInputSchema,
  getReasoningResultOutputSchema,
  getReasoningResultTool,
} from "./get-reasoning-result.ts";
export type { DialogResultFormat } from "./get-reasoning-result.ts";
export {
  dialogPresetSchema,
  listReasoningPresetsInputSchema,
  listReasoningPresetsOutputSchema,
  listReasoningPresetsTool,
} from "./list-reasoning-presets.ts";
export type { DialogPresetSummary } from "./list-reasoning-presets.ts";
export {
  getSessionStatusInputSchema,
  getSessionStatusOutputSchema,
  getSessionStatusTool,
} from "./get-session-status.ts";
