import { type Kysely, sql } from "kysely";
import type { Database } from "./database.ts";
import { latencyBucket } from "./latency-bucket.ts";

/**
 * Recomputes `invocation_rollups` and `invocation_latency_buckets` from the
 * invocation rows, in one transaction (the caller's, when in one). Rows
 * written through the repository keep both up to date; this is for rows that
 * arrived another way (an import, a restored backup, a migration).
 */
export async function rebuildInvocationRollups(db: Kysely<Database>): Promise<void> {
  if (!db.isTransaction) {
    await db.transaction().execute((transaction) => rebuildInvocationRollups(transaction));
    return;
  }
  await db.deleteFrom("invocation_rollups").execute();
  await db.deleteFrom("invocation_latency_buckets").execute();
  await sql`
    insert into invocation_rollups (tool, operation, provider, success, error_code, calls, latency_ms_total, model_calls, input_tokens, output_tokens)
    select tool, coalesce(operation, ''), coalesce(provider, ''), success, coalesce(error_code, ''),
           count(*), sum(latency_ms), sum(model_calls), sum(input_tokens), sum(output_tokens)
    from invocations
    group by tool, coalesce(operation, ''), coalesce(provider, ''), success, coalesce(error_code, '')`.execute(db);
  // Buckets are computed in code (the function new rows use), from each (tool, operation, latency) once.
  const buckets = new Map<
    string,
    { tool: string; operation: string; bucket: number; calls: number; min_latency_ms: number }
  >();
  const page = 50_000;
  for (let after = ""; ; ) {
    const rows = await db
      .selectFrom("invocations")
      .select(["id", "tool", "operation", "latency_ms"])
      .where("id", ">", after)
      .orderBy("id")
      .limit(page)
      .execute();
    for (const row of rows) {
      const latency = Number(row.latency_ms);
      const bucket = latencyBucket(latency);
      const key = `${row.tool}\u0000${row.operation ?? ""}\u0000${bucket}`;
      const entry = buckets.get(key);
      if (entry === undefined)
        buckets.set(key, { tool: row.tool, operation: row.operation ?? "", bucket, calls: 1, min_latency_ms: latency });
      else {
        entry.calls += 1;
        if (latency < entry.min_latency_ms) entry.min_latency_ms = latency;
      }
    }
    if (rows.length < page) break;
    after = rows.at(-1)?.id ?? after;
  }
  const entries = [...buckets.values()];
  for (let start = 0; start < entries.length; start += 100) {
    await db
      .insertInto("invocation_latency_buckets")
      .values(entries.slice(start, start + 100))
      .execute();
  }
}
