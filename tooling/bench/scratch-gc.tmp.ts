import { mkdtempSync } from "node:fs"; import { tmpdir } from "node:os"; import { join } from "node:path";
import { createEngine, hostModelRouter } from "@deliberate/engine";
import { defaultInvocationBatch, openStore } from "@deliberate/store";
import { reasoningModule } from "@deliberate/reasoning";
const decision = { type: "weighted", question: "Which database?", options: ["SQLite", "Postgres", "DuckDB"], criteria: [{ name: "cost", weight: 0.5, direction: "cost" }, { name: "scale", weight: 0.3 }, { name: "ops", weight: 0.2 }], scores: [[1, 5, 9], [6, 9, 5], [2, 6, 7]] };
async function make(groupCommit: boolean) {
  const store = await openStore({ path: join(mkdtempSync(join(tmpdir(), "gc-")), "db.sqlite"), modules: [reasoningModule], invocationBatch: defaultInvocationBatch, groupCommit });
  if (process.env["FULL"]) await (await import("kysely")).sql`pragma synchronous = FULL`.execute(store.db);
  const engine = createEngine({ store, modules: [reasoningModule], models: hostModelRouter });
  return { store, engine };
}
(globalThis as any).__sizes = [];
const on = await make(true), off = await make(false);
async function run(engine: any, n: number, concurrency = 50) {
  const t = performance.now(); let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => { while (next < n) { next++; await engine.invoke("reasoning_decision", decision); } }));
  return ((performance.now() - t) * 1000) / n;
}
await run(on.engine, 300); await run(off.engine, 300);
for (let r = 0; r < 5; r++) console.log(`group on ${(await run(on.engine, 1500)).toFixed(0)} us/call  off ${(await run(off.engine, 1500)).toFixed(0)} us/call`);
{ const z = (globalThis as any).__sizes as number[]; console.log("groups", z.length, "mean size", (z.reduce((a, b) => a + b, 0) / z.length).toFixed(2), "max", Math.max(...z)); }
await on.store.close(); await off.store.close();
