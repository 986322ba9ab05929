import { sql } from "kysely";
import type { InvocationSample } from "../../types.ts";
import type { DatabaseExecutor } from "../tables.ts";

function toSample(row: {
  id: string;
  tool: string;
  operation: string | null;
  success: number;
  error_code: string | null;
  error_message: string | null;
  latency_ms: number;
  quality: number | null;
  model_calls: number;
  created_at: string;
  started_at: string;
}): InvocationSample {
  return {
    ...row,
    success: Number(row.success) === 1,
    latency_ms: Number(row.latency_ms),
    quality: row.quality === null ? null : Number(row.quality),
    model_calls: Number(row.model_calls),
  };
}

/** The invocation rows the monitor and learner read, attributed by when each call started. */
export function createInvocationSampleRepository(db: DatabaseExecutor) {
  const startedAt = sql<string>`coalesce(started_at, created_at)`;
  const selectSamples = () =>
    db
      .selectFrom("invocations")
      .select([
        "id",
        "tool",
        "operation",
        "success",
        "error_code",
        "error_message",
        "latency_ms",
        "quality",
        "model_calls",
        "created_at",
      ])
      .select(startedAt.as("started_at"));
  return {
    /**
     * Rows of calls started at or after `since`, oldest first by start; at most
     * `limit`, the newest kept. A row without a start (written without one) starts at its finish.
     */
    async since(input: { since: string; limit: number; tools?: readonly string[] }): Promise<InvocationSample[]> {
      // A call that started at `since` finished no earlier: the (tool, created_at) index narrows, the start decides.
      let query = selectSamples().where("created_at", ">=", input.since).where(startedAt, ">=", input.since);
      if (input.tools !== undefined)
        query = query.where("tool", "in", input.tools.length > 0 ? [...input.tools] : [""]);
      const rows = await query.orderBy(startedAt, "desc").orderBy("id", "desc").limit(input.limit).execute();
      return rows.reverse().map(toSample);
    },
    /**
     * Rows of `tools` whose calls STARTED in [from, to), oldest first: the last `limit`
     * before `to`, or the first `limit` from `from` (`take`). A call is attributed to
     * the settings in force when it started, not when it finished.
     */
    async between(input: {
      tools: readonly string[];
      from: string;
      to?: string;
      limit: number;
      take: "first" | "last";
    }): Promise<InvocationSample[]> {
      let query = selectSamples()
        .where("tool", "in", input.tools.length > 0 ? [...input.tools] : [""])
        .where("created_at", ">=", input.from)
        .where(startedAt, ">=", input.from);
      if (input.to !== undefined) query = query.where(startedAt, "<", input.to);
      const direction = input.take === "first" ? "asc" : "desc";
      const rows = await query.orderBy(startedAt, direction).orderBy("id", direction).limit(input.limit).execute();
      const ordered = input.take === "first" ? rows : rows.reverse();
      return ordered.map(toSample);
    },
  };
}
