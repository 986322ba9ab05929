import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import type { TestPostgres } from "@deliberate/store/testing/postgres";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Replica, startReplica } from "../src/index.ts";
import { runPostgres } from "./support/postgres.ts";

// `pnpm --filter <service> deploy --prod <dir>` yields a folder that runs on its own:
// both services deployed outside the workspace, started from there on Postgres.

const run = promisify(execFile);
const workspace = fileURLToPath(new URL("../../..", import.meta.url));
const directory = mkdtempSync(join(tmpdir(), "deliberate-deploy-"));
let postgres: TestPostgres;
const processes: Replica[] = [];

beforeAll(async () => {
  postgres = runPostgres();
});

afterAll(async () => {
  await Promise.all(processes.map((replica) => replica.kill()));
  rmSync(directory, { recursive: true, force: true });
});

// The README's command. The two settings make pnpm deploy from the workspace lockfile (the folder gets
// the exact versions the workspace tested, with a lockfile of its own) instead of resolving every
// dependency again (the legacy deploy the workspace config falls back to): a third of the CPU.
async function deploy(service: string, target: string): Promise<void> {
  const fromLockfile = ["--config.inject-workspace-packages=true", "--config.force-legacy-deploy=false"];
  await run("pnpm", ["--filter", service, "deploy", "--prod", "--prefer-offline", ...fromLockfile, target], { cwd: workspace, maxBuffer: 16 * 1024 * 1024, env: { ...process.env, CI: "1" } });
}

describe("deployable services", () => {
  it("deploys each service to a folder of its own that starts on Postgres", async () => {
    const api = join(directory, "api");
    const mcp = join(directory, "mcp");
    await Promise.all([deploy("@deliberate/http-api", api), deploy("@deliberate/mcp-server", mcp)]);
    for (const folder of [api, mcp]) {
      expect(existsSync(join(folder, "dist", "main.js"))).toBe(true);
      // Its dependencies live inside the folder, not in the workspace.
      for (const dependency of ["pg", "kysely", "better-sqlite3"]) expect(realpathSync(join(folder, "node_modules", dependency)).startsWith(realpathSync(folder))).toBe(true);
    }
    const databaseUrl = await postgres.createDatabase("deployed");
    const env = { DATABASE_URL: databaseUrl, LOG_LEVEL: "warn" };
    const [apiReplica, mcpReplica] = await Promise.all([
      startReplica({ kind: "api", env, entry: join(api, "dist", "main.js") }),
      startReplica({ kind: "mcp", env, entry: join(mcp, "dist", "main.js") }),
    ]);
    processes.push(apiReplica, mcpReplica);
    const intent = await fetch(`${apiReplica.url}/agent_intent`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ goal_text: "search project for TODOs" }),
    });
    expect(intent.status).toBe(200);
    expect(((await intent.json()) as { status: string }).status).toBe("ok");
    const client = new Client({ name: "deploy-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(mcpReplica.url)));
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain("reasoning_checkpoint");
      const refused = await client.callTool({ name: "reasoning_checkpoint", arguments: { operation: "list", session_id: "missing" } });
      expect(refused.isError).toBe(true);
    } finally {
      await client.close();
    }
  });
});
