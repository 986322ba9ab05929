import { graphlib, layout } from "@dagrejs/dagre";
import { type Child, h, s, truncate } from "./dom.ts";

export interface DiagramNode {
  id: string;
  /** First line, in bold (cut to fit). */
  title: string;
  /** Further lines (cut to fit). */
  lines?: readonly string[];
  /** Full text, shown as the tooltip and read by assistive technology. */
  description: string;
  className?: string;
}

export interface DiagramEdge {
  from: string;
  to: string;
  label?: string;
  className?: string;
}

export interface DiagramOptions {
  nodes: readonly DiagramNode[];
  edges: readonly DiagramEdge[];
  /** Accessible name of the picture, e.g. "Graph of 12 thoughts". */
  label: string;
  direction?: "TB" | "LR";
  nodeWidth?: number;
}

let diagramCount = 0;
const lineHeight = 16;
const characterWidth = 6.6;

/**
 * Lays a graph out with dagre (deterministic: same nodes and edges in the
 * same order give the same picture) and draws it as SVG. Every node is a
 * `g.node[data-node-id]`, every edge a `path.edge[data-from][data-to]`.
 */
export function drawDiagram(options: DiagramOptions): SVGSVGElement {
  const width = options.nodeWidth ?? 200;
  const maxCharacters = Math.floor((width - 16) / characterWidth);
  const graph = new graphlib.Graph({ multigraph: true });
  graph.setGraph({ rankdir: options.direction ?? "TB", nodesep: 24, ranksep: 44, edgesep: 12, marginx: 12, marginy: 12 });
  graph.setDefaultEdgeLabel(() => ({}));
  const known = new Set<string>();
  for (const node of options.nodes) {
    known.add(node.id);
    const height = 14 + lineHeight * (1 + (node.lines?.length ?? 0));
    graph.setNode(node.id, { width, height });
  }
  const edges = options.edges.filter((edge) => known.has(edge.from) && known.has(edge.to));
  edges.forEach((edge, index) => {
    const labelled = edge.label !== undefined && edge.label !== "";
    graph.setEdge(edge.from, edge.to, labelled ? { label: edge.label, width: Math.min(160, edge.label!.length * characterWidth + 8), height: 16, labelpos: "c" } : {}, `e${index}`);
  });
  layout(graph);

  const size = graph.graph() as { width?: number; height?: number };
  const totalWidth = Math.ceil(size.width ?? 100);
  const totalHeight = Math.ceil(size.height ?? 100);
  diagramCount += 1;
  const markerId = `arrow-${diagramCount}`;
  const svg = s("svg", {
    // Small diagrams scale down to fit the page; large ones keep their size and scroll.
    class: options.nodes.length <= 40 ? "diagram fit" : "diagram",
    width: totalWidth,
    height: totalHeight,
    viewBox: `0 0 ${totalWidth} ${totalHeight}`,
    role: "img",
    "aria-label": options.label,
  });
  svg.append(
    s(
      "defs",
      {},
      s("marker", { id: markerId, viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 9, markerHeight: 9, markerUnits: "userSpaceOnUse", orient: "auto-start-reverse" }, s("path", { d: "M0,0 L10,5 L0,10 z", class: "arrow-head" })),
    ),
  );
  const edgeLayer = s("g", { class: "edges" });
  // Labels go above every edge, so no line crosses a label.
  const labelLayer = s("g", { class: "edge-labels" });
  edges.forEach((edge, index) => {
    const laid = graph.edge(edge.from, edge.to, `e${index}`) as { points?: Array<{ x: number; y: number }>; x?: number; y?: number } | undefined;
    const points = laid?.points ?? [];
    if (points.length === 0) return;
    const d = points.map((point, position) => `${position === 0 ? "M" : "L"}${point.x.toFixed(1)},${point.y.toFixed(1)}`).join(" ");
    edgeLayer.append(
      s("path", { d, class: `edge ${edge.className ?? ""}`.trim(), "data-from": edge.from, "data-to": edge.to, "marker-end": `url(#${markerId})` }),
    );
    if (edge.label && laid?.x !== undefined && laid.y !== undefined) {
      labelLayer.append(s("text", { x: laid.x.toFixed(1), y: (laid.y + 4).toFixed(1), class: `edge-label ${edge.className ?? ""}`.trim(), "text-anchor": "middle" }, truncate(edge.label, 26)));
    }
  });
  svg.append(edgeLayer, labelLayer);
  const nodeLayer = s("g", { class: "nodes" });
  for (const node of options.nodes) {
    const laid = graph.node(node.id) as { x: number; y: number; width: number; height: number };
    const left = laid.x - laid.width / 2;
    const top = laid.y - laid.height / 2;
    const group = s("g", { class: `node ${node.className ?? ""}`.trim(), "data-node-id": node.id, transform: `translate(${left.toFixed(1)},${top.toFixed(1)})` });
    group.append(s("title", {}, node.description));
    group.append(s("rect", { width: laid.width, height: laid.height, rx: 6, ry: 6 }));
    const text = s("text", { x: 8, y: 4 + lineHeight, class: "node-text" });
    text.append(s("tspan", { x: 8, class: "node-title" }, truncate(node.title, maxCharacters)));
    for (const line of node.lines ?? []) text.append(s("tspan", { x: 8, dy: lineHeight, class: "node-line" }, truncate(line, maxCharacters)));
    group.append(text);
    nodeLayer.append(group);
  }
  svg.append(nodeLayer);
  return svg;
}

/** A scrollable frame for a diagram, with a legend. */
export function diagramFrame(svg: SVGSVGElement, legend: ReadonlyArray<readonly [string, string]> = []): HTMLElement {
  return h(
    "figure",
    { class: "diagram-figure" },
    h("div", { class: "diagram-scroll", tabindex: 0, role: "region", "aria-label": svg.getAttribute("aria-label") ?? "diagram" }, svg),
    legend.length > 0
      ? h(
          "figcaption",
          { class: "legend" },
          legend.map(([className, label]) => h("span", { class: "legend-item" }, h("span", { class: `swatch ${className}`, "aria-hidden": "true" }), label)),
        )
      : null,
  );
}

/**
 * The node cap: how many items of `total` to show, with "show more" and "show
 * all" buttons that raise the count kept in the view's state.
 */
export function nodeCap(options: { total: number; state: Map<string, unknown>; key: string; step: number; noun: string; rerender: () => void }): { shown: number; control: Child } {
  const stored = options.state.get(options.key);
  const shown = Math.min(options.total, typeof stored === "number" ? stored : options.step);
  if (shown >= options.total) return { shown, control: null };
  const more = Math.min(options.step, options.total - shown);
  const control = h(
    "div",
    { class: "cap", role: "group", "aria-label": `${options.noun} shown` },
    h("span", { class: "cap-text" }, `Showing ${shown.toLocaleString("en")} of ${options.total.toLocaleString("en")} ${options.noun}.`),
    h(
      "button",
      {
        type: "button",
        class: "show-more",
        onclick: () => {
          options.state.set(options.key, shown + options.step);
          options.rerender();
        },
      },
      `Show ${more.toLocaleString("en")} more`,
    ),
    h(
      "button",
      {
        type: "button",
        class: "show-all",
        onclick: () => {
          options.state.set(options.key, options.total);
          options.rerender();
        },
      },
      "Show all",
    ),
  );
  return { shown, control };
}
