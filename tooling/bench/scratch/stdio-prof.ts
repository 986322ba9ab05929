// Scratch: drive N checkpoint-list calls against a server script (optionally with node flags), report p50.
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { createFakeModelServer } from "@deliberate/providers/testing";
const [script, calls = "2000", ...nodeArgs] = process.argv.slice(2);
const fake = await createFakeModelServer({ respond: { object: { content: "The next step.", confidence: 0.8, next_step: "Check it." } } });
const client = new Client({ name: "p", version: "1" });
await client.connect(new StdioClientTransport({ command: process.execPath, args: [...nodeArgs, script!], env: { PATH: process.env.PATH ?? "", DATABASE_PATH: "/tmp/perf/stdio.db", LOG_LEVEL: "warn", OPENAI_BASE_URL: fake.openaiBaseURL, OPENAI_API_KEY: "x" }, stderr: "inherit" }));
const seeded = await client.callTool({ name: "reasoning_linear", arguments: { content: "Seed." } });
const sessionId = (seeded.structuredContent as { session_id: string }).session_id;
await client.callTool({ name: "reasoning_checkpoint", arguments: { operation: "create", session_id: sessionId, name: "b" } });
const times: number[] = [];
for (let i = 0; i < Number(calls); i++) {
  const t = performance.now();
  const r = await client.callTool({ name: "reasoning_checkpoint", arguments: { operation: "list", session_id: sessionId } });
  if (r.isError) throw new Error(JSON.stringify(r.content));
  times.push(performance.now() - t);
}
times.sort((a, b) => a - b);
console.log(`p50 ${times[Math.floor(times.length / 2)]!.toFixed(3)} p95 ${times[Math.floor(times.length * 0.95)]!.toFixed(3)}`);
await client.close();
await fake.close();
