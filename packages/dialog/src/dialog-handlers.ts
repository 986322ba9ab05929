import {
  getReasoningResultTool,
  getSessionStatusTool,
  listReasoningPresetsTool,
  runReasoningExchangeTool,
  startReasoningSessionTool,
} from "@deliberate/contracts";
import { handlerDefinerFor } from "@deliberate/engine";
import type { DialogModuleOptions, DialogRepositories } from "./dialog-context.ts";
import { getReasoningResult } from "./tools/get-reasoning-result/get-reasoning-result.handler.ts";
import { getSessionStatus } from "./tools/get-session-status/get-session-status.handler.ts";
import { listReasoningPresets } from "./tools/list-reasoning-presets/list-reasoning-presets.handler.ts";
import { runReasoningExchange } from "./tools/run-reasoning-exchange/run-reasoning-exchange.handler.ts";
import { startReasoningSession } from "./tools/start-reasoning-session/start-reasoning-session.handler.ts";

/** Pairs a dialog tool's definition with its handler (which sees the dialog repositories in `context.store`). */
const defineHandler = handlerDefinerFor<DialogRepositories>();

/** The five tools' handlers, with the module's options (idle timeout, context budget). */
export function createDialogHandlers(options: DialogModuleOptions = {}) {
  return [
    defineHandler(startReasoningSessionTool, (input, context) => startReasoningSession(input, context, options)),
    defineHandler(runReasoningExchangeTool, runReasoningExchange),
    defineHandler(getReasoningResultTool, getReasoningResult),
    defineHandler(listReasoningPresetsTool, () => listReasoningPresets()),
    defineHandler(getSessionStatusTool, getSessionStatus),
  ] as const;
}
