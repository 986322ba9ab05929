import { createApiService } from "./src/service.ts";
import { parseApiEnvironment } from "./src/config.ts";
import { rmSync } from "node:fs";
rmSync("/tmp/hf/inproc", { recursive: true, force: true });
const config = parseApiEnvironment({ DATABASE_PATH: "/tmp/hf/inproc/db.sqlite", LOG_LEVEL: "warn", REASONING_API_RATE_LIMIT: "0" });
const service = await createApiService({ config });
const which = process.argv[2] ?? "decision";
const decision = { type: "weighted", question: "Which database?", options: ["SQLite", "Postgres", "DuckDB"], criteria: [{ name: "cost", weight: 0.5, direction: "cost" }, { name: "scale", weight: 0.3 }, { name: "ops", weight: 0.2 }], scores: [[1, 5, 9], [6, 9, 5], [2, 6, 7]] };
const seeded = await service.engine.invoke("reasoning_decision", decision);
await service.engine.invoke("reasoning_checkpoint", { operation: "create", session_id: seeded["session_id"], name: "b" });
const signal = new AbortController().signal;
const call = () => which === "decision" ? service.engine.invoke("reasoning_decision", decision, { signal })
  : which === "list" ? service.engine.invoke("reasoning_checkpoint", { operation: "list", session_id: seeded["session_id"] }, { signal })
  : service.decider.decide({ session_id: "s1", persona: {}, goal_text: "search project for TODOs" } as never, { signal, requestId: "r" });
async function run(n: number, concurrency = 50) {
  const t = performance.now();
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => { while (next < n) { next++; await call(); } }));
  return ((performance.now() - t) * 1000) / n;
}
await run(1000);
console.log(`${which}: ${(await run(4000)).toFixed(1)} us/call`);
await service.stop();
