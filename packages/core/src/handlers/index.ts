import type { ToolHandler } from "../tool-handler.ts";
import { checkpointHandler } from "./checkpoint.handler.ts";
import { divergentHandler } from "./divergent.handler.ts";
import { linearHandler } from "./linear.handler.ts";
import { reflectionHandler } from "./reflection.handler.ts";
import { treeHandler } from "./tree.handler.ts";

/** The core tools' handlers (auto is built by the engine from what is registered). */
export const coreHandlers: readonly ToolHandler[] = [
  linearHandler,
  treeHandler,
  divergentHandler,
  reflectionHandler,
  checkpointHandler,
] as unknown as readonly ToolHandler[];
