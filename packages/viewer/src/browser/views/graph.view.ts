import { diagramFrame, drawDiagram, nodeCap } from "../diagram.ts";
import { asArray, asNumber, asString, facts, formatNumber, h, isRecord } from "../dom.ts";
import { registerView } from "../registry.ts";

/**
 * Graph of thoughts: nodes with score, status and kind; continuation,
 * aggregation and refinement edges. Large graphs show the first nodes in
 * creation order (parents come before children, so what is shown stays
 * connected) with "show more".
 */
registerView(
  "graph",
  (data, context) => {
    if (!isRecord(data)) return null;
    const graph = isRecord(data["graph"]) ? data["graph"] : {};
    const nodes = asArray(data["nodes"])
      .filter(isRecord)
      .sort((a, b) => (asNumber(a["position"]) ?? 0) - (asNumber(b["position"]) ?? 0));
    const edges = asArray(data["edges"]).filter(isRecord);
    const { shown, control } = nodeCap({
      total: nodes.length,
      state: context.state,
      key: "shown",
      step: 250,
      noun: "nodes",
      rerender: context.rerender,
    });
    const visible = nodes.slice(0, shown);
    const pruned = nodes.filter((node) => node["status"] === "pruned").length;
    const terminal = nodes.filter((node) => node["is_terminal"] === true).length;
    const svg = drawDiagram({
      label: `Graph of thoughts: ${shown} of ${nodes.length} nodes shown`,
      nodes: visible.map((node) => {
        const score = asNumber(node["score"]);
        const status = asString(node["status"], "active");
        const kind = asString(node["kind"], "continuation");
        const terminalNode = node["is_terminal"] === true;
        return {
          id: asString(node["id"]),
          title: asString(node["content"]),
          lines: [
            `${score === undefined ? "unscored" : `score ${formatNumber(score)}`} · ${status}${terminalNode ? " · terminal" : ""}`,
            kind,
          ],
          description: `${asString(node["content"])} (${kind}, ${score === undefined ? "unscored" : `score ${formatNumber(score)}`}, ${status}${terminalNode ? ", terminal" : ""})`,
          className: `kind-${kind} status-${status}${terminalNode ? " is-terminal" : ""}`,
        };
      }),
      edges: edges.map((edge) => ({
        from: asString(edge["from_node_id"]),
        to: asString(edge["to_node_id"]),
        className: `edge-${asString(edge["kind"], "continuation")}`,
      })),
    });
    return h(
      "div",
      {},
      facts([
        ["Problem", asString(graph["problem"]) || undefined],
        ["Nodes", `${nodes.length} (${pruned} pruned, ${terminal} terminal)`],
        ["Edges", String(edges.length)],
        [
          "Limits",
          graph["max_nodes"] !== undefined
            ? `${asString(graph["max_nodes"])} nodes, depth ${asString(graph["max_depth"])}, prune below ${formatNumber(graph["prune_threshold"])}`
            : undefined,
        ],
      ]),
      control,
      diagramFrame(svg, [
        ["edge-continuation", "continuation"],
        ["edge-aggregation", "aggregation"],
        ["edge-refinement", "refinement"],
        ["status-pruned", "pruned"],
        ["is-terminal", "terminal"],
      ]),
    );
  },
  { title: "Graph of thoughts", order: 20 },
);
