import { DeliberateError } from "@deliberate/contracts";
import { reservePositions } from "@deliberate/store";
import type { DatabaseExecutor } from "../tables.ts";
import { parseJsonObject } from "@deliberate/store";
import type { MctsNodeRow } from "../tables/mcts-node.table.ts";
import { chunks } from "@deliberate/store";

/** One node of a stored Monte Carlo search tree. */
export interface MctsNode {
  id: string;
  session_id: string;
  root_id: string;
  parent_id: string | null;
  position: number;
  depth: number;
  content: string;
  visits: number;
  total_value: number;
  evaluation: number | null;
  is_terminal: boolean;
  metadata: Record<string, unknown>;
  created_at: string;
  updated_at: string;
}

export type NewMctsNode = Omit<MctsNode, "position" | "created_at" | "updated_at">;

/** Statistics the search changed on an already stored node. */
/**
 * What one search added to a stored node. Statistics are applied as increments,
 * so two searches over the same tree at once both count (neither overwrites the other).
 */
export interface MctsNodeUpdate {
  id: string;
  visits_added: number;
  value_added: number;
  evaluation: number | null;
  is_terminal: boolean;
}

const rowsPerStatement = 400;

function toNode(row: MctsNodeRow): MctsNode {
  return { ...row, is_terminal: row.is_terminal === 1, metadata: parseJsonObject(row.metadata, `mcts node ${row.id}`) };
}

/** Monte Carlo search trees, stored once per search (one transaction). */
export function createMctsRepository(db: DatabaseExecutor) {
  return {
    /** Appends nodes in order after the session's existing ones. Call inside a transaction. */
    async insertNodes(sessionId: string, nodes: readonly NewMctsNode[], now: string): Promise<void> {
      if (nodes.length === 0) return;
      let position = await reservePositions(
        db,
        {
          scope: "mcts_nodes",
          key: sessionId,
          table: "mcts_nodes",
          keyColumn: "session_id",
          positionColumn: "position",
        },
        nodes.length,
      );
      const rows: MctsNodeRow[] = nodes.map((node) => {
        if (node.session_id !== sessionId) throw new Error("insertNodes: all nodes must belong to the given session");
        return {
          ...node,
          position: position++,
          is_terminal: node.is_terminal ? 1 : 0,
          metadata: JSON.stringify(node.metadata),
          created_at: now,
          updated_at: now,
        };
      });
      for (const slice of chunks(rows, rowsPerStatement)) await db.insertInto("mcts_nodes").values(slice).execute();
    },

    async updateNodes(updates: readonly MctsNodeUpdate[], now: string): Promise<void> {
      for (const update of updates) {
        await db
          .updateTable("mcts_nodes")
          .set((expression) => ({
            visits: expression("visits", "+", update.visits_added),
            total_value: expression("total_value", "+", update.value_added),
            evaluation: update.evaluation,
            is_terminal: update.is_terminal ? 1 : 0,
            updated_at: now,
          }))
          .where("id", "=", update.id)
          .execute();
      }
    },

    /** A node of the session, or NOT_FOUND naming node_id. */
    async getNode(sessionId: string, id: string): Promise<MctsNode> {
      const row = await db
        .selectFrom("mcts_nodes")
        .selectAll()
        .where("id", "=", id)
        .where("session_id", "=", sessionId)
        .executeTakeFirst();
      if (!row) {
        throw new DeliberateError({
          code: "NOT_FOUND",
          message: `MCTS node not found in session ${sessionId}: ${id}`,
          issues: [{ field: "node_id", message: `no search node '${id}' in session '${sessionId}'` }],
          hint: "Pass a node_id from an earlier reasoning_mcts explore result (root_node_id or a best_path node) in the same session.",
        });
      }
      return toNode(row);
    },

    /** Every node of one search tree, in insertion order (parents before children). */
    async listTree(rootId: string): Promise<MctsNode[]> {
      const rows = await db
        .selectFrom("mcts_nodes")
        .selectAll()
        .where("root_id", "=", rootId)
        .orderBy("position", "asc")
        .execute();
      return rows.map(toNode);
    },

    async listBySession(sessionId: string): Promise<MctsNode[]> {
      const rows = await db
        .selectFrom("mcts_nodes")
        .selectAll()
        .where("session_id", "=", sessionId)
        .orderBy("position", "asc")
        .execute();
      return rows.map(toNode);
    },
  };
}
export type MctsRepository = ReturnType<typeof createMctsRepository>;
