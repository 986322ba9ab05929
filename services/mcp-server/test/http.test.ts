import { spawn } from "node:child_process";
import { once } from "node:events";
import { connect as connectSocket } from "node:net";
import { join } from "node:path";
import { createFakeModelServer, type FakeModelServer } from "@deliberate/providers/testing";
import { type Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { testClient } from "./support/test-client.ts";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { answerBySchemaName } from "./support/fake-answers.ts";
import {
  initializeBody,
  jsonHeaders,
  rawRequest,
  startHttpServer,
  type HttpServerProcess,
} from "./support/http-process.ts";
import {
  builtServer,
  collectLines,
  coreDefinitions,
  expectOutput,
  temporaryDirectory,
} from "./support/server-process.ts";

const directory = temporaryDirectory();
const clients: Client[] = [];
let fake: FakeModelServer;

beforeAll(async () => {
  fake = await createFakeModelServer({ respond: answerBySchemaName });
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});
afterAll(async () => {
  await fake?.close();
  directory.remove();
});

/** Starts a server that a describe block shares (its own database): each test opens its own client sessions on it. */
function launch(name: string, args: string[], env: Record<string, string> = {}): Promise<HttpServerProcess> {
  return startHttpServer(["--http", "--port", "0", ...args], {
    DATABASE_PATH: join(directory.path, `${name}.db`),
    OPENAI_BASE_URL: fake.openaiBaseURL,
    OPENAI_API_KEY: "test",
    ...env,
  });
}

async function connect(url: URL, headers: Record<string, string> = {}): Promise<Client> {
  const client = testClient({ name: "deliberate-http-e2e", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
  clients.push(client);
  return client;
}

/**
 * Sends `first` at once, then `drop` every 100 ms, ignoring the server's FIN (as a client that keeps its side
 * open does); resolves when the server closes the connection, or with `closed: false` after 20 s.
 */
function trickle(port: number, first: string, drop = " ") {
  return new Promise<{ received: string; closed: boolean }>((resolve) => {
    const socket = connectSocket({ port, host: "127.0.0.1", allowHalfOpen: true });
    let received = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      received += chunk;
    });
    socket.on("error", () => {});
    const drip = setInterval(() => {
      if (socket.writable) socket.write(drop);
    }, 100);
    const timer = setTimeout(() => {
      clearInterval(drip);
      socket.destroy();
      resolve({ received, closed: false });
    }, 20_000);
    socket.on("close", () => {
      clearInterval(drip);
      clearTimeout(timer);
      resolve({ received, closed: true });
    });
    socket.write(first);
  });
}

describe("Streamable HTTP: slow clients, hosts and bodies", () => {
  let server: HttpServerProcess;
  beforeAll(async () => {
    server = await launch("hygiene", [], { MCP_HTTP_HEADERS_TIMEOUT_MS: "300", MCP_HTTP_BODY_TIMEOUT_MS: "600" });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("cuts a body sent too slowly (408) within the body timeout, even from a client that ignores the FIN", async () => {
    const port = Number(server.url.port);
    const head =
      "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n";
    const [body, chunked] = await Promise.all([
      trickle(port, `${head}Content-Length: 100000\r\n\r\n{"jsonrpc":`),
      trickle(port, `${head}Transfer-Encoding: chunked\r\n\r\n1\r\n{\r\n`, "1\r\n \r\n"),
    ]);
    expect(body).toMatchObject({ closed: true, received: expect.stringContaining("408") });
    expect(chunked).toMatchObject({ closed: true, received: expect.stringContaining("408") });
  }, 30_000);

  it("reads Host case-insensitively and any spelling of the IPv6 loopback; answers /readyz", async () => {
    for (const host of [
      `LOCALHOST:${server.url.port}`,
      `LocalHost:${server.url.port}`,
      `[0:0:0:0:0:0:0:1]:${server.url.port}`,
    ]) {
      const answer = await rawRequest({
        url: server.url,
        method: "POST",
        headers: { ...jsonHeaders, host },
        body: initializeBody,
      });
      expect([host, answer.status]).toEqual([host, 200]);
    }
    const foreign = await rawRequest({
      url: server.url,
      method: "POST",
      headers: { ...jsonHeaders, host: `EVIL.example:${server.url.port}` },
      body: initializeBody,
    });
    expect(foreign.status).toBe(403);
    const readiness = await rawRequest({ url: new URL("/readyz", server.url), method: "GET" });
    expect([readiness.status, JSON.parse(readiness.body)]).toEqual([
      200,
      { status: "ready", checks: { database: "ok" } },
    ]);
  });

  it("refuses a body in another charset than UTF-8 (415) and one past the 1 MiB limit (413), as the HTTP API does", async () => {
    for (const type of ["application/json; charset=utf-16", "application/json; charset=ISO-8859-1"]) {
      const answer = await rawRequest({
        url: server.url,
        method: "POST",
        headers: { ...jsonHeaders, "content-type": type },
        body: initializeBody,
      });
      expect([type, answer.status]).toEqual([type, 415]);
      expect(JSON.parse(answer.body)).toMatchObject({
        error: { data: { code: "INVALID_INPUT", issues: [{ field: "(content-type)" }] } },
      });
    }
    const utf8 = await rawRequest({
      url: server.url,
      method: "POST",
      headers: { ...jsonHeaders, "content-type": "application/json; charset=UTF-8" },
      body: initializeBody,
    });
    expect(utf8.status).toBe(200);
    const call = (content: string) =>
      JSON.stringify({
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "reasoning_linear", arguments: { content } },
      });
    const over = await rawRequest({
      url: server.url,
      method: "POST",
      headers: jsonHeaders,
      body: call("x".repeat(1024 * 1024)),
    });
    expect(over.status).toBe(413);
    expect(JSON.parse(over.body)).toMatchObject({ error: { message: expect.stringContaining("1048576") } });
  });
});

// One server per configuration, shared by the tests of its describe block (each opens its own sessions);
// only the start that must fail gets a process of its own.
describe("Streamable HTTP", () => {
  let server: HttpServerProcess;
  beforeAll(async () => {
    server = await launch("http", []);
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("serves the session viewer at /ui behind the Host/Origin check, prints its URL, and links it from Markdown exports", async () => {
    const viewerUrl = new URL("/ui", server.url);
    expect(server.stderr.some((line) => line.includes(`Session viewer: ${viewerUrl.href}`))).toBe(true);
    const page = await fetch(viewerUrl);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toContain("text/html");

    const client = await connect(server.url);
    const linear = expectOutput(
      "reasoning_linear",
      await client.callTool({ name: "reasoning_linear", arguments: { content: "Viewed over HTTP" } }),
    );
    const sessionId = linear["session_id"] as string;
    const listed = (await (await fetch(new URL("/ui/api/sessions?limit=5", server.url))).json()) as {
      sessions: Array<{ id: string }>;
    };
    expect(listed.sessions.map((session) => session.id)).toContain(sessionId);

    const foreign = await rawRequest({
      url: new URL(`/ui/api/sessions/${sessionId}`, server.url),
      method: "GET",
      headers: { host: "evil.example" },
    });
    expect(foreign.status).toBe(403);
    expect(foreign.body).not.toContain("Viewed over HTTP");

    const markdown = await client.readResource({ uri: `deliberate://sessions/${sessionId}/markdown` });
    expect(JSON.stringify(markdown.contents)).toContain(`${viewerUrl.href}/sessions/${sessionId}`);
  });

  it("serves a client speaking the 2026-07-28 revision too", async () => {
    const client = testClient({ name: "modern", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } });
    await client.connect(new StreamableHTTPClientTransport(server.url));
    clients.push(client);
    expect(client.getNegotiatedProtocolVersion()).toBe("2026-07-28");
    const { tools } = await client.listTools();
    expect(tools.length).toBeGreaterThanOrEqual(coreDefinitions.size);
    const result = await client.callTool({ name: "reasoning_linear", arguments: { content: "Modern era." } });
    expectOutput("reasoning_linear", result);
  });

  it("refuses a foreign Host or Origin header with 403 (DNS-rebinding protection)", async () => {
    const foreignHost = await rawRequest({
      url: server.url,
      method: "POST",
      headers: { ...jsonHeaders, host: `evil.example.com:${server.url.port}` },
      body: initializeBody,
    });
    expect(foreignHost.status).toBe(403);
    const foreignOrigin = await rawRequest({
      url: server.url,
      method: "POST",
      headers: { ...jsonHeaders, origin: "https://evil.example.com" },
      body: initializeBody,
    });
    expect(foreignOrigin.status).toBe(403);
    const localhost = await rawRequest({
      url: server.url,
      method: "POST",
      headers: { ...jsonHeaders, host: `localhost:${server.url.port}`, origin: "http://localhost:3000" },
      body: initializeBody,
    });
    expect(localhost.status).toBe(200);
  });

  it("answers a header holding U+0000 (refused by node's parser) with a JSON-RPC error naming the headers", async () => {
    for (const header of ["Mcp-Protocol-Version: 2025-06-18\u0000", "Authorization: Bearer a\u0000"]) {
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = connectSocket(Number(server.url.port), "127.0.0.1", () =>
          socket.end(
            `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n${header}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: ${initializeBody.length}\r\n\r\n${initializeBody}`,
          ),
        );
        let received = "";
        socket.on("data", (chunk) => {
          received += chunk;
        });
        socket.on("close", () => resolve(received));
        socket.on("error", reject);
      });
      expect(answer.split("\r\n")[0], header).toBe("HTTP/1.1 400 Bad Request");
      expect(JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4)), header).toMatchObject({
        jsonrpc: "2.0",
        id: null,
        error: {
          code: -32600,
          data: { code: "INVALID_INPUT", issues: [{ field: "(headers)", message: expect.stringContaining("U+0000") }] },
        },
      });
    }
  });

  // Last: it stops the shared server.
  it("binds 127.0.0.1, answers /healthz, lists and calls tools for the SDK client, and stops on SIGTERM", async () => {
    expect(server.url.hostname).toBe("127.0.0.1");
    expect(server.url.pathname).toBe("/mcp");
    expect(
      server.stderr.some((line) => line.includes(`claude mcp add --transport http deliberate ${server.url.href}`)),
    ).toBe(true);

    const health = await fetch(new URL("/healthz", server.url));
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: "ok" });
    // Idle keep-alive connections outlive the clients' own idle limits, so a client closes first.
    expect((await rawRequest({ url: new URL("/healthz", server.url), method: "GET" })).headers["keep-alive"]).toBe(
      "timeout=30",
    );

    const client = await connect(server.url);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining([...coreDefinitions.keys()]));

    const progress: number[] = [];
    const divergent = expectOutput(
      "reasoning_divergent",
      await client.callTool(
        { name: "reasoning_divergent", arguments: { content: "Halve the bill.", num_perspectives: "2" } },
        {
          onprogress: (update) =>
            update.message?.startsWith("generating ") ? undefined : progress.push(update.progress),
        },
      ),
    );
    expect(divergent["perspectives"]).toHaveLength(2);
    expect(progress).toEqual([1, 2, 3]);

    const sessionId = divergent["session_id"] as string;
    const checkpoint = expectOutput(
      "reasoning_checkpoint",
      await client.callTool({
        name: "reasoning_checkpoint",
        arguments: { operation: "create", session_id: sessionId, name: "over http" },
      }),
    );
    expect(checkpoint["checkpoint_id"]).toEqual(expect.any(String));

    expect(await server.stop()).toBe(0);
  });
});

describe("Streamable HTTP on 0.0.0.0 with a token and extra allowed hosts and origins", () => {
  const token = "correct-horse-battery-staple";
  let server: HttpServerProcess;
  beforeAll(async () => {
    server = await launch("http-token", ["--host", "0.0.0.0"], {
      MCP_HTTP_TOKEN: token,
      MCP_ALLOWED_HOSTS: "mcp.internal",
      MCP_ALLOWED_ORIGINS: "https://app.example.com",
    });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("binds 0.0.0.0 when a token is set", async () => {
    const client = await connect(server.url, { authorization: `Bearer ${token}` });
    expect((await client.listTools()).tools.length).toBeGreaterThanOrEqual(coreDefinitions.size);
  });

  it("accepts hosts and origins named in MCP_ALLOWED_HOSTS / MCP_ALLOWED_ORIGINS", async () => {
    const allowed = await rawRequest({
      url: server.url,
      method: "POST",
      headers: {
        ...jsonHeaders,
        host: "mcp.internal",
        origin: "https://app.example.com",
        authorization: `Bearer ${token}`,
      },
      body: initializeBody,
    });
    expect(allowed.status).toBe(200);
    // Hosts and origins not named are still refused.
    const foreignHost = await rawRequest({
      url: server.url,
      method: "POST",
      headers: { ...jsonHeaders, host: "evil.example.com", authorization: `Bearer ${token}` },
      body: initializeBody,
    });
    expect(foreignHost.status).toBe(403);
    const foreignOrigin = await rawRequest({
      url: server.url,
      method: "POST",
      headers: { ...jsonHeaders, origin: "https://evil.example.com", authorization: `Bearer ${token}` },
      body: initializeBody,
    });
    expect(foreignOrigin.status).toBe(403);
  });

  it("requires the bearer token when one is configured", async () => {
    const missing = await rawRequest({ url: server.url, method: "POST", headers: jsonHeaders, body: initializeBody });
    expect(missing.status).toBe(401);
    expect(String(missing.headers["www-authenticate"])).toMatch(/^Bearer/);
    const wrong = await rawRequest({
      url: server.url,
      method: "POST",
      headers: { ...jsonHeaders, authorization: "Bearer wrong" },
      body: initializeBody,
    });
    expect(wrong.status).toBe(401);

    const client = await connect(server.url, { authorization: `Bearer ${token}` });
    expect((await client.listTools()).tools.length).toBeGreaterThanOrEqual(coreDefinitions.size);
    // The health check stays open for probes.
    expect((await fetch(new URL("/healthz", server.url))).status).toBe(200);
  });

  it("refuses to start on 0.0.0.0 without MCP_HTTP_TOKEN (exit code 2)", async () => {
    const child = spawn(process.execPath, [builtServer, "--http", "--host", "0.0.0.0", "--port", "0"], {
      env: { PATH: process.env["PATH"] ?? "", DATABASE_PATH: join(directory.path, "never.db") },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const stderr = collectLines(child.stderr);
    const [code] = (await once(child, "close")) as [number | null];
    expect(code).toBe(2);
    expect(stderr.join("\n")).toContain("MCP_HTTP_TOKEN");
  });
});
