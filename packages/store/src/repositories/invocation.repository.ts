import type { Invocation } from "@deliberate/contracts";
import type { DatabaseExecutor } from "../executor.ts";
import type { InvocationRow } from "../tables/invocation.table.ts";

export type NewInvocation = Omit<Invocation, "success"> & {
  success: boolean;
  error_message: string | null;
  /** Rounds the call took (host-executed calls: every replay); default 1. */
  rounds?: number;
};

/** A recorded invocation as read back. */
export type InvocationRecord = Invocation & { error_message: string | null; rounds: number };

export interface InvocationFilter {
  tool?: string;
  sessionId?: string;
  success?: boolean;
  since?: string;
  limit?: number;
  /** Tools left out entirely (metrics leaves out its own calls). */
  excludeTools?: readonly string[];
}

export interface InvocationAggregateFilter {
  tool?: string;
  sessionId?: string;
  since?: string;
  /** Tools left out entirely (metrics leaves out its own calls). */
  excludeTools?: readonly string[];
}

/** One group of invocation rows with its totals. */
export interface InvocationAggregate {
  tool: string;
  operation: string | null;
  provider: string | null;
  success: boolean;
  error_code: string | null;
  calls: number;
  latency_ms_total: number;
  model_calls: number;
  input_tokens: number;
  output_tokens: number;
}

function toInvocation(row: InvocationRow): InvocationRecord {
  const { success, ...rest } = row;
  return { ...rest, success: success === 1 };
}

/** One row per tool call; metrics and self-improvement read these. */
export function createInvocationRepository(db: DatabaseExecutor) {
  return {
    async record(input: NewInvocation): Promise<void> {
      await db
        .insertInto("invocations")
        .values({ ...input, success: input.success ? 1 : 0 })
        .execute();
    },

    /** Newest first. */
    async list(filter: InvocationFilter = {}): Promise<InvocationRecord[]> {
      let query = db.selectFrom("invocations").selectAll();
      if (filter.tool !== undefined) query = query.where("tool", "=", filter.tool);
      if (filter.sessionId !== undefined) query = query.where("session_id", "=", filter.sessionId);
      if (filter.success !== undefined) query = query.where("success", "=", filter.success ? 1 : 0);
      if (filter.since !== undefined) query = query.where("created_at", ">=", filter.since);
      if (filter.excludeTools !== undefined && filter.excludeTools.length > 0) query = query.where("tool", "not in", [...filter.excludeTools]);
      const rows = await query.orderBy("created_at", "desc").orderBy("id", "desc").limit(filter.limit ?? 1000).execute();
      return rows.map(toInvocation);
    },

    /** Totals grouped by tool, operation, provider, outcome and error code (what metrics aggregate). */
    async aggregate(filter: InvocationAggregateFilter = {}): Promise<InvocationAggregate[]> {
      const rows = await db
        .selectFrom("invocations")
        .select((eb) => [
          "tool",
          "operation",
          "provider",
          "success",
          "error_code",
          eb.fn.countAll<number>().as("calls"),
          eb.fn.sum<number>("latency_ms").as("latency_ms_total"),
          eb.fn.sum<number>("model_calls").as("model_calls"),
          eb.fn.sum<number>("input_tokens").as("input_tokens"),
          eb.fn.sum<number>("output_tokens").as("output_tokens"),
        ])
        .$if(filter.tool !== undefined, (query) => query.where("tool", "=", filter.tool as string))
        .$if(filter.sessionId !== undefined, (query) => query.where("session_id", "=", filter.sessionId as string))
        .$if(filter.since !== undefined, (query) => query.where("created_at", ">=", filter.since as string))
        .$if((filter.excludeTools?.length ?? 0) > 0, (query) => query.where("tool", "not in", [...(filter.excludeTools ?? [])]))
        .groupBy(["tool", "operation", "provider", "success", "error_code"])
        .orderBy("tool")
        .execute();
      // Drivers differ in how they return SUM/COUNT (number, bigint, numeric string).
      return rows.map((row) => ({
        tool: row.tool,
        operation: row.operation,
        provider: row.provider,
        success: row.success === 1,
        error_code: row.error_code,
        calls: Number(row.calls),
        latency_ms_total: Number(row.latency_ms_total),
        model_calls: Number(row.model_calls),
        input_tokens: Number(row.input_tokens),
        output_tokens: Number(row.output_tokens),
      }));
    },

    /** Every matching call's latency, ascending (for percentiles). */
    async latencies(filter: InvocationAggregateFilter = {}): Promise<Array<{ tool: string; operation: string | null; latency_ms: number }>> {
      return db
        .selectFrom("invocations")
        .select(["tool", "operation", "latency_ms"])
        .$if(filter.tool !== undefined, (query) => query.where("tool", "=", filter.tool as string))
        .$if(filter.sessionId !== undefined, (query) => query.where("session_id", "=", filter.sessionId as string))
        .$if(filter.since !== undefined, (query) => query.where("created_at", ">=", filter.since as string))
        .$if((filter.excludeTools?.length ?? 0) > 0, (query) => query.where("tool", "not in", [...(filter.excludeTools ?? [])]))
        .orderBy("latency_ms")
        .execute();
    },
  };
}
export type InvocationRepository = ReturnType<typeof createInvocationRepository>;
