import {
  getReasoningResultTool,
  getSessionStatusTool,
  listReasoningPresetsTool,
  runReasoningExchangeTool,
  startReasoningSessionTool,
  type ToolDefinition,
  type ToolInput,
  type ToolOutput,
} from "@deliberate/contracts";
import type { DialogModuleOptions, DialogToolContext } from "./dialog-context.ts";
import { getReasoningResult } from "./tools/get-reasoning-result/get-reasoning-result.handler.ts";
import { getSessionStatus } from "./tools/get-session-status/get-session-status.handler.ts";
import { listReasoningPresets } from "./tools/list-reasoning-presets/list-reasoning-presets.handler.ts";
import { runReasoningExchange } from "./tools/run-reasoning-exchange/run-reasoning-exchange.handler.ts";
import { startReasoningSession } from "./tools/start-reasoning-session/start-reasoning-session.handler.ts";

/** A dialog tool: its definition from contracts and the code that does its work. */
export interface DialogHandler<Definition extends ToolDefinition = ToolDefinition> {
  readonly definition: Definition;
  /** Receives input already validated against the definition's input schema. */
  handle(input: ToolInput<Definition>, context: DialogToolContext): Promise<ToolOutput<Definition>>;
}

function dialogHandler<Definition extends ToolDefinition>(
  definition: Definition,
  handle: (input: ToolInput<Definition>, context: DialogToolContext) => Promise<ToolOutput<Definition>>,
): DialogHandler<Definition> {
  return { definition, handle };
}

/** The five tools' handlers, with the module's options (idle timeout, context budget). */
export function createDialogHandlers(options: DialogModuleOptions = {}) {
  return [
    dialogHandler(startReasoningSessionTool, (input, context) => startReasoningSession(input, context, options)),
    dialogHandler(runReasoningExchangeTool, runReasoningExchange),
    dialogHandler(getReasoningResultTool, getReasoningResult),
    dialogHandler(listReasoningPresetsTool, () => listReasoningPresets()),
    dialogHandler(getSessionStatusTool, getSessionStatus),
  ] as const;
}
