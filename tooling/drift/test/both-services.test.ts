import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Replica, servicePaths, startReplica } from "@deliberate/replicas";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// The drift checks of issue 27: each runs the same check against both built services.

const directory = mkdtempSync(join(tmpdir(), "deliberate-drift-"));
// One environment for both: the same database file, log level, TTL and (fake) provider key.
const sharedEnv = {
  HOME: directory,
  DATABASE_PATH: join(directory, "deliberate.db"),
  LOG_LEVEL: "warn",
  HOST_COMPLETION_TTL_SECONDS: "120",
  // A module's own variable (declared by the module, read by the runtime): reported the same by both.
  DELIBERATE_SELF_IMPROVEMENT_CYCLE_MS: "600000",
  ANTHROPIC_API_KEY: "sk-ant-drift-test-key-0123456789",
};

let api: Replica;
let mcp: Replica;

beforeAll(async () => {
  api = await startReplica({ kind: "api", env: sharedEnv });
  mcp = await startReplica({ kind: "mcp", env: sharedEnv });
});

afterAll(async () => {
  await Promise.all([api?.stop(), mcp?.stop()]);
  rmSync(directory, { recursive: true, force: true });
});

async function configOverMcp(): Promise<Record<string, unknown>> {
  const client = new Client({ name: "drift-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(mcp.url)));
  try {
    const result = await client.callTool({ name: "reasoning_metrics", arguments: { query: "config" } });
    expect(result.isError).not.toBe(true);
    return (result.structuredContent as { config: Record<string, unknown> }).config;
  } finally {
    await client.close();
  }
}

async function configOverRest(): Promise<Record<string, unknown>> {
  const response = await fetch(`${api.url}/v1/tools/reasoning_metrics`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ query: "config" }),
  });
  expect(response.status).toBe(200);
  const body = (await response.json()) as {
    config?: Record<string, unknown>;
    result?: { config: Record<string, unknown> };
  };
  return body.config ?? (body.result as { config: Record<string, unknown> }).config;
}

describe("reasoning_metrics {query: config}", () => {
  it("reports the same settings over MCP and REST (only the transport differs)", async () => {
    const [overMcp, overRest] = await Promise.all([configOverMcp(), configOverRest()]);
    for (const config of [overMcp, overRest]) {
      expect(Object.keys(config).sort()).toEqual([
        "database",
        "engine",
        "host_completion_ttl_seconds",
        "host_prompts",
        "log_level",
        "modules",
        "providers",
        "transport",
      ]);
      expect(config).toMatchObject({
        log_level: "warn",
        host_completion_ttl_seconds: 120,
        providers: { provider: "anthropic" },
        modules: {
          "self-improvement": {
            DELIBERATE_SELF_IMPROVEMENT_CYCLE_MS: 600_000,
            DELIBERATE_SELF_IMPROVEMENT_MODE: "auto",
          },
        },
      });
      expect(JSON.stringify(config)).not.toContain("sk-ant-drift-test-key-0123456789");
    }
    expect(overMcp["transport"]).toBe("http");
    expect(overRest["transport"]).toBe("rest");
    const { transport: _mcpTransport, ...mcpRest } = overMcp;
    const { transport: _restTransport, ...restRest } = overRest;
    expect(restRest).toEqual(mcpRest);
  });
});

/** Any JSON result (a Standard Schema that accepts every value: the SDK's client asks for one). */
const anyResult = {
  "~standard": {
    version: 1 as const,
    vendor: "drift",
    validate: (value: unknown) => ({ value: value as Record<string, unknown> }),
  },
};

describe("module operations", () => {
  it("answer the same over REST (GET /v1/<module>/...) and MCP (the request <module>/<operation>)", async () => {
    const client = new Client({ name: "drift-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(mcp.url)));
    try {
      const overMcp = await client.request({ method: "self-improvement/config", params: {} }, anyResult);
      const overRest = await (await fetch(`${api.url}/v1/self-improvement/config`)).json();
      expect(overMcp).toMatchObject({ mode: "auto", cycleMs: 600_000 });
      expect(overRest).toEqual(overMcp);
      const history = await client.request({ method: "self-improvement/history", params: { limit: 5 } }, anyResult);
      // A JSON-RPC result is an object: the list comes as { items } over MCP.
      expect(history).toEqual({ items: await (await fetch(`${api.url}/v1/self-improvement/history?limit=5`)).json() });
    } finally {
      await client.close();
    }
  });
});

/** The status of a request carrying this exact Host header (fetch cannot set Host). */
function statusWithHost(url: string, host: string, body?: string, origin?: string): Promise<number> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const outgoing = request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: body === undefined ? "GET" : "POST",
        headers: {
          host,
          accept: "application/json, text/event-stream",
          "content-type": "application/json",
          ...(origin !== undefined ? { origin } : {}),
        },
      },
      (response) => {
        response.resume();
        response.on("end", () => resolve(response.statusCode ?? 0));
      },
    );
    outgoing.on("error", reject);
    outgoing.end(body);
  });
}

describe("the Host check (DNS-rebinding protection)", () => {
  const initialize = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "drift-test", version: "1.0.0" } },
  });
  const targets = () => [
    { name: "deliberate-api", url: `${api.url}/v1/tools/reasoning_metrics`, body: JSON.stringify({ query: "config" }) },
    { name: "deliberate-mcp", url: mcp.url, body: initialize },
  ];

  it("takes every spelling of a loopback address as loopback in both services", async () => {
    for (const target of targets()) {
      const port = new URL(target.url).port;
      for (const host of [
        `[0:0:0:0:0:0:0:1]:${port}`,
        `[::1]:${port}`,
        `127.0.0.1:${port}`,
        `localhost:${port}`,
        `[::ffff:127.0.0.1]:${port}`,
      ]) {
        expect(await statusWithHost(target.url, host, target.body), `${target.name} Host ${host}`).toBe(200);
      }
    }
  });

  it("refuses a host name it was not told about, in both services", async () => {
    for (const target of targets()) {
      for (const host of ["evil.example", "10.0.0.1", "[::2]"]) {
        expect(await statusWithHost(target.url, host, target.body), `${target.name} Host ${host}`).toBe(403);
      }
    }
  });
});

/** Runs a built service to its exit; resolves with its exit code and stderr. */
async function runToExit(entry: string, env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [entry], {
    env: { PATH: process.env["PATH"] ?? "", HOME: directory, ...env },
    stdio: ["pipe", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (chunk: string) => (stderr += chunk));
  const [code] = (await once(child, "exit")) as [number | null];
  return { code, stderr };
}

describe("the Origin check (browsers)", () => {
  const initialize = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "drift-test", version: "1.0.0" } },
  });

  it("takes a loopback page in any spelling and refuses a foreign one, in both services", async () => {
    const targets = [
      {
        name: "deliberate-api",
        url: `${api.url}/v1/tools/reasoning_metrics`,
        body: JSON.stringify({ query: "config" }),
      },
      { name: "deliberate-mcp", url: mcp.url, body: initialize },
    ];
    for (const target of targets) {
      const host = `127.0.0.1:${new URL(target.url).port}`;
      for (const origin of ["http://localhost:3000", "http://[0:0:0:0:0:0:0:1]:3000", "http://[::ffff:127.0.0.1]"]) {
        expect(await statusWithHost(target.url, host, target.body, origin), `${target.name} Origin ${origin}`).toBe(
          200,
        );
      }
      for (const origin of ["https://evil.example", "http://10.0.0.1:3000"]) {
        expect(await statusWithHost(target.url, host, target.body, origin), `${target.name} Origin ${origin}`).toBe(
          403,
        );
      }
    }
  });
});

describe("bad settings at start", () => {
  const bad = { LOG_LEVEL: "loud", DATABASE_POOL_SIZE: "0", HOST_COMPLETION_TTL_SECONDS: "soon" };

  it("names the same three bad variables in ONE error from deliberate-mcp and deliberate-api (exit 2)", async () => {
    for (const [name, entry] of [
      ["deliberate-mcp", servicePaths.mcp],
      ["deliberate-api", servicePaths.api],
    ] as const) {
      const { code, stderr } = await runToExit(entry, bad);
      expect(code, `${name}: ${stderr}`).toBe(2);
      const lines = stderr.trim().split("\n");
      expect(lines, `${name}: ${stderr}`).toHaveLength(1);
      const [line] = lines;
      expect(line).toMatch(new RegExp(`^${name}: Invalid configuration: `));
      expect(line).toContain('LOG_LEVEL must be one of debug, info, warn, error (got "loud")');
      expect(line).toContain('DATABASE_POOL_SIZE must be a whole number from 1 to 1000 (got "0")');
      expect(line).toContain('HOST_COMPLETION_TTL_SECONDS must be a whole number of seconds >= 1 (got "soon")');
    }
  });

  it("lists a module's bad setting (self-improvement) in the same error as the service's", async () => {
    for (const [name, entry] of [
      ["deliberate-mcp", servicePaths.mcp],
      ["deliberate-api", servicePaths.api],
    ] as const) {
      const { code, stderr } = await runToExit(entry, {
        LOG_LEVEL: "loud",
        DELIBERATE_SELF_IMPROVEMENT_MODE: "sometimes",
      });
      expect(code, `${name}: ${stderr}`).toBe(2);
      expect(stderr.trim().split("\n")).toHaveLength(1);
      expect(stderr).toContain("LOG_LEVEL");
      expect(stderr).toContain("DELIBERATE_SELF_IMPROVEMENT_MODE");
    }
  });
});
