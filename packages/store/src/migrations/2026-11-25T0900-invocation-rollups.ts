import type { Kysely, Migration } from "kysely";
import { columnTypes } from "../column-types.ts";
import type { Database } from "../database.ts";
import { rebuildInvocationRollups } from "../rebuild-invocation-rollups.ts";

/**
 * Metrics without full scans: `invocation_rollups` keeps the totals of every
 * (tool, operation, provider, outcome, error code) group and
 * `invocation_latency_buckets` a latency histogram per (tool, operation),
 * both updated in the same transaction as the invocation rows (so they always
 * agree); with an index on (tool, operation, latency_ms), a percentile is read
 * by rank within one narrow bucket instead of by sorting every row. Key
 * columns hold '' for "none" so primary keys match on every dialect (NULLs
 * never conflict). Existing rows are rolled up once here.
 */
export const invocationRollups: Migration = {
  async up(db: Kysely<unknown>) {
    const types = columnTypes(db);
    await db.schema
      .createTable("invocation_rollups")
      .addColumn("tool", "text", (column) => column.notNull())
      .addColumn("operation", "text", (column) => column.notNull())
      .addColumn("provider", "text", (column) => column.notNull())
      .addColumn("success", types.boolean, (column) => column.notNull())
      .addColumn("error_code", "text", (column) => column.notNull())
      .addColumn("calls", "bigint", (column) => column.notNull())
      .addColumn("latency_ms_total", "double precision", (column) => column.notNull())
      .addColumn("model_calls", "bigint", (column) => column.notNull())
      .addColumn("input_tokens", "bigint", (column) => column.notNull())
      .addColumn("output_tokens", "bigint", (column) => column.notNull())
      .addPrimaryKeyConstraint("invocation_rollups_pk", ["tool", "operation", "provider", "success", "error_code"])
      .execute();
    await db.schema
      .createTable("invocation_latency_buckets")
      .addColumn("tool", "text", (column) => column.notNull())
      .addColumn("operation", "text", (column) => column.notNull())
      .addColumn("bucket", "integer", (column) => column.notNull())
      .addColumn("calls", "bigint", (column) => column.notNull())
      .addColumn("min_latency_ms", "double precision", (column) => column.notNull())
      .addPrimaryKeyConstraint("invocation_latency_buckets_pk", ["tool", "operation", "bucket"])
      .execute();
    await rebuildInvocationRollups(db as Kysely<Database>);
    await db.schema
      .createIndex("invocations_tool_operation_latency")
      .on("invocations")
      .columns(["tool", "operation", "latency_ms"])
      .execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropIndex("invocations_tool_operation_latency").execute();
    await db.schema.dropTable("invocation_latency_buckets").execute();
    await db.schema.dropTable("invocation_rollups").execute();
  },
};
