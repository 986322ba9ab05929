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
/** Above this many nodes the fast layered tree layout replaces dagre (whose cost grows much faster). */
export const dagreNodeLimit = 150;

interface Point {
  x: number;
  y: number;
}

interface Layout {
  width: number;
  height: number;
  nodes: Map<string, { x: number; y: number; width: number; height: number }>;
  /** One per edge, in the edges' order (undefined when it could not be routed). */
  edges: Array<{ points: Point[]; label?: Point } | undefined>;
}

function nodeHeight(node: DiagramNode): number {
  return 14 + lineHeight * (1 + (node.lines?.length ?? 0));
}

function dagreLayout(
  nodes: readonly DiagramNode[],
  edges: readonly DiagramEdge[],
  width: number,
  direction: "TB" | "LR",
): Layout {
  const graph = new graphlib.Graph({ multigraph: true });
  graph.setGraph({ rankdir: direction, nodesep: 24, ranksep: 44, edgesep: 12, marginx: 12, marginy: 12 });
  graph.setDefaultEdgeLabel(() => ({}));
  for (const node of nodes) graph.setNode(node.id, { width, height: nodeHeight(node) });
  edges.forEach((edge, index) => {
    const labelled = edge.label !== undefined && edge.label !== "";
    graph.setEdge(
      edge.from,
      edge.to,
      labelled
        ? {
            label: edge.label,
            width: Math.min(160, edge.label!.length * characterWidth + 8),
            height: 16,
            labelpos: "c",
          }
        : {},
      `e${index}`,
    );
  });
  layout(graph);
  const size = graph.graph() as { width?: number; height?: number };
  return {
    width: Math.ceil(size.width ?? 100),
    height: Math.ceil(size.height ?? 100),
    nodes: new Map(
      nodes.map((node) => [node.id, graph.node(node.id) as { x: number; y: number; width: number; height: number }]),
    ),
    edges: edges.map((edge, index) => {
      const laid = graph.edge(edge.from, edge.to, `e${index}`) as
        | { points?: Point[]; x?: number; y?: number }
        | undefined;
      if (!laid?.points || laid.points.length === 0) return undefined;
      return {
        points: laid.points,
        ...(laid.x !== undefined && laid.y !== undefined ? { label: { x: laid.x, y: laid.y } } : {}),
      };
    }),
  };
}

/**
 * A tidy layered tree in linear time, for large graphs: each node's tree
 * parent is the source of its first incoming edge listed earlier; leaves take
 * consecutive slots and a parent is centred over its children. Other edges
 * are drawn over the tree. Deterministic, like dagre.
 */
function tidyLayout(
  nodes: readonly DiagramNode[],
  edges: readonly DiagramEdge[],
  width: number,
  direction: "TB" | "LR",
): Layout {
  const order = new Map(nodes.map((node, index) => [node.id, index]));
  const parentOf = new Map<string, string>();
  for (const edge of edges) {
    if (parentOf.has(edge.to)) continue;
    if ((order.get(edge.from) ?? Number.POSITIVE_INFINITY) < (order.get(edge.to) ?? -1))
      parentOf.set(edge.to, edge.from);
  }
  const children = new Map<string, string[]>();
  const roots: string[] = [];
  for (const node of nodes) {
    const parent = parentOf.get(node.id);
    if (parent === undefined) roots.push(node.id);
    else children.set(parent, [...(children.get(parent) ?? []), node.id]);
  }
  const depth = new Map<string, number>();
  for (const node of nodes)
    depth.set(node.id, parentOf.has(node.id) ? (depth.get(parentOf.get(node.id)!) ?? 0) + 1 : 0);
  const rankHeight = new Map<number, number>();
  for (const node of nodes)
    rankHeight.set(depth.get(node.id)!, Math.max(rankHeight.get(depth.get(node.id)!) ?? 0, nodeHeight(node)));
  const heights = new Map(nodes.map((node) => [node.id, nodeHeight(node)]));
  // Breadth along a rank (x for TB, y for LR) and the gap between ranks.
  const vertical = direction === "TB";
  const slot = vertical ? width + 24 : Math.max(...heights.values(), 30) + 18;
  const rankGap = vertical ? 44 : 60;
  const across = new Map<string, number>();
  let nextSlot = 0;
  // Iterative post-order walk: a parent is placed after its children.
  for (const root of roots) {
    const stack: Array<{ id: string; visited: boolean }> = [{ id: root, visited: false }];
    while (stack.length > 0) {
      const entry = stack.pop()!;
      const kids = children.get(entry.id) ?? [];
      if (!entry.visited && kids.length > 0) {
        stack.push({ id: entry.id, visited: true });
        for (let index = kids.length - 1; index >= 0; index--) stack.push({ id: kids[index]!, visited: false });
        continue;
      }
      if (kids.length === 0) across.set(entry.id, nextSlot++ * slot);
      else across.set(entry.id, (across.get(kids[0]!)! + across.get(kids.at(-1)!)!) / 2);
    }
  }
  const rankStart = new Map<number, number>();
  let offset = 12;
  const ranks = [...rankHeight.keys()].sort((a, b) => a - b);
  for (const rank of ranks) {
    rankStart.set(rank, offset);
    offset += (vertical ? rankHeight.get(rank)! : width) + rankGap;
  }
  const laid = new Map<string, { x: number; y: number; width: number; height: number }>();
  for (const node of nodes) {
    const rank = depth.get(node.id)!;
    const height = heights.get(node.id)!;
    const along = rankStart.get(rank)! + (vertical ? rankHeight.get(rank)! / 2 : width / 2);
    const side = 12 + across.get(node.id)! + (vertical ? width / 2 : slot / 2);
    laid.set(node.id, vertical ? { x: side, y: along, width, height } : { x: along, y: side, width, height });
  }
  const breadth = 12 + nextSlot * slot + 12;
  const length = offset - rankGap + 12;
  return {
    width: Math.ceil(vertical ? breadth : length),
    height: Math.ceil(vertical ? length : breadth),
    nodes: laid,
    edges: edges.map((edge) => {
      const from = laid.get(edge.from)!;
      const to = laid.get(edge.to)!;
      const start = vertical ? { x: from.x, y: from.y + from.height / 2 } : { x: from.x + from.width / 2, y: from.y };
      const end = vertical ? { x: to.x, y: to.y - to.height / 2 } : { x: to.x - to.width / 2, y: to.y };
      const middle = vertical
        ? [
            { x: start.x, y: (start.y + end.y) / 2 },
            { x: end.x, y: (start.y + end.y) / 2 },
          ]
        : [
            { x: (start.x + end.x) / 2, y: start.y },
            { x: (start.x + end.x) / 2, y: end.y },
          ];
      return { points: [start, ...middle, end], label: { x: (start.x + end.x) / 2, y: (start.y + end.y) / 2 } };
    }),
  };
}

/**
 * Lays a graph out (dagre up to `dagreNodeLimit` nodes, a tidy layered tree
 * beyond; both deterministic: the same nodes and edges in the same order give
 * the same picture) and draws it as SVG. Every node is a `g.node[data-node-id]`,
 * every edge a `path.edge[data-from][data-to]`.
 */
export function drawDiagram(options: DiagramOptions): SVGSVGElement {
  const width = options.nodeWidth ?? 200;
  const maxCharacters = Math.floor((width - 16) / characterWidth);
  const known = new Set(options.nodes.map((node) => node.id));
  const edges = options.edges.filter((edge) => known.has(edge.from) && known.has(edge.to));
  const direction = options.direction ?? "TB";
  const laidOut =
    options.nodes.length <= dagreNodeLimit
      ? dagreLayout(options.nodes, edges, width, direction)
      : tidyLayout(options.nodes, edges, width, direction);
  const totalWidth = laidOut.width;
  const totalHeight = laidOut.height;
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
  // A fitted diagram shrinks to the page, but to no less than 70% of its size (then it scrolls).
  if (options.nodes.length <= 40) svg.style.minWidth = `${Math.round(totalWidth * 0.7)}px`;
  // Where a scrolled diagram opens: on its first node (the root).
  const first = options.nodes[0] ? laidOut.nodes.get(options.nodes[0].id) : undefined;
  if (first) {
    svg.dataset["focusX"] = String(Math.round(first.x));
    svg.dataset["focusY"] = String(Math.round(first.y));
  }
  svg.append(
    s(
      "defs",
      {},
      s(
        "marker",
        {
          id: markerId,
          viewBox: "0 0 10 10",
          refX: 9,
          refY: 5,
          markerWidth: 9,
          markerHeight: 9,
          markerUnits: "userSpaceOnUse",
          orient: "auto-start-reverse",
        },
        s("path", { d: "M0,0 L10,5 L0,10 z", class: "arrow-head" }),
      ),
    ),
  );
  const edgeLayer = s("g", { class: "edges" });
  // Labels go above every edge, so no line crosses a label.
  const labelLayer = s("g", { class: "edge-labels" });
  edges.forEach((edge, index) => {
    const route = laidOut.edges[index];
    if (!route) return;
    const d = route.points
      .map((point, position) => `${position === 0 ? "M" : "L"}${point.x.toFixed(1)},${point.y.toFixed(1)}`)
      .join(" ");
    edgeLayer.append(
      s("path", {
        d,
        class: `edge ${edge.className ?? ""}`.trim(),
        "data-from": edge.from,
        "data-to": edge.to,
        "marker-end": `url(#${markerId})`,
      }),
    );
    if (edge.label && route.label) {
      labelLayer.append(
        s(
          "text",
          {
            x: route.label.x.toFixed(1),
            y: (route.label.y + 4).toFixed(1),
            class: `edge-label ${edge.className ?? ""}`.trim(),
            "text-anchor": "middle",
          },
          truncate(edge.label, 26),
        ),
      );
    }
  });
  svg.append(edgeLayer, labelLayer);
  const nodeLayer = s("g", { class: "nodes" });
  for (const node of options.nodes) {
    const laid = laidOut.nodes.get(node.id)!;
    const left = laid.x - laid.width / 2;
    const top = laid.y - laid.height / 2;
    const group = s("g", {
      class: `node ${node.className ?? ""}`.trim(),
      "data-node-id": node.id,
      transform: `translate(${left.toFixed(1)},${top.toFixed(1)})`,
    });
    group.append(s("title", {}, node.description));
    group.append(s("rect", { width: laid.width, height: laid.height, rx: 6, ry: 6 }));
    const text = s("text", { x: 8, y: 4 + lineHeight, class: "node-text" });
    text.append(s("tspan", { x: 8, class: "node-title" }, truncate(node.title, maxCharacters)));
    for (const line of node.lines ?? [])
      text.append(s("tspan", { x: 8, dy: lineHeight, class: "node-line" }, truncate(line, maxCharacters)));
    group.append(text);
    nodeLayer.append(group);
  }
  svg.append(nodeLayer);
  return svg;
}

/** A scrollable frame for a diagram, with a legend. */
export function diagramFrame(svg: SVGSVGElement, legend: ReadonlyArray<readonly [string, string]> = []): HTMLElement {
  const scroller = h(
    "div",
    { class: "diagram-scroll", tabindex: 0, role: "region", "aria-label": svg.getAttribute("aria-label") ?? "diagram" },
    svg,
  );
  // Once on the page, a diagram wider or taller than its frame opens centred on its root.
  requestAnimationFrame(() => {
    const x = Number(svg.dataset["focusX"] ?? 0);
    const y = Number(svg.dataset["focusY"] ?? 0);
    if (scroller.scrollWidth > scroller.clientWidth) scroller.scrollLeft = Math.max(0, x - scroller.clientWidth / 2);
    if (scroller.scrollHeight > scroller.clientHeight) scroller.scrollTop = Math.max(0, y - scroller.clientHeight / 2);
  });
  return h(
    "figure",
    { class: "diagram-figure" },
    scroller,
    legend.length > 0
      ? h(
          "figcaption",
          { class: "legend" },
          legend.map(([className, label]) =>
            h(
              "span",
              { class: "legend-item" },
              h("span", { class: `swatch ${className}`, "aria-hidden": "true" }),
              label,
            ),
          ),
        )
      : null,
  );
}

/**
 * The node cap: how many items of `total` to show, with "show more" and "show
 * all" buttons that raise the count kept in the view's state.
 */
export function nodeCap(options: {
  total: number;
  state: Map<string, unknown>;
  key: string;
  step: number;
  noun: string;
  rerender: () => void;
}): { shown: number; control: Child } {
  const stored = options.state.get(options.key);
  const shown = Math.min(options.total, typeof stored === "number" ? stored : options.step);
  if (shown >= options.total) return { shown, control: null };
  const more = Math.min(options.step, options.total - shown);
  const control = h(
    "div",
    { class: "cap", role: "group", "aria-label": `${options.noun} shown` },
    h(
      "span",
      { class: "cap-text" },
      `Showing ${shown.toLocaleString("en")} of ${options.total.toLocaleString("en")} ${options.noun}.`,
    ),
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
