import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseApiEnvironment } from "../src/config.ts";
import { type ApiService, createApiService } from "../src/service.ts";
import { testEnvironment } from "./support/service-harness.ts";

// The dispatcher (createDispatcher) answers the JSON operations of the operation
// table on node:http directly, and hands everything else to Hono. Two services
// with the same configuration, one answering directly and one through Hono only,
// get the same requests: every answer (status, headers as a set, body, request
// log line) must be the same; the direct ones must not have reached Hono, and
// the rest must.

interface Served {
  service: ApiService;
  url: string;
  port: number;
  logs: string[];
  /** Requests the Hono app answered. */
  honoHits: number;
}

/**
 * Both services read one stopped clock: their rate-limit and lockout windows then start and end at the same
 * instant whenever each of them handles a request (on a loaded machine the two can be seconds apart).
 */
const stoppedAt = new Date();
const sharedClock = { now: () => new Date(stoppedAt) };

async function serve(env: Record<string, string>, fastPath: boolean): Promise<Served> {
  const logs: string[] = [];
  const config = parseApiEnvironment(testEnvironment(env));
  const service = await createApiService({
    config,
    fastPath,
    clock: sharedClock,
    logSinks: [(line) => void logs.push(line)],
  });
  const served = { service, url: "", port: 0, logs, honoHits: 0 } as Served;
  const fetch = service.app.fetch;
  // serve() takes app.fetch when the service starts: count what reaches Hono.
  service.app.fetch = ((...args: Parameters<typeof fetch>) => {
    served.honoHits += 1;
    return fetch(...args);
  }) as typeof fetch;
  served.url = await service.start();
  served.port = Number(new URL(served.url).port);
  return served;
}

interface Sent {
  method?: string;
  path: string;
  /** Flat [name, value, ...] (repeats allowed); Host defaults to 127.0.0.1:<port>. */
  headers?: string[];
  body?: string;
  /** Send the body chunked (no Content-Length). */
  chunked?: boolean;
}

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

function send(target: Served, sent: Sent): Promise<Answer> {
  const headers = [...(sent.headers ?? [])];
  if (!headers.some((value, index) => index % 2 === 0 && value.toLowerCase() === "host"))
    headers.push("Host", `127.0.0.1:${target.port}`);
  if (sent.body !== undefined && !sent.chunked) headers.push("Content-Length", String(Buffer.byteLength(sent.body)));
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      { host: "127.0.0.1", port: target.port, method: sent.method ?? "POST", path: sent.path, headers, agent: false },
      (response) => {
        let body = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => (body += chunk));
        response.on("end", () => {
          const received: Record<string, string> = {};
          for (const [name, value] of Object.entries(response.headers)) {
            if (["date", "connection", "keep-alive"].includes(name)) continue;
            received[name] = Array.isArray(value) ? value.join(", ") : String(value);
          }
          resolve({ status: response.statusCode ?? 0, headers: received, body });
        });
      },
    );
    outgoing.on("error", reject);
    if (sent.body !== undefined) {
      if (sent.chunked) {
        outgoing.write(sent.body.slice(0, Math.floor(sent.body.length / 2)));
        outgoing.write(sent.body.slice(Math.floor(sent.body.length / 2)));
      } else outgoing.write(sent.body);
    }
    outgoing.end();
  });
}

/** Ids, timestamps and durations differ between the two services; everything else must not. */
function normalised(answer: Answer): Answer {
  const clean = (text: string) =>
    text
      .replace(/\b[a-z]+_[0-9a-z]{16,}\b/g, "<id>")
      .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, "<time>")
      .replace(/"duration_ms":\d+/g, '"duration_ms":0')
      // Compared by `same` (see sameSeconds).
      .replace(/Retry after \d+ s/g, "Retry after <seconds> s");
  const seconds = (value: string) => (/^\d+$/.test(value) ? "<seconds>" : value);
  const headers = Object.fromEntries(
    Object.entries(answer.headers).map(([name, value]) => [
      name,
      name === "content-length"
        ? "<length>"
        : name === "ratelimit-reset" || name === "retry-after"
          ? seconds(value)
          : clean(value),
    ]),
  );
  return { status: answer.status, headers, body: clean(answer.body) };
}

/** The request log lines, without times, ids and durations. */
function requestLines(logs: readonly string[]): string[] {
  return logs
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((entry) => entry["message"] === "request" || entry["message"] === "request failed unexpectedly")
    .map(
      (entry) =>
        `${entry["message"]} ${entry["level"]} ${entry["method"] ?? ""} ${entry["path"]} ${entry["status"] ?? ""} ${String(entry["request_id"]).replace(/^req_[0-9a-z]{16,}$/, "<id>")}`,
    );
}

const json = ["Content-Type", "application/json"];
const intent = JSON.stringify({ session_id: "s1", persona: {}, goal_text: "search project for TODOs" });
const decision = JSON.stringify({
  type: "weighted",
  question: "Which database?",
  options: ["SQLite", "Postgres"],
  criteria: [
    { name: "cost", weight: 0.6, direction: "cost" },
    { name: "scale", weight: 0.4 },
  ],
  scores: [
    [1, 5],
    [6, 9],
  ],
});
const deep = `{"goal_text":"x","persona":${"[".repeat(200)}${"]".repeat(200)}}`;

/** The seconds until a window resets: equal, as both services read the same stopped clock (`sharedClock`). */
function sameSeconds(fromFast: Answer, fromHono: Answer, label: string): void {
  const secondsIn = (answer: Answer) => [
    answer.headers["retry-after"],
    answer.headers["ratelimit-reset"],
    /Retry after (\d+) s/.exec(answer.body)?.[1],
  ];
  const fast = secondsIn(fromFast);
  const hono = secondsIn(fromHono);
  for (const [index, value] of fast.entries()) {
    const other = hono[index];
    expect(value === undefined, label).toBe(other === undefined);
    if (value !== undefined && other !== undefined) {
      expect(value, `${label}: seconds to reset`).toBe(other);
    }
  }
}

/** Sends the same request to both services and expects the same answer (headers compared as a set, not in order); returns it with whether Hono answered it on the direct one. */
async function same(fast: Served, hono: Served, sent: Sent): Promise<{ answer: Answer; viaHono: boolean }> {
  const before = fast.honoHits;
  const [fromFast, fromHono] = await Promise.all([send(fast, sent), send(hono, sent)]);
  sameSeconds(fromFast, fromHono, `${sent.method ?? "POST"} ${sent.path}`);
  expect(normalised(fromFast), `${sent.method ?? "POST"} ${sent.path}`).toEqual(normalised(fromHono));
  return { answer: fromFast, viaHono: fast.honoHits > before };
}

/** The same service twice for a describe block, answering directly and through Hono only. */
function useFastAndHono(env: Record<string, string>): { fast: Served; hono: Served } {
  const pair = {} as { fast: Served; hono: Served };
  beforeAll(async () => {
    [pair.fast, pair.hono] = await Promise.all([serve(env, true), serve(env, false)]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([pair.fast?.service.stop(), pair.hono?.service.stop()]);
  });
  return pair;
}

describe("the dispatcher answers JSON operations directly, as the Hono app does", () => {
  const env = { REASONING_API_MAX_BODY_BYTES: "4000", REASONING_API_RATE_LIMIT: "1000" };
  const served = useFastAndHono(env);

  it("answers the JSON operations itself, successes and errors alike", async () => {
    const cases: Array<Sent & { status: number }> = [
      { path: "/agent_intent", headers: json, body: intent, status: 200 },
      { path: "/agent_intent", headers: [...json, "X-Request-Id", "client-id-1"], body: intent, status: 200 },
      { path: "/agent_intent", headers: [...json, "X-Request-Id", "not a plain id!"], body: intent, status: 200 },
      { path: "/agent_intent", headers: [...json, "Accept-Version", "v1"], body: intent, status: 200 },
      {
        path: "/agent_intent",
        headers: ["Content-Type", "application/json; charset=utf-8"],
        body: intent,
        status: 200,
      },
      { path: "/agent_intent", headers: json, body: "", status: 400 },
      { path: "/agent_intent", headers: json, body: "{not json", status: 400 },
      { path: "/agent_intent", headers: json, body: deep, status: 400 },
      { path: "/agent_intent", headers: json, body: JSON.stringify({ goal_text: 5 }), status: 400 },
      {
        path: "/agent_intent",
        headers: json,
        body: JSON.stringify({ goal_text: "x".repeat(5000) }),
        chunked: true,
        status: 413,
      },
      { path: "/v1/tools/reasoning_decision", headers: json, body: decision, status: 200 },
      { path: "/v1/tools/reasoning_decision", headers: json, body: "[1, 2]", status: 400 },
      { path: "/v1/tools/reasoning_decision", headers: json, body: "null", status: 400 },
      { path: "/v1/tools/reasoning_decision", headers: json, body: JSON.stringify({ type: "weighted" }), status: 400 },
      // U+0000 in input text: INVALID_INPUT naming the field, the same on both paths.
      { path: "/agent_intent", headers: json, body: JSON.stringify({ goal_text: "find\u0000 it" }), status: 400 },
      {
        path: "/v1/tools/reasoning_decision",
        headers: json,
        body: JSON.stringify({ question: "Which?", options: ["a", "b\u0000"] }),
        status: 400,
      },
      {
        path: "/v1/tools/reasoning_checkpoint",
        headers: json,
        body: JSON.stringify({ operation: "list", session_id: "ses_missing" }),
        status: 404,
      },
      { path: "/healthz", method: "GET", status: 200 },
      { path: "/health", method: "GET", headers: ["Accept-Version", "v1"], status: 200 },
      { path: "/healthz", method: "GET", headers: ["Host", "evil.example"], status: 200 },
      { path: "/agent_intent", headers: [...json, "Origin", "http://localhost:3000"], body: intent, status: 200 },
      // Every refusal of the request checks, answered directly through the same check list.
      { path: "/agent_intent", headers: ["Content-Type", "text/plain"], body: intent, status: 415 },
      { path: "/agent_intent", body: intent, status: 415 },
      {
        path: "/agent_intent",
        headers: ["Content-Type", "application/json; charset=utf-16"],
        body: intent,
        status: 415,
      },
      { path: "/agent_intent", headers: json, body: JSON.stringify({ goal_text: "x".repeat(5000) }), status: 413 },
      {
        path: "/v1/tools/reasoning_decision",
        headers: json,
        body: JSON.stringify({ question: "x".repeat(5000) }),
        status: 413,
      },
      { path: "/agent_intent", headers: [...json, "Accept-Version", "v2"], body: intent, status: 400 },
      { path: "/agent_intent", headers: [...json, "Host", "evil.example"], body: intent, status: 403 },
      { path: "/agent_intent", headers: [...json, "Origin", "http://evil.example"], body: intent, status: 403 },
      { path: "/v1/tools/reasoning_decision", headers: [...json, "Origin", "null"], body: decision, status: 403 },
      // The other JSON operations at a fixed path.
      { path: "/v1/tools", method: "GET", status: 200 },
      { path: "/v1/workflows", method: "GET", status: 200 },
      { path: "/readyz", method: "GET", status: 200 },
      { path: "/v1/jobs", method: "GET", status: 400 },
      {
        path: "/workflow_intent",
        headers: json,
        body: JSON.stringify({ run_id: "r1", workflow_name: "chain_of_thought", params: { problem: "Build auth" } }),
        status: 200,
      },
      {
        path: "/workflow_intent",
        headers: json,
        body: JSON.stringify({ run_id: "r1", workflow_name: "nope" }),
        status: 404,
      },
      {
        path: "/agent_intent_cancel",
        headers: json,
        body: JSON.stringify({ correlation_id: "nothing-queued" }),
        status: 200,
      },
    ];
    for (const sent of cases) {
      const { answer, viaHono } = await same(served.fast, served.hono, sent);
      expect(answer.status, `${sent.path} ${sent.body?.slice(0, 40)}`).toBe(sent.status);
      expect(
        viaHono,
        `${sent.method ?? "POST"} ${sent.path} ${JSON.stringify(sent.headers)} should not reach Hono`,
      ).toBe(false);
    }
    // The client's request id is kept, byte for byte.
    const kept = await same(served.fast, served.hono, {
      path: "/agent_intent",
      headers: [...json, "X-Request-Id", "abc-DEF_9="],
      body: intent,
    });
    expect(kept.answer.headers["x-request-id"]).toBe("abc-DEF_9=");
  }, 60_000);

  it("hands everything else to Hono, which answers it from the same table and checks", async () => {
    const cases: Array<Sent & { status: number }> = [
      // A repeated header (Hono sees the values joined), a query string, another method, no such operation.
      {
        path: "/agent_intent",
        headers: [...json, "X-Request-Id", "one", "X-Request-Id", "two"],
        body: intent,
        status: 200,
      },
      {
        path: "/agent_intent",
        headers: [...json, "Authorization", "Bearer a", "Authorization", "Bearer b"],
        body: intent,
        status: 200,
      },
      { path: "/agent_intent?verbose=1", headers: json, body: intent, status: 200 },
      { path: "/v1/jobs?correlation_id=none", method: "GET", status: 200 },
      { path: "/agent_intent", method: "GET", status: 404 },
      { path: "/healthz", method: "HEAD", status: 200 },
      { path: "/v1/tools/reasoning_nothing", headers: json, body: "{}", status: 404 },
      { path: "/v1/sessions/ses_missing", method: "GET", status: 404 },
      { path: "/nowhere", method: "GET", status: 404 },
      { path: "/v1/capabilities", method: "GET", status: 200 },
    ];
    for (const sent of cases) {
      const { answer, viaHono } = await same(served.fast, served.hono, sent);
      expect(answer.status, `${sent.path} ${JSON.stringify(sent.headers)}`).toBe(sent.status);
      expect(viaHono, `${sent.path} ${JSON.stringify(sent.headers)} should reach Hono`).toBe(true);
    }
    // A Host in capitals (which @hono/node-server would refuse, its URL parser rewriting it) is made canonical
    // before either sees it, and answered alike; each spelling again (its canonical form is remembered).
    for (const host of ["LOCALHOST:9", "localhost:9", "LOCALHOST:9", "[0:0:0:0:0:0:0:1]:9", "[0:0:0:0:0:0:0:1]:9"]) {
      const { answer } = await same(served.fast, served.hono, {
        path: "/agent_intent",
        headers: [...json, "Host", host],
        body: intent,
      });
      expect(answer.status, host).toBe(200);
    }
    expect(
      (
        await same(served.fast, served.hono, {
          path: "/agent_intent",
          headers: [...json, "Host", "EVIL.example"],
          body: intent,
        })
      ).answer.status,
    ).toBe(403);
    // A stream is Hono's too.
    const streamed = await same(served.fast, served.hono, {
      path: "/v1/tools/reasoning_decision",
      headers: [...json, "Accept", "text/event-stream"],
      body: decision,
    });
    expect(streamed.viaHono).toBe(true);
    expect(streamed.answer.headers["content-type"]).toContain("text/event-stream");
    expect(streamed.answer.body).toContain("event: result");
  }, 60_000);

  it("writes the same request log lines", async () => {
    // A request's line is logged when its response finishes, which can come after the client read it.
    for (
      const deadline = Date.now() + 30_000;
      requestLines(served.fast.logs).length !== requestLines(served.hono.logs).length && Date.now() < deadline;
    ) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const fastLines = requestLines(served.fast.logs);
    expect(fastLines.length).toBeGreaterThan(20);
    expect(fastLines).toEqual(requestLines(served.hono.logs));
  });
});

describe("answered directly or through Hono, a token and a rate limit count alike", () => {
  const env = {
    REASONING_API_TOKEN: "s3cret-token-value",
    REASONING_API_AUTH_FAILURE_LIMIT: "2",
    REASONING_API_RATE_LIMIT: "4",
  };
  const served = useFastAndHono(env);

  it("counts requests and auth failures once, whichever of the two answers", async () => {
    const auth = ["Authorization", "Bearer s3cret-token-value"];
    const steps: Array<Sent & { status: number; viaHono: boolean }> = [
      { path: "/agent_intent", headers: [...json, ...auth], body: intent, status: 200, viaHono: false },
      { path: "/agent_intent", headers: json, body: intent, status: 401, viaHono: false },
      {
        path: "/v1/tools/reasoning_decision",
        headers: [...json, ...auth],
        body: decision,
        status: 200,
        viaHono: false,
      },
      // Counted through Hono (a query string), against the same window.
      {
        path: "/agent_intent?x=1",
        headers: ["Content-Type", "text/plain", ...auth],
        body: intent,
        status: 415,
        viaHono: true,
      },
      { path: "/agent_intent", headers: [...json, ...auth], body: intent, status: 200, viaHono: false },
      // The fifth counted request of the window: 429, with Retry-After and the RateLimit headers.
      { path: "/agent_intent", headers: [...json, ...auth], body: intent, status: 429, viaHono: false },
      { path: "/healthz", method: "GET", status: 200, viaHono: false },
      {
        path: "/agent_intent?x=1",
        headers: [...json, "Authorization", "Bearer wrong"],
        body: intent,
        status: 401,
        viaHono: true,
      },
      // Two failures (one counted each way): the client is locked out, even with the right token.
      { path: "/agent_intent", headers: [...json, ...auth], body: intent, status: 429, viaHono: false },
    ];
    for (const step of steps) {
      const { answer, viaHono } = await same(served.fast, served.hono, step);
      expect([answer.status, viaHono], `${step.path} ${JSON.stringify(step.headers)}`).toEqual([
        step.status,
        step.viaHono,
      ]);
    }
  }, 60_000);
});
