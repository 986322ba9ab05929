import { mermaidLabel, type SessionRecord, type SessionSection, tableCell } from "@deliberate/engine";
import type { Branch } from "./store/repositories/branch.repository.ts";
import type { Checkpoint } from "./store/repositories/checkpoint.repository.ts";
import type { Graph, GraphEdge, GraphNode } from "./store/repositories/graph.repository.ts";
import type { MctsNode } from "./store/repositories/mcts.repository.ts";
import type { Timeline, TimelineBranch } from "./store/repositories/timeline.repository.ts";
import type { ReasoningRepositories } from "./store/contribution.ts";

type Section = SessionSection<ReasoningRepositories>;

/** Tree branches (always present, possibly empty). */
const branchesSection: Section = {
  name: "branches",
  read: (store, sessionId) => store.branches.listBySession(sessionId),
  markdown(data) {
    const branches = data as Branch[];
    if (branches.length === 0) return "";
    const lines = ["## Branches", "", "| id | parent | status | score | content |", "|---|---|---|---|---|"];
    for (const branch of branches) {
      lines.push(
        `| ${branch.id} | ${branch.parent_branch_id ?? "—"} | ${branch.status} | ${branch.score} | ${tableCell(branch.content)} |`,
      );
    }
    return lines.join("\n");
  },
  mermaid(data, node) {
    return (data as Branch[]).flatMap((branch) => [
      `  ${node(branch.id)}{{"${mermaidLabel(`${branch.status} ${branch.score}: ${branch.content}`)}"}}`,
      ...(branch.parent_branch_id ? [`  ${node(branch.parent_branch_id)} -.-> ${node(branch.id)}`] : []),
    ]);
  },
};

interface GraphSection {
  graph: Graph;
  nodes: GraphNode[];
  edges: GraphEdge[];
}

/** The session's graph of thoughts, when it has one. */
const graphSection: Section = {
  name: "graph",
  async read(store, sessionId) {
    const graph = await store.graphs.findGraph(sessionId);
    if (!graph) return undefined;
    const [nodes, edges] = await Promise.all([store.graphs.listNodes(sessionId), store.graphs.listEdges(sessionId)]);
    return { graph, nodes, edges } satisfies GraphSection;
  },
  markdown(data) {
    const { graph, nodes } = data as GraphSection;
    const lines = [
      `## Graph of thoughts`,
      "",
      `Root ${graph.root_node_id}; ${nodes.length} nodes (limits: ${graph.max_nodes} nodes, depth ${graph.max_depth}).`,
      "",
    ];
    lines.push("| id | parent | kind | depth | score | status | content |", "|---|---|---|---|---|---|---|");
    for (const node of nodes) {
      lines.push(
        `| ${node.id} | ${node.parent_id ?? "—"} | ${node.kind} | ${node.depth} | ${node.score ?? "—"} | ${node.status}${node.is_terminal ? ", terminal" : ""} | ${tableCell(node.content)} |`,
      );
    }
    return lines.join("\n");
  },
  mermaid(data, node) {
    const { nodes, edges } = data as GraphSection;
    return [
      ...nodes.map(
        (graphNode) =>
          `  ${node(graphNode.id)}(["${mermaidLabel(`${graphNode.kind} ${graphNode.score ?? "?"}: ${graphNode.content}`)}"])`,
      ),
      ...edges.map((edge) => `  ${node(edge.from_node_id)} -->|${edge.kind}| ${node(edge.to_node_id)}`),
    ];
  },
};

type TimelineWithBranches = Timeline & { branches: TimelineBranch[] };

/** The session's timelines with their branches, when it has any. */
const timelinesSection: Section = {
  name: "timelines",
  async read(store, sessionId) {
    const timelines = await store.timelines.listBySession(sessionId);
    if (timelines.length === 0) return undefined;
    return Promise.all(
      timelines.map(async (timeline) => ({ ...timeline, branches: await store.timelines.listBranches(timeline.id) })),
    );
  },
  markdown(data) {
    const lines: string[] = [];
    for (const timeline of data as TimelineWithBranches[]) {
      if (lines.length > 0) lines.push("");
      lines.push(`## Timeline ${timeline.id}`, "", `Current branch: ${timeline.current_branch_id}`, "");
      for (const branch of timeline.branches) {
        const merged = branch.merged_into_id ? ` → merged into ${branch.merged_into_id}` : "";
        lines.push(`- **${branch.label}** (${branch.id}, ${branch.status}${merged}): ${tableCell(branch.content)}`);
      }
    }
    return lines.join("\n");
  },
};

/** The session's Monte Carlo search nodes, when it has any. */
const searchNodesSection: Section = {
  name: "search_nodes",
  async read(store, sessionId) {
    const nodes = await store.mcts.listBySession(sessionId);
    return nodes.length > 0 ? nodes : undefined;
  },
  markdown(data) {
    const lines = [
      "## Search tree (MCTS)",
      "",
      "| id | parent | depth | visits | mean value | content |",
      "|---|---|---|---|---|---|",
    ];
    for (const node of data as MctsNode[]) {
      const mean = node.visits > 0 ? (node.total_value / node.visits).toFixed(3) : "—";
      lines.push(
        `| ${node.id} | ${node.parent_id ?? "—"} | ${node.depth} | ${node.visits} | ${mean} | ${tableCell(node.content)} |`,
      );
    }
    return lines.join("\n");
  },
  mermaid(data, node) {
    return (data as MctsNode[]).flatMap((searchNode) => [
      `  ${node(searchNode.id)}[/"${mermaidLabel(`${searchNode.visits} visits: ${searchNode.content}`)}"/]`,
      ...(searchNode.parent_id ? [`  ${node(searchNode.parent_id)} --> ${node(searchNode.id)}`] : []),
    ]);
  },
};

/** Checkpoints (always present, possibly empty). */
const checkpointsSection: Section = {
  name: "checkpoints",
  read: (store, sessionId) => store.checkpoints.listBySession(sessionId),
  markdown(data) {
    const checkpoints = data as Checkpoint[];
    if (checkpoints.length === 0) return "";
    const lines = ["## Checkpoints", ""];
    for (const checkpoint of checkpoints) {
      lines.push(
        `- **${checkpoint.name}** (${checkpoint.id}, ${checkpoint.created_at}): ${checkpoint.thought_count} thoughts${checkpoint.description ? ` — ${checkpoint.description}` : ""}`,
      );
    }
    return lines.join("\n");
  },
};

/** How reasoning records appear in session exports, resources and the viewer, in this order. */
export const reasoningSessionSections: readonly Section[] = [
  branchesSection,
  graphSection,
  timelinesSection,
  searchNodesSection,
  checkpointsSection,
];

/** A session record with the reasoning sections typed (what `engine.readSession` returns for a reasoning session). */
export type ReasoningSessionRecord = SessionRecord & {
  branches: Branch[];
  checkpoints: Checkpoint[];
  graph?: GraphSection;
  timelines?: TimelineWithBranches[];
  search_nodes?: MctsNode[];
};
