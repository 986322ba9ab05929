import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, describe, expect, it } from "vitest";
import { type Replica, startReplica } from "../src/index.ts";

// deliberate-api and deliberate-mcp --http on one SQLite file (the README's
// default deployment of both), each driven by concurrent writers doing the
// read-then-write calls that used to fail with "database is locked":
// reasoning_checkpoint create and reasoning_timeline branch. Nothing may fail
// and every acknowledged write must be there afterwards.
// DELIBERATE_SOAK_MS sets the run's length (the soak: 60000). The suite's default run is 2 s
// of twelve writers at once (CPU-bound while it lasts): a hundred or more contended writes even on a
// loaded machine, where the lock errors used to come within milliseconds.

const durationMs = Number(process.env["DELIBERATE_SOAK_MS"] ?? 2000);
const writersPerService = 6;

const directory = mkdtempSync(join(tmpdir(), "deliberate-shared-sqlite-"));
const processes: Replica[] = [];
let client: Client | undefined;

afterAll(async () => {
  await client?.close().catch(() => undefined);
  await Promise.all(processes.map((replica) => replica.stop()));
  rmSync(directory, { recursive: true, force: true });
});

interface Tally {
  checkpoints: number;
  branches: number;
  failures: string[];
}

describe("two services on one SQLite file", () => {
  it(`answers every concurrent write from both (${durationMs} ms) and keeps each one`, async () => {
    const env = { DATABASE_PATH: join(directory, "shared.db"), LOG_LEVEL: "warn", REASONING_API_RATE_LIMIT: "1000000" };
    // One after the other: the second opens a database the first has migrated, as in a real deployment.
    const api = await startReplica({ kind: "api", env, name: "api" });
    processes.push(api);
    const mcp = await startReplica({ kind: "mcp", env, name: "mcp" });
    processes.push(mcp);
    client = new Client({ name: "shared-sqlite-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(mcp.url)));
    const mcpClient = client;

    const rest = async (tool: string, body: object): Promise<Record<string, unknown>> => {
      const response = await fetch(`${api.url}/v1/tools/${tool}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      const text = await response.text();
      if (response.status !== 200) throw new Error(`REST ${tool} ${response.status}: ${text.slice(0, 300)}`);
      return JSON.parse(text) as Record<string, unknown>;
    };
    const mcpCall = async (tool: string, args: Record<string, unknown>): Promise<Record<string, unknown>> => {
      const result = await mcpClient.callTool({ name: tool, arguments: args });
      if (result.isError) throw new Error(`MCP ${tool}: ${JSON.stringify(result.content).slice(0, 300)}`);
      return result.structuredContent as Record<string, unknown>;
    };
    const calls = { rest, mcp: mcpCall };

    // One timeline (its session holds the checkpoints too), created through the API.
    const timeline = await rest("reasoning_timeline", { operation: "create", content: "Ship on Friday or on Monday?" });
    const sessionId = timeline["session_id"] as string;
    const timelineId = timeline["timeline_id"] as string;
    expect(sessionId).toBeTruthy();
    expect(timelineId).toBeTruthy();

    const tally: Tally = { checkpoints: 0, branches: 0, failures: [] };
    const deadline = Date.now() + durationMs;
    const writer = async (surface: keyof typeof calls, index: number) => {
      const call = calls[surface];
      for (let step = 0; Date.now() < deadline; step += 1) {
        try {
          if ((index + step) % 2 === 0) {
            await call("reasoning_checkpoint", {
              operation: "create",
              session_id: sessionId,
              name: `${surface}-${index}-${step}`,
            });
            tally.checkpoints += 1;
          } else {
            await call("reasoning_timeline", {
              operation: "branch",
              session_id: sessionId,
              timeline_id: timelineId,
              content: `Path ${surface}-${index}-${step}.`,
              label: `${surface}-${index}-${step}`,
            });
            tally.branches += 1;
          }
        } catch (error) {
          tally.failures.push(error instanceof Error ? error.message : String(error));
        }
      }
    };
    await Promise.all([
      ...Array.from({ length: writersPerService }, (_, index) => writer("rest", index)),
      ...Array.from({ length: writersPerService }, (_, index) => writer("mcp", index)),
    ]);

    const locked = tally.failures.filter((message) => /locked|busy/i.test(message)).length;
    console.info(
      `shared SQLite file, ${durationMs} ms: ${tally.checkpoints} checkpoints and ${tally.branches} branches acknowledged, ${tally.failures.length} failed (${locked} "database is locked")`,
    );
    expect(tally.failures.slice(0, 3)).toEqual([]);
    expect(tally.checkpoints).toBeGreaterThan(0);
    expect(tally.branches).toBeGreaterThan(0);

    // Every acknowledged checkpoint is there, read through the other service.
    // The list comes a page at a time: walk it to the end.
    let listedCount = 0;
    for (let offset: number | null = 0; offset !== null; ) {
      const listed = await mcpCall("reasoning_checkpoint", { operation: "list", session_id: sessionId, offset });
      listedCount += (listed["checkpoints"] as unknown[]).length;
      offset = (listed["page"] as { next_offset: number | null }).next_offset;
    }
    expect(listedCount).toBe(tally.checkpoints);
  });
});
