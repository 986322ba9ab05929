import type { Invocation } from "@deliberate/contracts";
import type { DatabaseExecutor } from "../executor.ts";
import type { InvocationRow } from "../tables/invocation.table.ts";
import type { InvocationRollupRow } from "../tables/invocation-rollup.table.ts";
import { type DirectSqlite, markTransactionDirect, runSqliteTransactionNow } from "../direct-sqlite.ts";
import { latencyBucket } from "../latency-bucket.ts";
import { preparedInsert } from "../prepared-insert.ts";

export type NewInvocation = Omit<Invocation, "success"> & {
  success: boolean;
  error_message: string | null;
  /** Rounds the call took (host-executed calls: every replay); default 1. */
  rounds?: number;
  /** When the call started (its first round); default: `created_at` less `latency_ms`. */
  started_at?: string;
};

/** A recorded invocation as read back. */
export type InvocationRecord = Invocation & { error_message: string | null; rounds: number; started_at: string | null };

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

/** The rollup key of a row: '' stands for "none" so the key matches on every dialect. */
function rollupKey(input: NewInvocation) {
  return {
    tool: input.tool,
    operation: input.operation ?? "",
    provider: input.provider ?? "",
    success: input.success ? 1 : 0,
    error_code: input.error_code ?? "",
  };
}

const invocationColumns = [
  "id",
  "tool",
  "operation",
  "session_id",
  "provider",
  "model",
  "input_tokens",
  "output_tokens",
  "cache_read_tokens",
  "cache_write_tokens",
  "model_calls",
  "latency_ms",
  "rounds",
  "success",
  "error_code",
  "error_message",
  "quality",
  "created_at",
  "started_at",
] as const;

// The three statements a batch runs, each compiled once per dialect and row count (see preparedInsert).
const insertInvocations = preparedInsert(
  invocationColumns,
  (db: DatabaseExecutor, rows) => db.insertInto("invocations").values(rows as never),
  50,
);

const insertLatencyBuckets = preparedInsert(
  ["tool", "operation", "bucket", "calls", "min_latency_ms"] as const,
  (db: DatabaseExecutor, rows) =>
    db
      .insertInto("invocation_latency_buckets")
      .values(rows as never)
      .onConflict((conflict) =>
        conflict.columns(["tool", "operation", "bucket"]).doUpdateSet((eb) => ({
          calls: eb("invocation_latency_buckets.calls", "+", eb.ref("excluded.calls")),
          // CASE rather than min()/least(): the same on every dialect.
          min_latency_ms: eb
            .case()
            .when("excluded.min_latency_ms", "<", eb.ref("invocation_latency_buckets.min_latency_ms"))
            .then(eb.ref("excluded.min_latency_ms"))
            .else(eb.ref("invocation_latency_buckets.min_latency_ms"))
            .end(),
        })),
      ),
  100,
);

const insertRollups = preparedInsert(
  [
    "tool",
    "operation",
    "provider",
    "success",
    "error_code",
    "calls",
    "latency_ms_total",
    "model_calls",
    "input_tokens",
    "output_tokens",
  ] as const,
  (db: DatabaseExecutor, rows) =>
    db
      .insertInto("invocation_rollups")
      .values(rows as never)
      .onConflict((conflict) =>
        conflict.columns(["tool", "operation", "provider", "success", "error_code"]).doUpdateSet((eb) => ({
          calls: eb("invocation_rollups.calls", "+", eb.ref("excluded.calls")),
          latency_ms_total: eb("invocation_rollups.latency_ms_total", "+", eb.ref("excluded.latency_ms_total")),
          model_calls: eb("invocation_rollups.model_calls", "+", eb.ref("excluded.model_calls")),
          input_tokens: eb("invocation_rollups.input_tokens", "+", eb.ref("excluded.input_tokens")),
          output_tokens: eb("invocation_rollups.output_tokens", "+", eb.ref("excluded.output_tokens")),
        })),
      ),
  100,
);

/** A row's start when the writer gave none: its finish less its latency. */
function startOf(input: NewInvocation): string {
  const finished = Date.parse(input.created_at);
  return Number.isFinite(finished)
    ? new Date(finished - Math.max(0, Math.round(input.latency_ms))).toISOString()
    : input.created_at;
}

/** The three statements' rows for a batch: the invocation rows, their groups' totals, their histogram buckets. */
interface BatchRows {
  invocations: Array<Record<(typeof invocationColumns)[number], unknown>>;
  rollups: InvocationRollupRow[];
  buckets: Array<{ tool: string; operation: string; bucket: number; calls: number; min_latency_ms: number }>;
}

/**
 * What a batch writes: its rows, and one rollup per group and one histogram
 * row per bucket with the batch's totals (summed here, so a batch of 16 rows
 * of one tool makes one upsert of each, not 16).
 */
function batchRows(inputs: readonly NewInvocation[]): BatchRows {
  const invocations: BatchRows["invocations"] = [];
  const groups = new Map<string, InvocationRollupRow>();
  const buckets = new Map<string, BatchRows["buckets"][number]>();
  for (const input of inputs) {
    // `rounds` left out is the column's default, 1.
    invocations.push({
      ...input,
      success: input.success ? 1 : 0,
      rounds: input.rounds ?? 1,
      started_at: input.started_at ?? startOf(input),
    });
    const key = rollupKey(input);
    const id = JSON.stringify([key.tool, key.operation, key.provider, key.success, key.error_code]);
    let group = groups.get(id);
    if (group === undefined) {
      group = { ...key, calls: 0, latency_ms_total: 0, model_calls: 0, input_tokens: 0, output_tokens: 0 };
      groups.set(id, group);
    }
    group.calls = Number(group.calls) + 1;
    group.latency_ms_total += input.latency_ms;
    group.model_calls = Number(group.model_calls) + input.model_calls;
    group.input_tokens = Number(group.input_tokens) + input.input_tokens;
    group.output_tokens = Number(group.output_tokens) + input.output_tokens;
    const bucket = latencyBucket(input.latency_ms);
    const bucketId = JSON.stringify([key.tool, key.operation, bucket]);
    const entry = buckets.get(bucketId);
    if (entry === undefined)
      buckets.set(bucketId, {
        tool: key.tool,
        operation: key.operation,
        bucket,
        calls: 1,
        min_latency_ms: input.latency_ms,
      });
    else {
      entry.calls += 1;
      entry.min_latency_ms = Math.min(entry.min_latency_ms, input.latency_ms);
    }
  }
  return { invocations, rollups: [...groups.values()], buckets: [...buckets.values()] };
}

/** Inserts the rows and adds them to their groups' totals, in one transaction (the caller's, when in one). */
async function insertWithRollups(db: DatabaseExecutor, inputs: readonly NewInvocation[]): Promise<void> {
  if (!db.isTransaction) {
    // On SQLite with the connection free: one synchronous transaction, no kysely machinery (else through kysely).
    if (runSqliteTransactionNow(db, (sqlite) => insertWithRollupsNow(db, sqlite, inputs))) return;
    await db.transaction().execute((transaction) => {
      // The rows, rollups and histogram upserts run as prepared statements on SQLite.
      markTransactionDirect(db, transaction);
      return insertWithRollups(transaction, inputs);
    });
    return;
  }
  const rows = batchRows(inputs);
  await insertInvocations(db, rows.invocations);
  // One statement per table (rows are unique per key, so a multi-row upsert is valid on every dialect).
  await insertLatencyBuckets(db, rows.buckets);
  await insertRollups(db, rows.rollups);
}

/**
 * {@link insertWithRollups}' statements run at once on a SQLite connection the
 * caller holds in a transaction (`db`: a handle of the same dialect, to compile them with).
 */
export function insertWithRollupsNow(
  db: DatabaseExecutor,
  sqlite: DirectSqlite,
  inputs: readonly NewInvocation[],
): void {
  const rows = batchRows(inputs);
  insertInvocations.now(db, sqlite, rows.invocations);
  insertLatencyBuckets.now(db, sqlite, rows.buckets);
  insertRollups.now(db, sqlite, rows.rollups);
}

/**
 * For each 1-based `rank`, the histogram bucket of one tool's calls (one
 * operation's, when given) that holds the call of that rank by latency: its
 * smallest latency and how many calls the buckets below hold; undefined past
 * the last call. One query for all the ranks.
 */
async function bucketsHolding(
  db: DatabaseExecutor,
  tool: string,
  operation: string | null | undefined,
  ranks: readonly number[],
): Promise<Array<{ bucket: number; minLatencyMs: number; callsBelow: number } | undefined>> {
  // Buckets of the tool's operations merged, with running totals; a rank's bucket is the first reaching it.
  const merged = db
    .selectFrom("invocation_latency_buckets")
    .where("tool", "=", tool)
    .$if(operation !== undefined, (query) => query.where("operation", "=", operation ?? ""))
    .select((eb) => [
      "bucket",
      eb.fn.min("min_latency_ms").as("min_latency_ms"),
      eb.fn.sum<number>("calls").as("calls"),
    ])
    .groupBy("bucket");
  const running = db.selectFrom(merged.as("merged")).select((eb) => [
    "bucket",
    "min_latency_ms",
    "calls",
    eb.fn
      .sum<number>("calls")
      .over((over) => over.orderBy("bucket"))
      .as("through"),
  ]);
  const rows = await db
    .selectFrom(running.as("running"))
    .select(["bucket", "min_latency_ms", "calls", "through"])
    .where((eb) =>
      eb.or(
        ranks.map((rank) => eb.and([eb("through", ">=", rank), eb(eb("through", "-", eb.ref("calls")), "<", rank)])),
      ),
    )
    .orderBy("through")
    .execute();
  return ranks.map((rank) => {
    const row = rows.find(
      (candidate) => Number(candidate.through) >= rank && Number(candidate.through) - Number(candidate.calls) < rank,
    );
    return row === undefined
      ? undefined
      : {
          bucket: Number(row.bucket),
          minLatencyMs: Number(row.min_latency_ms),
          callsBelow: Number(row.through) - Number(row.calls),
        };
  });
}

type SelectInvocations = ReturnType<typeof selectLatencies>;
function selectLatencies(db: DatabaseExecutor) {
  return db.selectFrom("invocations").select("latency_ms");
}

/** One row per tool call; metrics and self-improvement read these. */
export function createInvocationRepository(db: DatabaseExecutor) {
  return {
    /**
     * Writes the rows still held by a batching store (`openStore({ invocationBatch })`);
     * here, where every row is written when recorded, nothing. Code that reads the
     * `invocations` table itself (not through this repository) calls it first.
     */
    async flush(): Promise<void> {},

    /** One row, with its group's totals, in one transaction. */
    async record(input: NewInvocation): Promise<void> {
      await insertWithRollups(db, [input]);
    },

    /** Several rows and their groups' totals in one transaction (one statement per slice of rows). */
    async recordMany(inputs: readonly NewInvocation[]): Promise<void> {
      if (inputs.length > 0) await insertWithRollups(db, inputs);
    },

    /** Newest first. */
    async list(filter: InvocationFilter = {}): Promise<InvocationRecord[]> {
      let query = db.selectFrom("invocations").selectAll();
      if (filter.tool !== undefined) query = query.where("tool", "=", filter.tool);
      if (filter.sessionId !== undefined) query = query.where("session_id", "=", filter.sessionId);
      if (filter.success !== undefined) query = query.where("success", "=", filter.success ? 1 : 0);
      if (filter.since !== undefined) query = query.where("created_at", ">=", filter.since);
      if (filter.excludeTools !== undefined && filter.excludeTools.length > 0)
        query = query.where("tool", "not in", [...filter.excludeTools]);
      const rows = await query
        .orderBy("created_at", "desc")
        .orderBy("id", "desc")
        .limit(filter.limit ?? 1000)
        .execute();
      return rows.map(toInvocation);
    },

    /**
     * Totals grouped by tool, operation, provider, outcome and error code (what
     * metrics aggregate). With no session or time filter they come from the
     * rollups kept with the rows (no scan); otherwise from the rows themselves.
     */
    async aggregate(filter: InvocationAggregateFilter = {}): Promise<InvocationAggregate[]> {
      if (filter.sessionId === undefined && filter.since === undefined) {
        const rollups = await db
          .selectFrom("invocation_rollups")
          .selectAll()
          .$if(filter.tool !== undefined, (query) => query.where("tool", "=", filter.tool as string))
          .$if((filter.excludeTools?.length ?? 0) > 0, (query) =>
            query.where("tool", "not in", [...(filter.excludeTools ?? [])]),
          )
          .orderBy("tool")
          .execute();
        return rollups.map((row) => ({
          tool: row.tool,
          operation: row.operation === "" ? null : row.operation,
          provider: row.provider === "" ? null : row.provider,
          success: Number(row.success) === 1,
          error_code: row.error_code === "" ? null : row.error_code,
          calls: Number(row.calls),
          latency_ms_total: Number(row.latency_ms_total),
          model_calls: Number(row.model_calls),
          input_tokens: Number(row.input_tokens),
          output_tokens: Number(row.output_tokens),
        }));
      }
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
        .$if((filter.excludeTools?.length ?? 0) > 0, (query) =>
          query.where("tool", "not in", [...(filter.excludeTools ?? [])]),
        )
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

    /**
     * The latencies at the given 1-based ranks (ascending) among one tool's
     * matching calls, or one operation's of it (`operation: null` for calls
     * without one); a rank past the last call gives null. With no session or
     * time filter, the latency histogram names the bucket holding the rank
     * and the row is read from an index on (tool[, operation], latency_ms)
     * starting at that bucket's smallest latency, so only the bucket's rows
     * are stepped over; otherwise the matching rows are read in latency order
     * up to the rank.
     */
    async latencyAtRanks(
      filter: InvocationAggregateFilter & { tool: string; operation?: string | null },
      ranks: readonly number[],
    ): Promise<Array<number | null>> {
      const wanted = ranks.map((rank) => Math.max(1, rank));
      const byOperation = (query: SelectInvocations) =>
        filter.operation === undefined
          ? query
          : filter.operation === null
            ? query.where("operation", "is", null)
            : query.where("operation", "=", filter.operation);
      if (filter.sessionId !== undefined || filter.since !== undefined) {
        // Filtered: the matching rows in latency order, up to the rank.
        return Promise.all(
          wanted.map(async (rank) => {
            const row = await byOperation(
              db.selectFrom("invocations").select("latency_ms").where("tool", "=", filter.tool),
            )
              .$if(filter.sessionId !== undefined, (query) =>
                query.where("session_id", "=", filter.sessionId as string),
              )
              .$if(filter.since !== undefined, (query) => query.where("created_at", ">=", filter.since as string))
              .orderBy("latency_ms")
              .limit(1)
              .offset(rank - 1)
              .executeTakeFirst();
            return row === undefined ? null : Number(row.latency_ms);
          }),
        );
      }
      const located = await bucketsHolding(db, filter.tool, filter.operation, wanted);
      return Promise.all(
        wanted.map(async (rank, index) => {
          const bucket = located[index];
          if (bucket === undefined) return null;
          const within = rank - 1 - bucket.callsBelow;
          if (filter.operation !== undefined) {
            // One operation: its rows from the bucket's smallest latency on, read from (tool, operation, latency_ms).
            const row = await byOperation(
              db.selectFrom("invocations").select("latency_ms").where("tool", "=", filter.tool),
            )
              .where("latency_ms", ">=", bucket.minLatencyMs)
              .orderBy("latency_ms")
              .limit(1)
              .offset(within)
              .executeTakeFirst();
            return row === undefined ? null : Number(row.latency_ms);
          }
          // The whole tool: the bucket's rows of each operation (the first `calls` from that operation's
          // smallest latency in the bucket), merged; only the bucket's rows are read.
          const parts = await db
            .selectFrom("invocation_latency_buckets")
            .select(["operation", "calls", "min_latency_ms"])
            .where("tool", "=", filter.tool)
            .where("bucket", "=", bucket.bucket)
            .execute();
          const latencies = (
            await Promise.all(
              parts.map((part) =>
                db
                  .selectFrom("invocations")
                  .select("latency_ms")
                  .where("tool", "=", filter.tool)
                  .$call((query) =>
                    part.operation === ""
                      ? query.where("operation", "is", null)
                      : query.where("operation", "=", part.operation),
                  )
                  .where("latency_ms", ">=", Number(part.min_latency_ms))
                  .orderBy("latency_ms")
                  .limit(Number(part.calls))
                  .execute(),
              ),
            )
          )
            .flat()
            .map((row) => Number(row.latency_ms))
            .sort((a, b) => a - b);
          return latencies[within] ?? null;
        }),
      );
    },

    /** Every matching call's latency, ascending (for percentiles). */
    async latencies(
      filter: InvocationAggregateFilter = {},
    ): Promise<Array<{ tool: string; operation: string | null; latency_ms: number }>> {
      return db
        .selectFrom("invocations")
        .select(["tool", "operation", "latency_ms"])
        .$if(filter.tool !== undefined, (query) => query.where("tool", "=", filter.tool as string))
        .$if(filter.sessionId !== undefined, (query) => query.where("session_id", "=", filter.sessionId as string))
        .$if(filter.since !== undefined, (query) => query.where("created_at", ">=", filter.since as string))
        .$if((filter.excludeTools?.length ?? 0) > 0, (query) =>
          query.where("tool", "not in", [...(filter.excludeTools ?? [])]),
        )
        .orderBy("latency_ms")
        .execute();
    },
  };
}
export type InvocationRepository = ReturnType<typeof createInvocationRepository>;
