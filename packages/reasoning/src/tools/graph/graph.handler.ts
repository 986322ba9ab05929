import { graphTool } from "@deliberate/contracts";
import { defineHandler } from "../../define-handler.ts";
import { aggregateOperation } from "./operations/aggregate.ts";
import { finalizeOperation } from "./operations/finalize.ts";
import { generateOperation } from "./operations/generate.ts";
import { initOperation } from "./operations/init.ts";
import { pruneOperation } from "./operations/prune.ts";
import { refineOperation } from "./operations/refine.ts";
import { scoreOperation } from "./operations/score.ts";
import { stateOperation } from "./operations/state.ts";

export { type GraphLimits, graphScore } from "./graph-support.ts";
export { structuralParents } from "./operations/prune.ts";

/** reasoning_graph: one operation per call, each in `operations/<operation>.ts`. */
export const graphHandler = defineHandler(graphTool, async (input, context) => {
  switch (input.operation) {
    case "init":
      return initOperation(input, context);
    case "generate":
      return generateOperation(input, context);
    case "score":
      return scoreOperation(input, context);
    case "aggregate":
      return aggregateOperation(input, context);
    case "refine":
      return refineOperation(input, context);
    case "prune":
      return pruneOperation(input, context);
    case "finalize":
      return finalizeOperation(input, context);
    case "state":
      return stateOperation(input, context);
  }
});
