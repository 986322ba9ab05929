import { request as httpRequest } from "node:http";
import { connect as connectSocket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { countRows, getJson, postJson, startService } from "./support/service-harness.ts";

// The HTTP API as a web page or an attacker meets it: real HTTP on loopback.

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function service(env: Record<string, string> = {}) {
  const running = await startService(env);
  cleanups.push(() => running.stop());
  // What the service wrote starting (self-improvement records the settings it runs with): not the requests' doing.
  return { ...running, atStart: await countRows(running.service.store) };
}

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  // biome-ignore lint/suspicious/noExplicitAny: tests assert on response bodies field by field
  json: any;
  text: string;
}

/** A request with any headers (Host included), as a browser or a script would send it. */
function raw(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string },
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      url,
      { method: options.method ?? "GET", headers: options.headers ?? {} },
      (response) => {
        let text = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => {
          text += chunk;
        });
        response.on("end", () => {
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: response.statusCode ?? 0, headers: response.headers, json, text });
        });
      },
    );
    request.on("error", reject);
    request.end(options.body);
  });
}

/** Rows written since the service started, per table. */
async function rows(running: Awaited<ReturnType<typeof service>>) {
  const now = await countRows(running.service.store);
  return Object.fromEntries(
    Object.entries(now).map(([table, count]) => [table, count - (running.atStart[table] ?? 0)]),
  );
}

const metricsCall = JSON.stringify({ query: "summary" });

describe("Host and Origin (DNS rebinding, cross-site requests)", () => {
  it("refuses a foreign Host or Origin with 403 before doing anything, and serves loopback names", async () => {
    const running = await service();
    const url = `${running.url}/v1/tools/reasoning_metrics`;
    const attack = await raw(url, {
      method: "POST",
      headers: { host: "evil.example", origin: "http://evil.example", "content-type": "text/plain" },
      body: metricsCall,
    });
    expect(attack.status).toBe(403);
    expect(attack.json.error).toMatchObject({ code: "FORBIDDEN" });
    expect(attack.json.error.message).toContain("evil.example");
    expect(attack.json.error.hint).toContain("REASONING_API_ALLOWED_HOSTS");

    const session = await raw(`${running.url}/v1/sessions/ses_any`, { headers: { host: "evil.example" } });
    expect(session.status).toBe(403);
    const rebound = await raw(url, {
      method: "POST",
      headers: { host: "evil.example:9000", "content-type": "application/json" },
      body: metricsCall,
    });
    expect(rebound.status).toBe(403);
    const crossSite = await raw(url, {
      method: "POST",
      headers: { origin: "https://evil.example", "content-type": "application/json" },
      body: metricsCall,
    });
    expect(crossSite.status).toBe(403);
    expect(crossSite.json.error.message).toContain("Origin");
    const nullOrigin = await raw(url, {
      method: "POST",
      headers: { origin: "null", "content-type": "application/json" },
      body: metricsCall,
    });
    expect(nullOrigin.status).toBe(403);
    expect(Object.entries(await rows(running)).filter(([, count]) => count > 0)).toEqual([]);

    for (const host of ["localhost", "127.0.0.1", "[::1]", `localhost:${new URL(running.url).port}`]) {
      const allowed = await raw(url, {
        method: "POST",
        headers: { host, origin: "http://localhost:3000", "content-type": "application/json" },
        body: metricsCall,
      });
      expect(allowed.status, host).toBe(200);
    }
    // Probes reach health whatever name they use.
    expect((await raw(`${running.url}/healthz`, { headers: { host: "10.1.2.3:9000" } })).status).toBe(200);
  });

  it("accepts names and origins from REASONING_API_ALLOWED_HOSTS / _ORIGINS", async () => {
    const running = await service({
      REASONING_API_ALLOWED_HOSTS: "api.example.com",
      REASONING_API_ALLOWED_ORIGINS: "https://app.example.com",
    });
    const url = `${running.url}/v1/tools/reasoning_metrics`;
    const ok = await raw(url, {
      method: "POST",
      headers: { host: "api.example.com", origin: "https://app.example.com", "content-type": "application/json" },
      body: metricsCall,
    });
    expect(ok.status).toBe(200);
    const other = await raw(url, {
      method: "POST",
      headers: { host: "api.example.com", origin: "https://evil.example", "content-type": "application/json" },
      body: metricsCall,
    });
    expect(other.status).toBe(403);
  });

  it("sends no CORS headers, not even to a preflight", async () => {
    const running = await service();
    const preflight = await raw(`${running.url}/v1/tools/reasoning_metrics`, {
      method: "OPTIONS",
      headers: {
        origin: "http://localhost:5173",
        "access-control-request-method": "POST",
        "access-control-request-headers": "content-type",
      },
    });
    const answer = await raw(`${running.url}/v1/tools/reasoning_metrics`, {
      method: "POST",
      headers: { origin: "http://localhost:5173", "content-type": "application/json" },
      body: metricsCall,
    });
    for (const response of [preflight, answer]) {
      expect(Object.keys(response.headers).filter((name) => name.startsWith("access-control-"))).toEqual([]);
    }
  });
});

describe("bodies", () => {
  it("accepts only application/json bodies (415 otherwise) and writes nothing", async () => {
    const running = await service();
    const url = `${running.url}/v1/tools/reasoning_linear`;
    const body = JSON.stringify({ content: "hello" });
    for (const type of [
      "text/plain",
      "application/x-www-form-urlencoded",
      "multipart/form-data; boundary=x",
      "application/jsonp",
      undefined,
    ]) {
      const response = await raw(url, {
        method: "POST",
        headers: type === undefined ? {} : { "content-type": type },
        body,
      });
      expect(response.status, String(type)).toBe(415);
      expect(response.json.error.code).toBe("UNSUPPORTED_MEDIA_TYPE");
    }
    expect(
      (
        await raw(`${running.url}/agent_intent`, {
          method: "POST",
          headers: { "content-type": "text/plain" },
          body: '{"goal_text":"x"}',
        })
      ).status,
    ).toBe(415);
    expect(Object.entries(await rows(running)).filter(([, count]) => count > 0)).toEqual([]);
    const json = await raw(url, {
      method: "POST",
      headers: { "content-type": "application/json; charset=utf-8" },
      body,
    });
    expect(json.status).toBe(200);
  });

  it("takes a tool's input only as a JSON object: null, arrays and scalars are INVALID_INPUT and write nothing", async () => {
    const running = await service();
    for (const body of ["null", "[]", "3", '"text"']) {
      const response = await postJson(`${running.url}/v1/tools/agent_intent_decide`, body);
      expect(response.status, body).toBe(400);
      expect(response.json.error.issues[0].field).toBe("(body)");
    }
    expect(Object.entries(await rows(running)).filter(([, count]) => count > 0)).toEqual([]);
  });

  it("refuses JSON nested deeper than the limit with INVALID_INPUT naming the field, without a stack overflow", async () => {
    const running = await service();
    const deep = (depth: number) => `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
    const metadata = await postJson(
      `${running.url}/v1/tools/reasoning_linear`,
      `{"content":"x","metadata":${deep(5000)}}`,
    );
    expect(metadata.status).toBe(400);
    expect(metadata.json.error).toMatchObject({ code: "INVALID_INPUT" });
    expect(metadata.json.error.issues[0].field).toBe("metadata.a.a.a.a.a.a.a");
    expect(metadata.json.error.issues[0].message).toContain("64 levels");
    const schema = await postJson(
      `${running.url}/agent_intent`,
      `{"goal_text":"x","tools":[{"name":"t","description":"d","input_schema":${deep(3000)}}]}`,
    );
    expect(schema.status).toBe(400);
    expect(schema.json.error.issues[0].field).toBe("tools.0.input_schema.a.a.a.a.a");
    expect(JSON.stringify([metadata.json, schema.json])).not.toContain("call stack");
    expect(Object.entries(await rows(running)).filter(([, count]) => count > 0)).toEqual([]);
  });
});

describe("authentication", () => {
  const token = "test-token-0123456789abcdef";

  it("throttles repeated wrong tokens per client: 429 with Retry-After, even for the right token, until the window ends", async () => {
    const running = await service({
      REASONING_API_TOKEN: token,
      REASONING_API_AUTH_FAILURE_LIMIT: "5",
      REASONING_API_AUTH_FAILURE_WINDOW_MS: "60000",
    });
    const statuses: number[] = [];
    let last: Awaited<ReturnType<typeof postJson>> | undefined;
    for (let attempt = 0; attempt < 8; attempt += 1) {
      last = await postJson(
        `${running.url}/v1/tools/reasoning_metrics`,
        { query: "summary" },
        { authorization: `Bearer wrong-${attempt}-0123456789` },
      );
      statuses.push(last.status);
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429, 429]);
    expect(last?.json.error.code).toBe("RATE_LIMITED");
    expect(Number(last?.headers.get("retry-after"))).toBeGreaterThan(0);
    const right = await postJson(
      `${running.url}/v1/tools/reasoning_metrics`,
      { query: "summary" },
      { authorization: `Bearer ${token}` },
    );
    expect(right.status).toBe(429);
    // Public paths stay reachable.
    expect((await getJson(`${running.url}/healthz`)).status).toBe(200);
  });

  it("counts failures per client (trusted proxy: by the appended hop)", async () => {
    const running = await service({
      REASONING_API_TOKEN: token,
      REASONING_API_AUTH_FAILURE_LIMIT: "2",
      REASONING_TRUST_PROXY: "1",
    });
    const attempt = (client: string, bearer: string) =>
      postJson(
        `${running.url}/v1/tools/reasoning_metrics`,
        { query: "summary" },
        { authorization: `Bearer ${bearer}`, "x-forwarded-for": client },
      );
    expect((await attempt("203.0.113.1", "wrong-token-aaaaaaaa")).status).toBe(401);
    expect((await attempt("203.0.113.1", "wrong-token-bbbbbbbb")).status).toBe(401);
    expect((await attempt("203.0.113.1", "wrong-token-cccccccc")).status).toBe(429);
    expect((await attempt("198.51.100.7", token)).status).toBe(200);
  });
});

describe("versions", () => {
  it("takes only the documented Accept-Version values", async () => {
    const running = await service();
    for (const version of ["", "1", "V1", "v1 ", "v2", "v1.0"]) {
      const response = await raw(`${running.url}/v1/tools/reasoning_metrics`, {
        method: "POST",
        headers: { "content-type": "application/json", "accept-version": version },
        body: metricsCall,
      });
      // node trims header values, so "v1 " arrives as "v1".
      const expected = version.trim() === "v1" ? 200 : 400;
      expect(response.status, JSON.stringify(version)).toBe(expected);
      if (expected === 400) expect(response.json.error.code).toBe("UNSUPPORTED_VERSION");
    }
    expect(
      (
        await raw(`${running.url}/v1/tools/reasoning_metrics`, {
          method: "POST",
          headers: { "content-type": "application/json", "accept-version": "v1" },
          body: metricsCall,
        })
      ).status,
    ).toBe(200);
  });
});

/**
 * Sends `first` at once, then `drop` (a byte, or a one-byte chunk) every 100 ms, ignoring the server's FIN (as a client that keeps
 * its side open does); resolves when the server closes the connection, or with `closed: false` after 20 s.
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

describe("slow clients", () => {
  it("cuts headers or a body sent too slowly (408), even from a client that ignores the FIN and keeps sending", async () => {
    const running = await service({ REASONING_API_HEADERS_TIMEOUT_MS: "300", REASONING_API_BODY_TIMEOUT_MS: "600" });
    const port = Number(new URL(running.url).port);
    const [headers, body, chunked] = await Promise.all([
      trickle(port, "POST /agent_intent HTTP/1.1\r\nHost: 127.0.0.1\r\n"),
      trickle(
        port,
        'POST /agent_intent HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"goal_text":',
      ),
      trickle(
        port,
        "POST /v1/tools/reasoning_linear HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n1\r\n{\r\n",
        "1\r\n \r\n",
      ),
    ]);
    expect(headers.closed).toBe(true);
    expect(body.closed).toBe(true);
    expect(body.received).toContain("408");
    expect(chunked.closed).toBe(true);
    expect(chunked.received).toContain("408");
  }, 30_000);
});

describe("hosts and bodies", () => {
  it("reads Host case-insensitively and any spelling of the IPv6 loopback", async () => {
    const running = await service();
    const { port } = new URL(running.url);
    for (const host of [
      `LOCALHOST:${port}`,
      `LocalHost:${port}`,
      `[0:0:0:0:0:0:0:1]:${port}`,
      `[::FFFF:127.0.0.1]:${port}`,
    ]) {
      const answer = await raw(`${running.url}/v1/tools/reasoning_metrics`, {
        method: "POST",
        headers: { host, "content-type": "application/json" },
        body: '{"query":"summary"}',
      });
      expect([host, answer.status]).toEqual([host, 200]);
    }
    const foreign = await raw(`${running.url}/v1/tools/reasoning_metrics`, {
      method: "POST",
      headers: { host: `EVIL.example:${port}`, "content-type": "application/json" },
      body: '{"query":"summary"}',
    });
    expect(foreign.status).toBe(403);
  });

  it("refuses a JSON body in another charset than UTF-8 with 415, on the fast path and through Hono alike", async () => {
    const running = await service();
    const body = JSON.stringify({ goal_text: "search project for TODOs" });
    for (const path of ["/agent_intent", "/workflow_intent"]) {
      for (const [type, payload] of [
        ["application/json; charset=utf-16", Buffer.from(body, "utf16le")],
        ["application/json; charset=ISO-8859-1", Buffer.from(body, "latin1")],
        ['application/json; charset="windows-1252"', Buffer.from(body, "latin1")],
      ] as const) {
        const answer = await new Promise<RawResponse>((resolve, reject) => {
          const request = httpRequest(
            `${running.url}${path}`,
            { method: "POST", headers: { "content-type": type, "content-length": payload.length } },
            (response) => {
              let text = "";
              response.setEncoding("utf8");
              response.on("data", (chunk: string) => (text += chunk));
              response.on("end", () =>
                resolve({ status: response.statusCode ?? 0, headers: response.headers, json: JSON.parse(text), text }),
              );
            },
          );
          request.on("error", reject);
          request.end(payload);
        });
        expect([path, type, answer.status, answer.json.error.code]).toEqual([
          path,
          type,
          415,
          "UNSUPPORTED_MEDIA_TYPE",
        ]);
        expect(answer.json.error.message).toContain("UTF-8");
      }
    }
    const utf8 = await raw(`${running.url}/agent_intent`, {
      method: "POST",
      headers: { "content-type": "application/json; charset=UTF-8" },
      body,
    });
    expect(utf8.status).toBe(200);
  });

  it("takes a body up to the documented 1 MiB limit and refuses one past it with 413", async () => {
    const running = await service();
    const padding = (size: number) => JSON.stringify({ goal_text: "search", context: "x".repeat(size) });
    const base = Buffer.byteLength(padding(0));
    const over = await raw(`${running.url}/agent_intent`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: padding(1024 * 1024 - base + 1),
    });
    expect([over.status, over.json.error.code]).toEqual([413, "PAYLOAD_TOO_LARGE"]);
    expect(over.json.error.message).toContain("1048576");
  });
});
