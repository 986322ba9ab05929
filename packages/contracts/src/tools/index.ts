import { autoTool } from "./auto.ts";
import { checkpointTool } from "./checkpoint.ts";
import { divergentTool } from "./divergent.ts";
import { linearTool } from "./linear.ts";
import { reflectionTool } from "./reflection.ts";
import { treeTool } from "./tree.ts";

/** Every tool definition, in the order surfaces list them. */
export const coreToolDefinitions = [linearTool, treeTool, divergentTool, reflectionTool, checkpointTool, autoTool] as const;
