import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { formatExportBench, runExportBench } from "./export-bench.ts";
import { formatFanOutBench, runFanOutBench } from "./fan-out-bench.ts";
import { formatHttpBench, runHttpBench } from "./http-bench.ts";
import { benchGraph, benchMcts } from "./issue3-bench.ts";
import { formatKeylessEconomyBench, runKeylessEconomyBench } from "./keyless-economy-bench.ts";
import { runKnowledgeGraphBench } from "./knowledge-graph-bench.ts";
import { formatReplicaBench, runReplicaBench } from "./replicas-bench.ts";
import { formatScaleBench, runScaleBench } from "./scale-bench.ts";
import { formatStdioBench, runStdioBench } from "./stdio-bench.ts";

// Every figure of issue 17 (and issue 3's), measured side by side in one run:
//   (a) per call over stdio and (b) cold start: the built MCP server against the
//       official sequential-thinking server (peer) and a bare MCP SDK v2 server (bare);
//   (c) MCTS and (d) a 10,000-node graph, in process;
//   (e) fan-out at a fixed fake model latency against the critical path;
//   (k) the knowledge-graph module's deductive closure (issue 12);
//   (h) the built HTTP API against a bare node:http JSON server (autocannon);
//   (r) the HTTP API on SQLite and on Postgres with 1 and 2 replicas;
//   (s) scale: a 10,000-thought export, metrics over 1,000,000 invocation rows;
//   (x) export (issue 30; also run with s): the whole session streamed over HTTP and MCP, a page of a
//       100,000-thought session, memory at 10k vs 100k thoughts, each against a bare better-sqlite3 baseline;
//   (v) the viewer's page of a 2,000-node graph in Chromium (packages/viewer's bench).
//   (y) keyless economy: rounds and prompt/answer bytes a host with no API key handles per call (issue 30).
// Run with `pnpm bench` at the root (it builds the services first). BENCH_ONLY=a,h,...
// runs some sections (a and b are one section: stdio).

const only = new Set((process.env["BENCH_ONLY"] ?? "").split(",").filter((name) => name !== ""));
const wanted = (name: string) => only.size === 0 || only.has(name);

/** The viewer's own bench, in its package (it builds its browser assets first); its output verbatim. */
async function viewerBench(): Promise<string> {
  const root = fileURLToPath(new URL("../../../", import.meta.url));
  const child = spawn("pnpm", ["--silent", "--filter", "@deliberate/viewer", "bench"], {
    cwd: root,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, RUNS: process.env["RUNS"] ?? "7" },
  });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
  const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
  return `(v) ${code === 0 ? output.trim() : `viewer bench failed (exit ${code}):\n${output.trim()}`}`;
}

const directory = mkdtempSync(join(tmpdir(), "deliberate-bench-"));
try {
  const started = performance.now();
  process.stdout.write(`Node ${process.version}; every ratio is deliberate / baseline, both measured in this run\n\n`);
  if (wanted("stdio")) process.stdout.write(`${formatStdioBench(await runStdioBench({ directory }))}\n\n`);
  if (wanted("c")) process.stdout.write(`${await benchMcts()}\n\n`);
  if (wanted("d")) process.stdout.write(`${await benchGraph()}\n\n`);
  if (wanted("e")) process.stdout.write(`${formatFanOutBench(await runFanOutBench())}\n\n`);
  if (wanted("k")) process.stdout.write(`${await runKnowledgeGraphBench()}\n\n`);
  if (wanted("h")) process.stdout.write(`${formatHttpBench(await runHttpBench())}\n\n`);
  if (wanted("r")) process.stdout.write(`${formatReplicaBench(await runReplicaBench())}\n\n`);
  if (wanted("s")) process.stdout.write(`${formatScaleBench(await runScaleBench())}\n\n`);
  if (wanted("s") || wanted("x")) process.stdout.write(`${formatExportBench(await runExportBench())}\n\n`);
  if (wanted("v")) process.stdout.write(`${await viewerBench()}\n\n`);
  if (wanted("y")) process.stdout.write(`${formatKeylessEconomyBench(await runKeylessEconomyBench())}\n\n`);
  process.stdout.write(`total ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
} finally {
  rmSync(directory, { recursive: true, force: true });
}
