import { diagramFrame, drawDiagram } from "../diagram.ts";
import { asArray, asString, formatNumber, h, isRecord } from "../dom.ts";
import { registerView } from "../registry.ts";

/** Tree-of-thought branches: each branch with its score and status; the focused one outlined. */
registerView(
  "branches",
  (data, context) => {
    const branches = asArray(data).filter(isRecord);
    if (branches.length === 0) return null;
    const focused = context.record.session.active_branch_id ?? null;
    const svg = drawDiagram({
      label: `Tree of ${branches.length} branches`,
      nodes: branches.map((branch) => {
        const id = asString(branch["id"]);
        const status = asString(branch["status"], "active");
        return {
          id,
          title: asString(branch["content"]),
          lines: [`score ${formatNumber(branch["score"])} · ${status}${id === focused ? " · focus" : ""}`],
          description: `${asString(branch["content"])} (score ${formatNumber(branch["score"])}, ${status})`,
          className: `status-${status}${id === focused ? " is-focus" : ""}`,
        };
      }),
      edges: branches
        .filter((branch) => branch["parent_branch_id"])
        .map((branch) => ({ from: asString(branch["parent_branch_id"]), to: asString(branch["id"]) })),
    });
    return h(
      "div",
      {},
      diagramFrame(svg, [
        ["status-active", "active"],
        ["status-completed", "completed"],
        ["status-abandoned", "abandoned"],
        ["is-focus", "focused branch"],
      ]),
    );
  },
  { title: "Tree branches", order: 25 },
);
