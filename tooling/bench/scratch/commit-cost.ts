import { openStore } from "@deliberate/store";
import { sql } from "kysely";
import { rmSync, statSync } from "node:fs";
for (const [autocheckpoint, drop] of [[1000, ""], [1000, "invocations_tool_latency"], [1000, "both"]] as const) {
  rmSync("/tmp/perf/cc", { recursive: true, force: true });
  const store = await openStore({ path: "/tmp/perf/cc/db.sqlite" });
  await sql.raw(`pragma wal_autocheckpoint = ${autocheckpoint}`).execute(store.db);
  if (drop === "invocations_tool_latency") await sql.raw("drop index invocations_tool_latency").execute(store.db);
  if (drop === "both") { await sql.raw("drop index invocations_tool_latency").execute(store.db); await sql.raw("drop index invocations_tool_operation_latency").execute(store.db); }
  let n = 0;
  const row = () => ({ id: `inv_${Date.now().toString(36)}${String(n++).padStart(8, "0")}`, tool: "reasoning_checkpoint", operation: "list", session_id: "ses_x", provider: null, model: null, input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0, model_calls: 0, latency_ms: 0.3 + Math.random(), success: true, error_code: null, error_message: null, quality: null, created_at: new Date().toISOString() });
  const t = performance.now();
  for (let b = 0; b < 400; b++) await store.invocations.recordMany(Array.from({ length: 16 }, row));
  const ms = (performance.now() - t) / 400;
  console.log(`drop ${drop || "none"}: ${ms.toFixed(2)} ms per 16-row batch; wal ${(statSync("/tmp/perf/cc/db.sqlite-wal").size / 1024).toFixed(0)} KiB`);
  await store.close();
}
