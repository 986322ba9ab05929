import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { dialogModule } from "@deliberate/dialog";
import { createEngine, type DeliberateModule, exportSession, type SessionRecord } from "@deliberate/engine";
import { pageSessionRecord } from "@deliberate/contracts";
import { createModelRouterFromModel } from "@deliberate/providers";
import { createScriptedModel } from "@deliberate/providers/testing";
import { type ReasoningRepositories, reasoningModule } from "@deliberate/reasoning";
import { openStore } from "@deliberate/store";
import { sql } from "kysely";
import { summarize } from "./statistics.ts";

const directory = mkdtempSync(join(tmpdir(), "before-"));
const modules = [reasoningModule, dialogModule as DeliberateModule];
const store = await openStore<ReasoningRepositories>({ path: join(directory, "s.db"), modules });
const engine = createEngine({ store, modules, models: createModelRouterFromModel(createScriptedModel([])) });
const now = new Date().toISOString();
for (const [id, n] of [["s10k", 10_000], ["s100k", 100_000]] as const) {
  await store.sessions.create({ id, mode: "linear", now });
  await sql`with recursive counter(n) as (select 0 union all select n + 1 from counter where n < ${n - 1})
    insert into thoughts (id, session_id, position, branch_id, parent_id, mode, content, confidence, status, metadata, created_at)
    select ${id} || '_th_' || n, ${id}, n, null, case when n = 0 then null else ${id} || '_th_' || (n - 1) end, 'linear',
      'Step ' || n || ': weigh the cache hit rate against the invalidation cost for tier ' || (n % 7) || '.', 0.5 + (n % 5) / 10.0, 'active', '{}', ${now} from counter`.execute(store.db);
}
async function time(work: () => Promise<unknown>, runs = 10) { const t: number[] = []; for (let i = 0; i <= runs; i++) { const s = performance.now(); await work(); if (i > 0) t.push(performance.now() - s); } return summarize(t); }
const windowed = await time(async () => {
  let out = "";
  for (let offset = 0; offset < 10_000; offset += 1000) {
    const record = await engine.readSession("s10k");
    const { page, ...w } = pageSessionRecord(record, { offset, limit: 1000 });
    out += exportSession(w as SessionRecord, "markdown", engine.sections);
  }
  return out.length;
});
console.log("10k markdown via 10 windowed reads (in process)", windowed);
console.log("10k markdown whole read+render", await time(async () => exportSession(await engine.readSession("s10k"), "markdown", engine.sections).length));
console.log("page 9900-10000 of 100k", await time(async () => pageSessionRecord(await engine.readSession("s100k"), { offset: 9900, limit: 100 })));
const gc = (globalThis as { gc?: () => void }).gc;
for (const id of ["s10k", "s100k"]) {
  gc?.(); const before = process.memoryUsage();
  let peakHeap = before.heapUsed, peakRss = before.rss;
  const text = exportSession(await engine.readSession(id), "markdown", engine.sections);
  const after = process.memoryUsage(); peakHeap = Math.max(peakHeap, after.heapUsed); peakRss = Math.max(peakRss, after.rss);
  console.log(id, "text MB", (text.length / 1e6).toFixed(1), "heap delta MB", ((peakHeap - before.heapUsed) / 1e6).toFixed(1), "rss delta MB", ((peakRss - before.rss) / 1e6).toFixed(1));
}
await store.close();
rmSync(directory, { recursive: true, force: true });
