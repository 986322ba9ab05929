import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCallbackReceiver } from "./support/callback-receiver.ts";
import { eventually, getJson, postJson, type RunningService, startService } from "./support/service-harness.ts";

let running: RunningService;
let callbacks: Awaited<ReturnType<typeof startCallbackReceiver>>;
beforeAll(async () => {
  callbacks = await startCallbackReceiver();
  running = await startService({ REASONING_CALLBACK_ALLOWLIST: "127.0.0.1" });
});
afterAll(async () => {
  await running?.stop();
  await callbacks?.close();
});

const intent = (correlationId: string, extra: Record<string, unknown> = {}) => ({
  session_id: "s1",
  goal_text: "search project for TODOs",
  persona: { name: "savant-engineer", tone: "terse" },
  callback_url: `${callbacks.url}/hooks/${correlationId}`,
  correlation_id: correlationId,
  ...extra,
});

const delivered = (correlationId: string) =>
  callbacks.received.filter((callback) => callback.body?.correlation_id === correlationId);

describe("correlation_id is an idempotency key", () => {
  it("the same request again returns the same job (Idempotent-Replayed), and one callback is sent", async () => {
    const first = await postJson(`${running.url}/agent_intent_async`, intent("idem-1"));
    expect(first.status).toBe(202);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    // A retry, with its object keys in another order: the same request.
    const reordered = {
      correlation_id: "idem-1",
      callback_url: `${callbacks.url}/hooks/idem-1`,
      persona: { tone: "terse", name: "savant-engineer" },
      goal_text: "search project for TODOs",
      session_id: "s1",
    };
    const again = await postJson(`${running.url}/agent_intent_async`, reordered);
    expect(again.status).toBe(202);
    expect(again.json).toEqual({ status: "accepted", job_id: first.json.job_id, correlation_id: "idem-1" });
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    const listed = await getJson(`${running.url}/v1/jobs?correlation_id=idem-1`);
    expect(listed.status).toBe(200);
    expect(listed.json.correlation_id).toBe("idem-1");
    expect(listed.json.jobs.map((job: { job_id: string }) => job.job_id)).toEqual([first.json.job_id]);
    await eventually(
      async () =>
        (await getJson(`${running.url}/v1/jobs/${first.json.job_id}`)).json.callback.status === "delivered"
          ? true
          : undefined,
      30_000,
      "the delivery",
    );
    expect(delivered("idem-1")).toHaveLength(1);
    // Replayed after it finished: still the same job, nothing queued or sent again.
    const late = await postJson(`${running.url}/agent_intent_async`, intent("idem-1"));
    expect(late.json.job_id).toBe(first.json.job_id);
    expect((await getJson(`${running.url}/v1/jobs?correlation_id=idem-1`)).json.jobs).toHaveLength(1);
  });

  it("a different request under a correlation_id already used is 409 CONFLICT naming the job that holds it", async () => {
    const first = await postJson(`${running.url}/agent_intent_async`, intent("idem-2"));
    const conflicting = await postJson(
      `${running.url}/agent_intent_async`,
      intent("idem-2", { goal_text: "Find auth logic" }),
    );
    expect(conflicting.status).toBe(409);
    expect(conflicting.json.error).toMatchObject({
      code: "CONFLICT",
      issues: [
        { field: "correlation_id", message: `already used by job ${first.json.job_id} for a different request` },
      ],
    });
    expect(conflicting.json.error.message).toContain("a correlation_id is an idempotency key");
    expect(conflicting.json.error.hint).toContain("GET /v1/jobs?correlation_id=idem-2");
    // Another callback URL is another request too.
    const elsewhere = await postJson(
      `${running.url}/agent_intent_async`,
      intent("idem-2", { callback_url: `${callbacks.url}/other` }),
    );
    expect(elsewhere.status).toBe(409);
    expect((await getJson(`${running.url}/v1/jobs?correlation_id=idem-2`)).json.jobs).toHaveLength(1);
  });

  it("a correlation_id whose job was canceled is not reused: 409, asking for a new one", async () => {
    // No workers: the job stays queued until canceled.
    const idle = await startService({ REASONING_CALLBACK_ALLOWLIST: "127.0.0.1", REASONING_QUEUE_WORKER: "0" });
    try {
      const first = await postJson(`${idle.url}/agent_intent_async`, intent("idem-4"));
      expect((await postJson(`${idle.url}/agent_intent_cancel`, { correlation_id: "idem-4" })).json).toMatchObject({
        ok: true,
        canceled: [first.json.job_id],
      });
      const again = await postJson(`${idle.url}/agent_intent_async`, intent("idem-4"));
      expect(again.status).toBe(409);
      expect(again.json.error).toMatchObject({
        code: "CONFLICT",
        issues: [{ field: "correlation_id", message: `job ${first.json.job_id} under it was canceled` }],
        hint: "Send the request again with a new correlation_id.",
      });
    } finally {
      await idle.stop();
    }
  });

  it("racing identical requests make one job", async () => {
    const results = await Promise.all(
      Array.from({ length: 12 }, () => postJson(`${running.url}/agent_intent_async`, intent("idem-3"))),
    );
    expect(new Set(results.map((result) => result.status))).toEqual(new Set([202]));
    expect(new Set(results.map((result) => result.json.job_id)).size).toBe(1);
    expect(results.filter((result) => result.headers.get("idempotent-replayed") === "true")).toHaveLength(11);
    expect((await getJson(`${running.url}/v1/jobs?correlation_id=idem-3`)).json.jobs).toHaveLength(1);
  });

  it("without a correlation_id every request is a new job", async () => {
    const { correlation_id: _none, ...anonymous } = intent("unused");
    const a = await postJson(`${running.url}/agent_intent_async`, anonymous);
    const b = await postJson(`${running.url}/agent_intent_async`, anonymous);
    expect(a.json.job_id).not.toBe(b.json.job_id);
  });

  it("the jobs listing needs a correlation_id and a sane limit, and is in the OpenAPI document", async () => {
    const missing = await getJson(`${running.url}/v1/jobs`);
    expect(missing.status).toBe(400);
    expect(missing.json.error).toMatchObject({ code: "INVALID_INPUT", issues: [{ field: "correlation_id" }] });
    const badLimit = await getJson(`${running.url}/v1/jobs?correlation_id=idem-1&limit=1000`);
    expect(badLimit.status).toBe(400);
    expect(badLimit.json.error.issues[0].field).toBe("limit");
    expect((await getJson(`${running.url}/v1/jobs?correlation_id=nobody`)).json).toEqual({
      correlation_id: "nobody",
      jobs: [],
    });
    const document = (await getJson(`${running.url}/openapi.json`)).json;
    expect(document.paths["/v1/jobs"].get.parameters.map((parameter: { name: string }) => parameter.name)).toEqual(
      expect.arrayContaining(["correlation_id", "limit"]),
    );
    expect(document.paths["/agent_intent_async"].post.description).toContain("correlation_id is an idempotency key");
    expect(document.paths["/agent_intent_async"].post.responses["409"]).toBeDefined();
  });
});
