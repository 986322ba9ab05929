import { createApiService } from "./src/service.ts";
import { parseApiEnvironment } from "./src/config.ts";
import { rmSync } from "node:fs";
rmSync("/tmp/perf/inproc", { recursive: true, force: true });
const config = parseApiEnvironment({ DATABASE_PATH: "/tmp/perf/inproc/db.sqlite", LOG_LEVEL: "warn", REASONING_API_RATE_LIMIT: "0" });
const service = await createApiService({ config });
const body = JSON.stringify({ session_id: "s1", persona: {}, goal_text: "search project for TODOs" });
const path = process.argv[2] ?? "/agent_intent";
async function run(n: number) {
  const t = performance.now();
  for (let i = 0; i < n; i++) {
    const r = await service.app.request(path, { method: "POST", body, headers: { "content-type": "application/json" } });
    if (r.status !== 200) throw new Error(`${r.status} ${await r.text()}`);
    await r.text();
  }
  return ((performance.now() - t) * 1000) / n;
}
await run(2000);
console.log(`${path}: ${(await run(5000)).toFixed(1)} us/request`);
await service.stop();
