import { diagramFrame, drawDiagram, nodeCap } from "../diagram.ts";
import { asArray, asNumber, asString, formatNumber, h, isRecord } from "../dom.ts";
import { registerView, thoughtsOfMode } from "../registry.ts";

/** The exploration constant UCB is shown with: the tool's default (the stored tree does not keep the one a search used). */
const explorationConstant = Math.SQRT2;

/** UCB1 = Q/N + c·√(ln N_parent / N); infinite for an unvisited node. */
export function ucb1(totalValue: number, visits: number, parentVisits: number, c = explorationConstant): number {
  if (visits === 0) return Number.POSITIVE_INFINITY;
  return totalValue / visits + c * Math.sqrt(Math.log(Math.max(1, parentVisits)) / visits);
}

/** Monte Carlo search tree: visits N, mean value Q and UCB per node; the latest best path highlighted. */
registerView(
  "search_nodes",
  (data, context) => {
    const nodes = asArray(data)
      .filter(isRecord)
      .sort((a, b) => (asNumber(a["position"]) ?? 0) - (asNumber(b["position"]) ?? 0));
    if (nodes.length === 0) return null;
    const byId = new Map(nodes.map((node) => [asString(node["id"]), node]));
    const latest = thoughtsOfMode(context.record, "mcts").at(-1);
    const bestPath = new Set(
      asArray(isRecord(latest?.["metadata"]) ? latest["metadata"]["best_path"] : undefined).map((id) => asString(id)),
    );
    const { shown, control } = nodeCap({
      total: nodes.length,
      state: context.state,
      key: "shown",
      step: 250,
      noun: "nodes",
      rerender: context.rerender,
    });
    const visible = nodes.slice(0, shown);
    const svg = drawDiagram({
      label: `Search tree: ${shown} of ${nodes.length} nodes shown`,
      nodes: visible.map((node) => {
        const id = asString(node["id"]);
        const visits = asNumber(node["visits"]) ?? 0;
        const total = asNumber(node["total_value"]) ?? 0;
        const parent = byId.get(asString(node["parent_id"]));
        const ucb = parent ? ucb1(total, visits, asNumber(parent["visits"]) ?? 0) : undefined;
        const ucbText = ucb === undefined ? "root" : Number.isFinite(ucb) ? `UCB ${formatNumber(ucb)}` : "UCB ∞";
        const stats = `N ${visits} · Q ${visits > 0 ? formatNumber(total / visits) : "—"} · ${ucbText}`;
        const terminal = node["is_terminal"] === true;
        return {
          id,
          title: asString(node["content"]),
          lines: [stats],
          description: `${asString(node["content"])} (visits ${visits}, mean value ${visits > 0 ? formatNumber(total / visits, 3) : "none"}, ${ucbText}${terminal ? ", terminal" : ""}${bestPath.has(id) ? ", on the best path" : ""})`,
          className: `${bestPath.has(id) ? "is-best" : ""}${terminal ? " is-terminal" : ""}`.trim(),
        };
      }),
      edges: visible
        .filter((node) => node["parent_id"])
        .map((node) => ({
          from: asString(node["parent_id"]),
          to: asString(node["id"]),
          className: bestPath.has(asString(node["id"])) ? "edge-best" : "",
        })),
    });
    return h(
      "div",
      {},
      h(
        "p",
        { class: "muted" },
        `N = visits, Q = mean value, UCB1 = Q + c·√(ln N_parent / N) with c = √2 (the tool's default; the stored tree does not record the constant a search used).`,
      ),
      control,
      diagramFrame(svg, [
        ["is-best", "best path"],
        ["is-terminal", "terminal"],
      ]),
    );
  },
  { title: "Monte Carlo tree search", order: 35 },
);
