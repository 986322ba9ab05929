// Cold start as CPU, not wall time: the CPU (user + system, every thread) a server has spent when its
// `initialize` answer arrives, read from /proc (Linux). On a machine shared with other work, wall-clock
// cold starts swing with the load (the stdio section's (b) ratio moved between 0.69x and 1.30x from run
// to run at a load of 5-15), while the CPU a start spends does not. Starts alternate between the servers.
//
//   pnpm --filter @deliberate/bench exec tsx src/cold-start-cpu.ts [starts]
//
// Compares the built MCP server (services/mcp-server/dist/main.js) with the official sequential-thinking
// server and a bare MCP SDK v2 server, as the stdio section's (b) does.

import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { serverPath } from "./stdio-bench.ts";

const require = createRequire(import.meta.url);
const servers = {
  deliberate: serverPath,
  peer: join(
    require.resolve("@modelcontextprotocol/server-sequential-thinking/package.json"),
    "..",
    "dist",
    "index.js",
  ),
  bare: fileURLToPath(new URL("./baseline-server.mjs", import.meta.url)),
};

/** Clock ticks per second of /proc's utime and stime (USER_HZ, 100 on Linux). */
const ticksPerSecond = 100;

/** Milliseconds of CPU the process has used so far. */
function cpuMilliseconds(pid: number): number {
  // Fields after the command name (which may hold spaces) start at the state, field 3: utime is 14, stime 15.
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond;
}

/** Spawns `script`, asks `initialize`, and returns the CPU it had spent when the answer came. */
async function cpuToInitialize(script: string, env: Record<string, string>): Promise<number> {
  const child = spawn(process.execPath, [script], { env, stdio: ["pipe", "pipe", "ignore"] });
  const initialize = {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "bench", version: "0" } },
  };
  child.stdin.write(`${JSON.stringify(initialize)}\n`);
  await new Promise<void>((resolve, reject) => {
    let received = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      received += chunk;
      if (received.includes('"id":1')) resolve();
    });
    child.on("exit", (code) => reject(new Error(`${script} exited (${code}) before answering initialize`)));
  });
  const spent = cpuMilliseconds(child.pid as number);
  child.stdin.end();
  await new Promise((resolve) => child.once("exit", resolve));
  return spent;
}

async function main(): Promise<void> {
  const starts = Number(process.argv[2] ?? 30);
  const directory = await mkdtemp(join(tmpdir(), "deliberate-cold-cpu-"));
  const path = { PATH: process.env["PATH"] ?? "" };
  const envs = {
    deliberate: { ...path, LOG_LEVEL: "warn", DATABASE_PATH: join(directory, "cold.db") },
    peer: path,
    bare: path,
  };
  const spent: Record<keyof typeof servers, number[]> = { deliberate: [], peer: [], bare: [] };
  try {
    // One start each first: the server writes its V8 code cache on its first run.
    for (const name of Object.keys(servers) as Array<keyof typeof servers>)
      await cpuToInitialize(servers[name], envs[name]);
    for (let index = 0; index < starts; index += 1)
      for (const name of Object.keys(servers) as Array<keyof typeof servers>)
        spent[name].push(await cpuToInitialize(servers[name], envs[name]));
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
  const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
  console.log(`(b-cpu) CPU from spawn to the initialize answer, mean of ${starts} starts each (ms)`);
  for (const name of Object.keys(spent) as Array<keyof typeof servers>)
    console.log(`  ${name.padEnd(11)} ${mean(spent[name]).toFixed(1).padStart(7)}`);
  console.log(`  / peer      ${(mean(spent.deliberate) / mean(spent.peer)).toFixed(2)}x`);
}

await main();
