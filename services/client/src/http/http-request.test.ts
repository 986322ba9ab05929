import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { DeliberateClientError, isClientError } from "../errors.ts";
import { resolveHttpConnection } from "./config.ts";
import { sendHttpRequest } from "./http-request.ts";

// A real loopback HTTP server whose answers each test scripts, one per request.

type Reply = (request: IncomingMessage, body: string, response: ServerResponse) => void;
let replies: Reply[] = [];
const seen: Array<{ method: string; url: string; headers: IncomingMessage["headers"]; body: string }> = [];
let server: Server;
let baseUrl: string;

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk) => (body += chunk));
    request.on("end", () => {
      seen.push({ method: request.method ?? "", url: request.url ?? "", headers: request.headers, body });
      const reply = replies.shift();
      if (!reply) {
        response.writeHead(500).end("no scripted reply");
        return;
      }
      reply(request, body, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => {
  replies = [];
  seen.length = 0;
});

const json =
  (status: number, value: unknown, headers: Record<string, string> = {}): Reply =>
  (_request, _body, response) => {
    response.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(value));
  };
const errorBody = (code: string, message: string, extra: Record<string, unknown> = {}) => ({
  status: "error",
  error: { code, message, retryable: false, ...extra },
  request_id: "req_1",
});

function connection(overrides: Parameters<typeof resolveHttpConnection>[0] = {}) {
  return resolveHttpConnection({ baseUrl, token: "secret-token-value", env: {}, backoffMs: 1, ...overrides });
}

async function failureOf(promise: Promise<unknown>): Promise<DeliberateClientError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!DeliberateClientError.isInstance(error)) throw new Error(`expected a client error, got ${String(error)}`);
  return error;
}

describe("sendHttpRequest", () => {
  it("sends Accept-Version, the bearer token and JSON; parses the answer", async () => {
    replies.push(json(200, { status: "ok" }));
    const response = await sendHttpRequest(connection(), {
      method: "POST",
      path: "/agent_intent",
      body: { goal_text: "x" },
      idempotent: true,
      what: "POST /agent_intent",
    });
    expect(response.body).toEqual({ status: "ok" });
    expect(seen[0]).toMatchObject({ method: "POST", url: "/agent_intent", body: '{"goal_text":"x"}' });
    expect(seen[0]?.headers).toMatchObject({
      "accept-version": "v1",
      authorization: "Bearer secret-token-value",
      "content-type": "application/json",
    });
  });

  it("maps the services' error body to a typed error with its code, issues, hint and request id", async () => {
    replies.push(
      json(
        400,
        errorBody("INVALID_INPUT", "Invalid input: goal_text", {
          issues: [{ field: "goal_text", message: "Expected string" }],
          hint: "Fix it.",
        }),
      ),
    );
    const error = await failureOf(
      sendHttpRequest(connection(), {
        method: "POST",
        path: "/agent_intent",
        body: {},
        idempotent: true,
        what: "POST /agent_intent",
      }),
    );
    expect(error.toJSON()).toEqual({
      code: "INVALID_INPUT",
      message: "Invalid input: goal_text",
      issues: [{ field: "goal_text", message: "Expected string" }],
      hint: "Fix it.",
      retryable: false,
      status: 400,
      requestId: "req_1",
    });
    expect(seen).toHaveLength(1);
  });

  it("honours Retry-After on 429, then succeeds", async () => {
    replies.push(json(429, errorBody("RATE_LIMITED", "Too many requests"), { "retry-after": "0" }));
    replies.push(json(200, { ok: true }));
    const response = await sendHttpRequest(connection(), {
      method: "POST",
      path: "/v1/tools/reasoning_linear",
      body: {},
      idempotent: false,
      what: "tool",
    });
    expect(response.body).toEqual({ ok: true });
    expect(seen).toHaveLength(2);
  });

  it("retries an idempotent call on 502 up to the retries, then reports the last error", async () => {
    for (let index = 0; index < 3; index += 1)
      replies.push(json(502, errorBody("PROVIDER_UNAVAILABLE", `upstream down ${index}`)));
    const error = await failureOf(
      sendHttpRequest(connection({ retries: 2 }), {
        method: "POST",
        path: "/agent_intent",
        body: {},
        idempotent: true,
        what: "POST /agent_intent",
      }),
    );
    expect(error).toMatchObject({ code: "PROVIDER_UNAVAILABLE", message: "upstream down 2", status: 502 });
    expect(seen).toHaveLength(3);
  });

  it("does not repeat a call that is not idempotent after a 500", async () => {
    replies.push(json(500, errorBody("INTERNAL", "boom")));
    const error = await failureOf(
      sendHttpRequest(connection({ retries: 3 }), {
        method: "POST",
        path: "/v1/tools/reasoning_checkpoint",
        body: {},
        idempotent: false,
        what: "tool",
      }),
    );
    expect(error.code).toBe("INTERNAL");
    expect(seen).toHaveLength(1);
  });

  it("times out per attempt (TIMEOUT), retrying idempotent calls", async () => {
    const hang: Reply = () => {};
    replies.push(hang, json(200, { late: false }));
    const response = await sendHttpRequest(connection({ timeoutMs: 200, retries: 1 }), {
      method: "GET",
      path: "/healthz",
      idempotent: true,
      what: "GET /healthz",
    });
    expect(response.body).toEqual({ late: false });
    replies.push(hang);
    const error = await failureOf(
      sendHttpRequest(connection({ timeoutMs: 200, retries: 0 }), {
        method: "GET",
        path: "/healthz",
        idempotent: true,
        what: "GET /healthz",
      }),
    );
    expect(error).toMatchObject({ code: "TIMEOUT", retryable: true });
    expect(error.message).toContain("200 ms");
  });

  it("stops at once when the caller aborts (ABORTED), without retrying", async () => {
    replies.push(() => {});
    const controller = new AbortController();
    const pending = sendHttpRequest(
      connection({ retries: 3 }),
      { method: "GET", path: "/healthz", idempotent: true, what: "GET /healthz" },
      { signal: controller.signal },
    );
    setTimeout(() => controller.abort(), 50);
    expect((await failureOf(pending)).code).toBe("ABORTED");
    expect(seen).toHaveLength(1);
  });

  it("calls a body that is not JSON malformed, and a proxy's error page by its status", async () => {
    replies.push((_request, _body, response) =>
      response.writeHead(200, { "content-type": "text/html" }).end("<html>hi</html>"),
    );
    expect(
      (
        await failureOf(
          sendHttpRequest(connection(), { method: "GET", path: "/healthz", idempotent: true, what: "GET /healthz" }),
        )
      ).code,
    ).toBe("MALFORMED_RESPONSE");
    replies.push((_request, _body, response) =>
      response.writeHead(401, { "content-type": "text/html" }).end("<html>login</html>"),
    );
    expect(
      (await failureOf(sendHttpRequest(connection(), { method: "GET", path: "/x", idempotent: true, what: "GET /x" })))
        .code,
    ).toBe("UNAUTHORIZED");
  });

  it("reports a refused connection as CONNECTION_FAILED after retrying", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const error = await failureOf(
      sendHttpRequest(
        resolveHttpConnection({ baseUrl: `http://127.0.0.1:${port}`, env: {}, backoffMs: 1, retries: 1 }),
        { method: "GET", path: "/healthz", idempotent: false, what: "GET /healthz" },
      ),
    );
    expect(error).toMatchObject({ code: "CONNECTION_FAILED", retryable: true });
    expect(isClientError(error, "CONNECTION_FAILED", "TIMEOUT")).toBe(true);
  });

  it("reads server-sent progress events, then the result", async () => {
    replies.push((_request, _body, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write('event: progress\ndata: {"progress":1,"total":3,"message":"one"}\n\n');
      response.write('event: progress\r\ndata: {"progress":2,"total":3}\r\n\r\n');
      response.end('event: result\ndata: {"answer":42}\n\n');
    });
    const updates: unknown[] = [];
    const response = await sendHttpRequest(
      connection(),
      { method: "POST", path: "/v1/tools/x", body: {}, idempotent: false, what: "tool" },
      { onProgress: (update) => updates.push(update) },
    );
    expect(response.body).toEqual({ answer: 42 });
    expect(updates).toEqual([
      { progress: 1, total: 3, message: "one" },
      { progress: 2, total: 3 },
    ]);
    expect(seen[0]?.headers.accept).toContain("text/event-stream");

    replies.push((_request, _body, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.end(`event: error\ndata: ${JSON.stringify(errorBody("NOT_FOUND", "no session"))}\n\n`);
    });
    expect(
      (
        await failureOf(
          sendHttpRequest(
            connection(),
            { method: "POST", path: "/v1/tools/x", body: {}, idempotent: false, what: "tool" },
            { onProgress: () => {} },
          ),
        )
      ).code,
    ).toBe("NOT_FOUND");
  });
});
