import { autoModeSchema, autoTool } from "@deliberate/contracts";
import { createRouterMode } from "./auto.mode.ts";
import { runMode } from "@deliberate/engine";
import { defineHandler } from "../../define-handler.ts";

type AutoMode = (typeof autoModeSchema.options)[number];

/**
 * How auto starts each mode it can route to: the tool and its arguments built
 * from the content. A mode is routable only when its tool is registered.
 */
export const autoRoutes: Record<
  AutoMode,
  { tool: string; arguments: (content: string, sessionId?: string) => Record<string, unknown> }
> = {
  linear: { tool: "reasoning_linear", arguments: (content, session_id) => ({ content, session_id }) },
  tree: { tool: "reasoning_tree", arguments: (content, session_id) => ({ operation: "create", content, session_id }) },
  divergent: { tool: "reasoning_divergent", arguments: (content, session_id) => ({ content, session_id }) },
  reflection: {
    tool: "reasoning_reflection",
    arguments: (content, session_id) => ({ operation: "process", content, session_id }),
  },
  graph: { tool: "reasoning_graph", arguments: (content, session_id) => ({ operation: "init", content, session_id }) },
  timeline: {
    tool: "reasoning_timeline",
    arguments: (content, session_id) => ({ operation: "create", content, session_id }),
  },
  mcts: { tool: "reasoning_mcts", arguments: (content, session_id) => ({ operation: "explore", content, session_id }) },
  counterfactual: {
    tool: "reasoning_counterfactual",
    arguments: (content, session_id) => ({ scenario: content, session_id }),
  },
};

/** Builds the auto handler: it routes among the modes whose tools the engine actually serves. */
export function createAutoHandler() {
  return defineHandler(autoTool, async (input, context) => {
    const routable = autoModeSchema.options.filter((mode) => context.tools.has(autoRoutes[mode].tool));
    const router = createRouterMode(routable as [AutoMode, ...AutoMode[]]);
    const choice = await runMode(context, router, { content: input.content, hints: input.hints ?? [] });
    const selected = choice.selected_mode as AutoMode;
    context.progress({ progress: 1, total: 2, message: `routed to ${selected}` });
    const route = autoRoutes[selected];
    // The routed tool's own progress is folded into the second half, so the caller sees one rising count.
    const result = await context.callTool(route.tool, route.arguments(input.content, input.session_id), {
      progress: (update) => {
        if (update.total !== undefined && update.total > 0 && update.progress < update.total) {
          context.progress({
            progress: 1 + update.progress / update.total,
            total: 2,
            ...(update.message !== undefined ? { message: update.message } : {}),
          });
        }
      },
    });
    context.progress({ progress: 2, total: 2, message: `${selected} done` });
    return { selected_mode: selected, confidence: choice.confidence, rationale: choice.rationale, result };
  });
}
