import { createFakeModelServer } from "@deliberate/providers/testing";
import { request as httpRequest } from "node:http";
import { connect } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { databaseOptions, eventually, getJson, postJson, startService } from "./support/service-harness.ts";
import { reasoningModule } from "@deliberate/reasoning";
import { createSelfImprovementModule } from "@deliberate/self-improvement";
import { agentIntentModule } from "../src/agent-intent-module.ts";
import type { ApiRepositories } from "../src/store/contribution.ts";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function service(env: Record<string, string> = {}) {
  const running = await startService(env);
  cleanups.push(() => running.stop());
  return running;
}

const token = "test-token-0123456789abcdef";

describe("bearer token", () => {
  it("answers 401 with WWW-Authenticate without the token, and serves with it", async () => {
    const running = await service({ REASONING_API_TOKEN: token });
    const missing = await postJson(`${running.url}/agent_intent`, { goal_text: "find x" });
    expect(missing.status).toBe(401);
    expect(missing.headers.get("www-authenticate")).toBe('Bearer realm="deliberate"');
    expect(missing.json).toMatchObject({ status: "error", error: { code: "UNAUTHORIZED" } });

    const wrong = await postJson(
      `${running.url}/agent_intent`,
      { goal_text: "find x" },
      { authorization: `Bearer ${token}x` },
    );
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get("www-authenticate")).toContain('error="invalid_token"');

    const basic = await postJson(
      `${running.url}/agent_intent`,
      { goal_text: "find x" },
      { authorization: `Basic ${Buffer.from(`a:${token}`).toString("base64")}` },
    );
    expect(basic.status).toBe(401);

    const ok = await postJson(
      `${running.url}/agent_intent`,
      { goal_text: "find x" },
      { authorization: `Bearer ${token}` },
    );
    expect(ok.status).toBe(200);
    // Health and docs stay public; tools and jobs do not.
    expect((await getJson(`${running.url}/healthz`)).status).toBe(200);
    expect((await getJson(`${running.url}/openapi.json`)).json.security).toEqual([{ bearerAuth: [] }]);
    expect((await getJson(`${running.url}/v1/tools`)).status).toBe(401);
    expect((await getJson(`${running.url}/v1/jobs/job_x`)).status).toBe(401);
  });

  it("refuses to listen off loopback without a token", async () => {
    await expect(startService({ HOST: "0.0.0.0" })).rejects.toThrow(/REASONING_API_TOKEN/);
  });
});

describe("limits", () => {
  it("answers 413 for a body over the limit", async () => {
    const running = await service({ REASONING_API_MAX_BODY_BYTES: "2048" });
    const response = await postJson(`${running.url}/agent_intent`, { goal_text: "x".repeat(4096) });
    expect(response.status).toBe(413);
    expect(response.json.error.code).toBe("PAYLOAD_TOO_LARGE");
    // Also without Content-Length (chunked): the limit applies while reading.
    const chunked = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const request = httpRequest(
        `${running.url}/agent_intent`,
        { method: "POST", headers: { "content-type": "application/json", "transfer-encoding": "chunked" } },
        (res) => {
          let body = "";
          res.on("data", (chunk: Buffer) => (body += chunk.toString()));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      request.on("error", reject);
      request.write(`{"goal_text":"${"y".repeat(1500)}`);
      request.end(`${"y".repeat(1500)}"}`);
    });
    expect(chunked.status).toBe(413);
    expect(JSON.parse(chunked.body).error.code).toBe("PAYLOAD_TOO_LARGE");
  });

  it("answers 429 with RateLimit and Retry-After headers over the rate limit; health is exempt", async () => {
    const running = await service({ REASONING_API_RATE_LIMIT: "3", REASONING_API_RATE_WINDOW_MS: "60000" });
    const statuses: number[] = [];
    let last: Awaited<ReturnType<typeof postJson>> | undefined;
    for (let index = 0; index < 4; index += 1) {
      last = await postJson(`${running.url}/agent_intent`, { goal_text: "find x" });
      statuses.push(last.status);
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect(last?.json.error.code).toBe("RATE_LIMITED");
    expect(last?.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(last?.headers.get("ratelimit-limit")).toBe("3");
    expect(last?.headers.get("ratelimit-remaining")).toBe("0");
    expect(Number(last?.headers.get("ratelimit-reset"))).toBeGreaterThan(0);
    expect((await getJson(`${running.url}/healthz`)).status).toBe(200);
  });

  it("behind a trusted proxy, limits by the hop the proxy appended, not by hops the client can forge", async () => {
    const running = await service({ REASONING_API_RATE_LIMIT: "2", REASONING_TRUST_PROXY: "1" });
    const statuses: number[] = [];
    for (const forged of ["1.1.1.1", "2.2.2.2", "3.3.3.3"]) {
      // The client forges the first hop; the proxy appends the real address last.
      statuses.push(
        (
          await postJson(
            `${running.url}/agent_intent`,
            { goal_text: "find x" },
            { "x-forwarded-for": `${forged}, 203.0.113.7` },
          )
        ).status,
      );
    }
    expect(statuses).toEqual([200, 200, 429]);
    const other = await postJson(
      `${running.url}/agent_intent`,
      { goal_text: "find x" },
      { "x-forwarded-for": "198.51.100.9" },
    );
    expect(other.status).toBe(200);
  });

  it("returns the remaining budget on allowed requests", async () => {
    const running = await service({ REASONING_API_RATE_LIMIT: "10" });
    const response = await postJson(`${running.url}/agent_intent`, { goal_text: "find x" });
    expect(response.headers.get("ratelimit-remaining")).toBe("9");
  });
});

describe("connections", () => {
  it("keeps an idle keep-alive connection past the clients' own idle limits, so a client closes first", async () => {
    const running = await service();
    const keepAlive = await new Promise<string | string[] | undefined>((resolve, reject) => {
      httpRequest(`${running.url}/healthz`, (res) => {
        res.resume();
        res.on("end", () => resolve(res.headers["keep-alive"]));
      })
        .on("error", reject)
        .end();
    });
    expect(keepAlive).toBe("timeout=30");
  });
});

describe("errors", () => {
  it("explains malformed JSON, an empty body and a wrong version with the JSON error body", async () => {
    const running = await service();
    const malformed = await postJson(`${running.url}/agent_intent`, '{"goal_text": "x",}');
    expect(malformed.status).toBe(400);
    expect(malformed.json).toMatchObject({ status: "error", error: { code: "INVALID_INPUT", retryable: false } });
    expect(malformed.json.error.message).toMatch(/^Malformed JSON body: /);
    expect(malformed.json.error.hint).toMatch(/JSON object/);
    expect(malformed.json.request_id).toBe(malformed.headers.get("x-request-id"));

    const empty = await postJson(`${running.url}/agent_intent`, "");
    expect(empty.status).toBe(400);
    expect(empty.json.error.message).toMatch(/empty/);

    const notObject = await postJson(`${running.url}/agent_intent`, "[1,2]");
    expect(notObject.status).toBe(400);

    const version = await postJson(`${running.url}/agent_intent`, { goal_text: "x" }, { "accept-version": "v2" });
    expect(version.status).toBe(400);
    expect(version.json.error.code).toBe("UNSUPPORTED_VERSION");

    const v1 = await postJson(`${running.url}/agent_intent`, { goal_text: "x" }, { "accept-version": "v1" });
    expect(v1.headers.get("api-version")).toBe("v1");

    const route = await getJson(`${running.url}/nope`);
    expect(route.status).toBe(404);
    expect(route.json.error).toMatchObject({ code: "NOT_FOUND" });
  });

  it("refuses a path id holding U+0000 with INVALID_INPUT naming it, as the MCP tools do for the same id", async () => {
    const running = await startService(
      {},
      { modules: [createSelfImprovementModule({ cycleMs: 3_600_000, syncMs: 3_600_000, analyzer: { use: "rules" } })] },
    );
    cleanups.push(() => running.stop());
    const cases: Array<{ path: string; field: string; method?: "POST" }> = [
      { path: "/v1/sessions/ses%00x", field: "session_id" },
      { path: "/v1/sessions/ses%00x/thoughts", field: "session_id" },
      { path: "/v1/jobs/job%00x", field: "job_id" },
      { path: "/v1/self-improvement/diagnoses/d%00x/approve", field: "diagnosis_id", method: "POST" },
      { path: "/v1/self-improvement/diagnoses/d%00x/reject", field: "diagnosis_id", method: "POST" },
      { path: "/v1/self-improvement/actions/a%00x/rollback", field: "action_id", method: "POST" },
    ];
    for (const { path, field, method } of cases) {
      const response =
        method === "POST" ? await postJson(`${running.url}${path}`, {}) : await getJson(`${running.url}${path}`);
      expect(response.status, path).toBe(400);
      expect(response.json.error, path).toMatchObject({
        code: "INVALID_INPUT",
        issues: [{ field, message: expect.stringContaining("U+0000") }],
      });
    }
    // The same id without U+0000 is only unknown.
    expect((await getJson(`${running.url}/v1/sessions/ses_x`)).status).toBe(404);
  });

  it("self-improvement: an empty or non-numeric ?limit and a missing or mistyped pause duration are named and explained, like a session read's", async () => {
    const running = await startService(
      {},
      { modules: [createSelfImprovementModule({ cycleMs: 3_600_000, syncMs: 3_600_000, analyzer: { use: "rules" } })] },
    );
    cleanups.push(() => running.stop());
    const session = (await getJson(`${running.url}/v1/sessions/ses_x?limit=`)).json.error.issues;
    for (const path of ["/v1/self-improvement/history", "/v1/self-improvement/diagnostics"]) {
      for (const limit of ["", "%20", "abc", "1.5"]) {
        const response = await getJson(`${running.url}${path}?limit=${limit}`);
        expect(response.status, `${path} ${limit}`).toBe(400);
        expect(response.json.error.issues, `${path} ${limit}`).toEqual([
          { field: "limit", message: expect.not.stringMatching(/Too small|NaN/) },
        ]);
      }
      expect((await getJson(`${running.url}${path}?limit=`)).json.error.issues).toEqual(session);
      expect((await getJson(`${running.url}${path}?limit=2`)).status).toBe(200);
    }
    for (const body of [{}, { duration: true }, { duration: 1.5 }, { duration: null }]) {
      const response = await postJson(`${running.url}/v1/self-improvement/pause`, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.json.error.issues, JSON.stringify(body)).toEqual([
        { field: "duration", message: expect.stringContaining("30m") },
      ]);
    }
    expect((await postJson(`${running.url}/v1/self-improvement/pause`, { duration: 0 })).json).toEqual({
      paused_until: null,
    });
  });

  it("answers a header holding U+0000 (refused by node's parser) with the JSON error body naming the headers", async () => {
    const running = await service();
    const { port } = new URL(running.url);
    const send = (text: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(Number(port), "127.0.0.1", () => socket.end(text));
        let received = "";
        socket.on("data", (chunk) => {
          received += chunk;
        });
        socket.on("close", () => resolve(received));
        socket.on("error", reject);
      });
    const body = JSON.stringify({ content: "x" });
    for (const header of ["Accept-Version: v1\u0000", "X-Request-Id: a\u0000b", "Authorization: Bearer a\u0000"]) {
      const answer = await send(
        `POST /v1/tools/reasoning_linear HTTP/1.1\r\nHost: 127.0.0.1\r\n${header}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
      );
      expect(answer.split("\r\n")[0], header).toBe("HTTP/1.1 400 Bad Request");
      const json = JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4));
      expect(json, header).toMatchObject({
        status: "error",
        error: { code: "INVALID_INPUT", issues: [{ field: "(headers)", message: expect.stringContaining("U+0000") }] },
      });
    }
    // Nothing reached a tool.
    expect(await running.service.store.invocations.list()).toEqual([]);
  });

  it("echoes a caller's request id", async () => {
    const running = await service();
    const response = await postJson(
      `${running.url}/agent_intent`,
      { goal_text: "find x" },
      { "x-request-id": "caller-id-123" },
    );
    expect(response.headers.get("x-request-id")).toBe("caller-id-123");
    await running.service.telemetry.flush();
    const events = await running.service.store.reasoningLogs.list({ requestId: "caller-id-123" });
    expect(events.map((event) => event.event)).toEqual(["intent.decided"]);
  });

  it("mirrors telemetry events to stdout as JSON lines when REASONING_LOG_STDOUT=1", async () => {
    const written: string[] = [];
    // The function itself, not a bound copy: putting a copy back would leave stdout changed for the worker's next file.
    const original = process.stdout.write;
    process.stdout.write = ((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    }) as typeof process.stdout.write;
    try {
      const running = await service({ REASONING_LOG_STDOUT: "1" });
      await postJson(`${running.url}/agent_intent`, { goal_text: "find x" });
    } finally {
      process.stdout.write = original;
    }
    const events = written
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as { message: string });
    expect(events.some((event) => event.message === "intent.decided")).toBe(true);
  });
});

describe("graceful shutdown", () => {
  it("lets an in-flight request finish, then refuses new connections", async () => {
    const model = await createFakeModelServer({
      respond: { delayMs: 400, object: { reasoning: "r", tool_name: "finish", tool_args: {}, final_text: "done" } },
    });
    cleanups.push(() => model.close());
    const running = await startService({ ...model.environment("openai"), MAX_RETRIES: "0" });
    const inFlight = postJson(`${running.url}/agent_intent`, { goal_text: "find x" });
    await eventually(() => (model.requests.length > 0 ? true : undefined));
    const stopped = running.stop();
    const response = await inFlight;
    expect(response.status).toBe(200);
    expect(response.json.final_text).toBe("done");
    await stopped;
    await expect(fetch(`${running.url}/healthz`)).rejects.toThrow();
  });

  it("puts a job still running at the end of the grace period back in the queue", async () => {
    const model = await createFakeModelServer({ respond: { delayMs: 10_000 } });
    cleanups.push(() => model.close());
    const { temporaryDirectory } = await import("./support/service-harness.ts");
    const directory = temporaryDirectory();
    const database = `${directory.path}/deliberate.db`;
    const running = await startService({
      ...model.environment("openai"),
      MAX_RETRIES: "0",
      DATABASE_PATH: database,
      REASONING_SHUTDOWN_GRACE_MS: "200",
      REASONING_CALLBACK_ALLOWLIST: "127.0.0.1",
    });
    const accepted = await postJson(`${running.url}/agent_intent_async`, {
      goal_text: "find x",
      callback_url: "http://127.0.0.1:9/cb",
    });
    await eventually(() => (model.requests.length > 0 ? true : undefined));
    await running.stop();
    const { openStore } = await import("@deliberate/store");
    const store = await openStore<ApiRepositories>({
      ...(await databaseOptions(database)),
      modules: [reasoningModule, agentIntentModule],
    });
    const job = await store.jobs.get(accepted.json.job_id);
    await store.close();
    directory.remove();
    expect(job).toMatchObject({ status: "queued", attempts: 0, owner: null });
  });
});
