import { DeliberateError } from "@deliberate/contracts";
import { sql } from "kysely";
import { reservePositions } from "@deliberate/store";
import type { DatabaseExecutor } from "../tables.ts";
import { parseJsonObject } from "@deliberate/store";
import type { GraphEdgeRow } from "../tables/graph-edge.table.ts";
import type { GraphNodeRow } from "../tables/graph-node.table.ts";
import type { GraphRow } from "../tables/graph.table.ts";
import { chunks } from "@deliberate/store";

export type GraphNodeKind = "root" | "continuation" | "aggregation" | "refinement";
export type GraphEdgeKind = "continuation" | "aggregation" | "refinement";
export type GraphNodeStatus = "active" | "pruned";

/** A session's Graph-of-Thoughts: its root and stored limits. */
export interface Graph {
  session_id: string;
  root_node_id: string;
  problem: string | null;
  max_nodes: number;
  max_depth: number;
  prune_threshold: number;
  created_at: string;
  updated_at: string;
}

export interface GraphNode {
  id: string;
  session_id: string;
  position: number;
  parent_id: string | null;
  kind: GraphNodeKind;
  content: string;
  depth: number;
  score: number | null;
  criteria: Record<string, number> | null;
  status: GraphNodeStatus;
  is_terminal: boolean;
  metadata: Record<string, unknown>;
  created_at: string;
  updated_at: string;
}

export interface NewGraphNode {
  id: string;
  session_id: string;
  parent_id: string | null;
  kind: GraphNodeKind;
  content: string;
  depth: number;
  score?: number | null;
  criteria?: Record<string, number> | null;
  metadata?: Record<string, unknown>;
}

export interface GraphEdge {
  id: string;
  session_id: string;
  from_node_id: string;
  to_node_id: string;
  kind: GraphEdgeKind;
  created_at: string;
}

/** Counts computed by the database, so a 10,000-node graph is never loaded to count it. */
export interface GraphStats {
  total_nodes: number;
  active_nodes: number;
  pruned_count: number;
  terminal_count: number;
  unscored_count: number;
  /** Deepest active node (0 when only the root is active). */
  max_depth: number;
  /** Edges whose two ends are both active, by kind. */
  edges: Record<GraphEdgeKind, number>;
}

// Rows per INSERT / ids per IN list: well under every dialect's parameter limit.
const rowsPerStatement = 400;

function toNode(row: GraphNodeRow): GraphNode {
  return {
    id: row.id,
    session_id: row.session_id,
    position: row.position,
    parent_id: row.parent_id,
    kind: row.kind as GraphNodeKind,
    content: row.content,
    depth: row.depth,
    score: row.score,
    criteria:
      row.criteria === null
        ? null
        : (parseJsonObject(row.criteria, `graph node ${row.id} criteria`) as Record<string, number>),
    status: row.status === "pruned" ? "pruned" : "active",
    is_terminal: row.is_terminal === 1,
    metadata: parseJsonObject(row.metadata, `graph node ${row.id}`),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

function toEdge(row: GraphEdgeRow): GraphEdge {
  return { ...row, kind: row.kind as GraphEdgeKind };
}

function nodeNotFound(sessionId: string, id: string, field: string): DeliberateError {
  return new DeliberateError({
    code: "NOT_FOUND",
    message: `Graph node not found in session ${sessionId}: ${id}`,
    issues: [{ field, message: `no graph node '${id}' in session '${sessionId}'` }],
    hint: "Call reasoning_graph with operation 'state' to see the graph's node ids.",
  });
}

/** Graph-of-Thoughts: the graph record, its nodes and typed edges. */
export function createGraphRepository(db: DatabaseExecutor) {
  return {
    async createGraph(input: Omit<Graph, "created_at" | "updated_at"> & { now: string }): Promise<Graph> {
      const row: GraphRow = {
        session_id: input.session_id,
        root_node_id: input.root_node_id,
        problem: input.problem,
        max_nodes: input.max_nodes,
        max_depth: input.max_depth,
        prune_threshold: input.prune_threshold,
        created_at: input.now,
        updated_at: input.now,
      };
      await db.insertInto("graphs").values(row).execute();
      return { ...row };
    },

    async findGraph(sessionId: string): Promise<Graph | undefined> {
      const row = await db.selectFrom("graphs").selectAll().where("session_id", "=", sessionId).executeTakeFirst();
      return row ? { ...row } : undefined;
    },

    /** The session's graph, or NOT_FOUND naming session_id. */
    async getGraph(sessionId: string): Promise<Graph> {
      const graph = await this.findGraph(sessionId);
      if (!graph) {
        throw new DeliberateError({
          code: "NOT_FOUND",
          message: `Session ${sessionId} has no graph.`,
          issues: [{ field: "session_id", message: `session '${sessionId}' has no graph` }],
          hint: "Call reasoning_graph with operation 'init' first (with this session_id, or without one to start a new session).",
        });
      }
      return graph;
    },

    async touchGraph(input: { sessionId: string; now: string }): Promise<void> {
      await db.updateTable("graphs").set({ updated_at: input.now }).where("session_id", "=", input.sessionId).execute();
    },

    /** Appends nodes in order after the session's existing ones. Call inside a transaction. */
    async insertNodes(nodes: readonly NewGraphNode[], now: string): Promise<GraphNode[]> {
      if (nodes.length === 0) return [];
      const sessionId = (nodes[0] as NewGraphNode).session_id;
      if (nodes.some((node) => node.session_id !== sessionId))
        throw new Error("insertNodes: all nodes must belong to one session");
      let position = await reservePositions(
        db,
        {
          scope: "graph_nodes",
          key: sessionId,
          table: "graph_nodes",
          keyColumn: "session_id",
          positionColumn: "position",
        },
        nodes.length,
      );
      const rows: GraphNodeRow[] = nodes.map((node) => ({
        id: node.id,
        session_id: node.session_id,
        position: position++,
        parent_id: node.parent_id,
        kind: node.kind,
        content: node.content,
        depth: node.depth,
        score: node.score ?? null,
        criteria: node.criteria ? JSON.stringify(node.criteria) : null,
        status: "active",
        is_terminal: 0,
        metadata: JSON.stringify(node.metadata ?? {}),
        created_at: now,
        updated_at: now,
      }));
      for (const slice of chunks(rows, rowsPerStatement)) await db.insertInto("graph_nodes").values(slice).execute();
      return rows.map(toNode);
    },

    async insertEdges(edges: ReadonlyArray<Omit<GraphEdge, "created_at">>, now: string): Promise<void> {
      const rows: GraphEdgeRow[] = edges.map((edge) => ({ ...edge, created_at: now }));
      for (const slice of chunks(rows, rowsPerStatement)) await db.insertInto("graph_edges").values(slice).execute();
    },

    /** One node of the session, or NOT_FOUND naming `field` (default `node_id`). */
    async getNode(sessionId: string, id: string, field = "node_id"): Promise<GraphNode> {
      const row = await db
        .selectFrom("graph_nodes")
        .selectAll()
        .where("id", "=", id)
        .where("session_id", "=", sessionId)
        .executeTakeFirst();
      if (!row) throw nodeNotFound(sessionId, id, field);
      return toNode(row);
    },

    /** The given nodes in the given order, or NOT_FOUND naming the first missing one as `field.index`. */
    async getNodes(sessionId: string, ids: readonly string[], field: string): Promise<GraphNode[]> {
      const found = new Map<string, GraphNode>();
      for (const slice of chunks(ids, rowsPerStatement)) {
        const rows = await db
          .selectFrom("graph_nodes")
          .selectAll()
          .where("session_id", "=", sessionId)
          .where("id", "in", slice)
          .execute();
        for (const row of rows) found.set(row.id, toNode(row));
      }
      return ids.map((id, index) => {
        const node = found.get(id);
        if (!node) throw nodeNotFound(sessionId, id, `${field}.${index}`);
        return node;
      });
    },

    /** Nodes of the session in insertion order; `status` filters, `limit` bounds. */
    async listNodes(
      sessionId: string,
      options: { status?: GraphNodeStatus; limit?: number; offset?: number; orderBy?: "position" | "depth" } = {},
    ): Promise<GraphNode[]> {
      let query = db.selectFrom("graph_nodes").selectAll().where("session_id", "=", sessionId);
      if (options.status !== undefined) query = query.where("status", "=", options.status);
      if (options.orderBy === "depth") query = query.orderBy("depth", "asc");
      query = query.orderBy("position", "asc");
      if (options.limit !== undefined) query = query.limit(options.limit);
      if (options.offset !== undefined && options.offset > 0) query = query.offset(options.offset);
      const rows = await query.execute();
      return rows.map(toNode);
    },

    /** Edges of the session; with `nodeIds`, only those whose two ends are among them. */
    async listEdges(sessionId: string, options: { nodeIds?: readonly string[] } = {}): Promise<GraphEdge[]> {
      const rows = await db
        .selectFrom("graph_edges")
        .selectAll()
        .where("session_id", "=", sessionId)
        .orderBy("created_at", "asc")
        .orderBy("id", "asc")
        .execute();
      const edges = rows.map(toEdge);
      if (options.nodeIds === undefined) return edges;
      const keep = new Set(options.nodeIds);
      return edges.filter((edge) => keep.has(edge.from_node_id) && keep.has(edge.to_node_id));
    },

    /**
     * Active nodes with no edge to an active node: the frontier that generate
     * expands when no node_id is given. In insertion order.
     */
    async activeLeaves(sessionId: string): Promise<GraphNode[]> {
      const rows = await db
        .selectFrom("graph_nodes as node")
        .selectAll("node")
        .where("node.session_id", "=", sessionId)
        .where("node.status", "=", "active")
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom("graph_edges as edge")
                .innerJoin("graph_nodes as child", "child.id", "edge.to_node_id")
                .select("edge.id")
                .whereRef("edge.from_node_id", "=", "node.id")
                .where("child.status", "=", "active"),
            ),
          ),
        )
        .orderBy("node.position", "asc")
        .execute();
      return rows.map(toNode);
    },

    async countActive(sessionId: string): Promise<number> {
      const row = await db
        .selectFrom("graph_nodes")
        .select((expression) => expression.fn.countAll().as("count"))
        .where("session_id", "=", sessionId)
        .where("status", "=", "active")
        .executeTakeFirstOrThrow();
      return Number(row.count);
    },

    async setScores(
      updates: ReadonlyArray<{ id: string; score: number; criteria: Record<string, number> }>,
      now: string,
    ): Promise<void> {
      for (const update of updates) {
        await db
          .updateTable("graph_nodes")
          .set({ score: update.score, criteria: JSON.stringify(update.criteria), updated_at: now })
          .where("id", "=", update.id)
          .execute();
      }
    },

    async setStatus(ids: readonly string[], status: GraphNodeStatus, now: string): Promise<void> {
      for (const slice of chunks(ids, rowsPerStatement)) {
        await db.updateTable("graph_nodes").set({ status, updated_at: now }).where("id", "in", slice).execute();
      }
    },

    async setTerminal(ids: readonly string[], now: string): Promise<void> {
      for (const slice of chunks(ids, rowsPerStatement)) {
        await db.updateTable("graph_nodes").set({ is_terminal: 1, updated_at: now }).where("id", "in", slice).execute();
      }
    },

    async stats(sessionId: string): Promise<GraphStats> {
      const counts = await db
        .selectFrom("graph_nodes")
        .select([
          sql<number>`count(*)`.as("total"),
          sql<number>`coalesce(sum(case when status = 'active' then 1 else 0 end), 0)`.as("active"),
          sql<number>`coalesce(sum(case when status = 'pruned' then 1 else 0 end), 0)`.as("pruned"),
          sql<number>`coalesce(sum(case when status = 'active' and is_terminal = ${1} then 1 else 0 end), 0)`.as(
            "terminal",
          ),
          sql<number>`coalesce(sum(case when status = 'active' and score is null then 1 else 0 end), 0)`.as("unscored"),
          sql<number>`coalesce(max(case when status = 'active' then depth end), 0)`.as("max_depth"),
        ])
        .where("session_id", "=", sessionId)
        .executeTakeFirstOrThrow();
      const edgeRows = await db
        .selectFrom("graph_edges as edge")
        .innerJoin("graph_nodes as source", "source.id", "edge.from_node_id")
        .innerJoin("graph_nodes as target", "target.id", "edge.to_node_id")
        .select(["edge.kind", sql<number>`count(*)`.as("count")])
        .where("edge.session_id", "=", sessionId)
        .where("source.status", "=", "active")
        .where("target.status", "=", "active")
        .groupBy("edge.kind")
        .execute();
      const edges: Record<GraphEdgeKind, number> = { continuation: 0, aggregation: 0, refinement: 0 };
      for (const row of edgeRows) {
        if (row.kind === "continuation" || row.kind === "aggregation" || row.kind === "refinement")
          edges[row.kind] = Number(row.count);
      }
      return {
        total_nodes: Number(counts.total),
        active_nodes: Number(counts.active),
        pruned_count: Number(counts.pruned),
        terminal_count: Number(counts.terminal),
        unscored_count: Number(counts.unscored),
        max_depth: Number(counts.max_depth),
        edges,
      };
    },
  };
}
export type GraphRepository = ReturnType<typeof createGraphRepository>;
