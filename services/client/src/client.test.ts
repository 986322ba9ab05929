import { toolCatalogue } from "@deliberate/contracts";
import { describe, expect, it } from "vitest";
import { type CompleteFunction, createDeliberateClient, type NeedsCompletion, type PendingPrompt } from "./client.ts";
import { DeliberateClientError, isClientError } from "./errors.ts";
import type { ServerDescription, Transport, TransportCallOptions } from "./transport.ts";

// A fake transport (in memory, scripted per call) under the real client: what reaches the wire,
// and what the client makes of each answer.

type Script = (name: string, input: unknown) => unknown;

function fakeTransport(script: Script) {
  const calls: Array<{ name: string; input: unknown; options: TransportCallOptions }> = [];
  const transport: Transport = {
    surface: "http",
    endpoint: "memory://fake",
    async callTool(name, input, options = {}) {
      calls.push({ name, input, options });
      const answer = script(name, input);
      if (answer instanceof Error) throw answer;
      return answer;
    },
    async callMethod(method, params, options = {}) {
      calls.push({ name: method, input: params, options });
      return script(method, params);
    },
    async describe(): Promise<ServerDescription> {
      return {
        surface: "http",
        endpoint: "memory://fake",
        protocolVersion: "v1",
        server: null,
        capabilities: {},
        ttlMs: null,
      };
    },
    async ping() {},
    protocolVersion: () => "v1",
    async close() {},
  };
  return { transport, calls };
}

const step = (token: string, prompts: Array<{ id: string; name: string }>) => ({
  status: "needs_completion",
  resume_token: token,
  tool: "reasoning_linear",
  prompts: prompts.map((prompt) => ({
    ...prompt,
    system: "You continue reasoning.",
    user: `Answer ${prompt.id}`,
    schema: { type: "object" },
  })),
  instructions: "Answer each prompt.",
  expires_at: "2026-11-22T13:00:00.000Z",
});
const linearOutput = { thought_id: "th_1", session_id: "ses_1", content: "Option B is out.", confidence: 0.8 };

async function failureOf(promise: Promise<unknown>): Promise<DeliberateClientError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!DeliberateClientError.isInstance(error)) throw new Error(`expected a client error, got ${String(error)}`);
  return error;
}

describe("createDeliberateClient", () => {
  it("has one method per tool of the catalogue", () => {
    const { transport } = fakeTransport(() => ({}));
    const client = createDeliberateClient({ transport });
    expect(Object.keys(client.tools).sort()).toEqual(Object.keys(toolCatalogue).sort());
    for (const method of Object.values(client.tools)) expect(typeof method).toBe("function");
  });

  it("validates input with the tool's schema before sending: nothing reaches the wire", async () => {
    const { transport, calls } = fakeTransport(() => linearOutput);
    const client = createDeliberateClient({ transport });
    const error = await failureOf(client.tools.reasoning_linear({ content: "", confidence: 3 }));
    expect(error.code).toBe("INVALID_INPUT");
    expect(error.issues.map((issue) => issue.field).sort()).toEqual(["confidence", "content"]);
    expect(calls).toEqual([]);
  });

  it("takes null for an optional field as not given, as the services do, and sends the call as given", async () => {
    const { transport, calls } = fakeTransport(() => linearOutput);
    const client = createDeliberateClient({ transport });
    // What a strict-mode model writes: every field, null for those it leaves out (not in the TypeScript type).
    const input = { content: "Pick a database.", session_id: null, confidence: null } as unknown as { content: string };
    expect(await client.tools.reasoning_linear(input)).toEqual(linearOutput);
    expect(calls.map((call) => call.input)).toEqual([
      { content: "Pick a database.", session_id: null, confidence: null },
    ]);
  });

  it("refuses text holding U+0000 as the services do, naming the field: nothing reaches the wire", async () => {
    const { transport, calls } = fakeTransport(() => ({}));
    const client = createDeliberateClient({ transport });
    const error = await failureOf(
      client.tools.reasoning_checkpoint({ operation: "create", session_id: "ses_1", name: "before\u0000after" }),
    );
    expect(error.code).toBe("INVALID_INPUT");
    expect(error.issues).toEqual([{ field: "name", message: expect.stringContaining("U+0000") }]);
    expect(calls).toEqual([]);
  });

  it("returns the checked output and says whether the call may be repeated", async () => {
    const { transport, calls } = fakeTransport((name) =>
      name === "reasoning_linear" ? linearOutput : { query: "summary" },
    );
    const client = createDeliberateClient({ transport });
    expect(await client.tools.reasoning_linear({ content: "Pick a database." })).toEqual(linearOutput);
    expect(calls[0]).toMatchObject({
      name: "reasoning_linear",
      input: { content: "Pick a database." },
      options: { idempotent: false },
    });
    await client.callTool("reasoning_metrics", { query: "summary" }, { idempotent: true });
    expect(calls[1]?.options.idempotent).toBe(true);
  });

  it("calls an answer that is not the tool's output malformed, naming the field", async () => {
    const { transport } = fakeTransport(() => ({ ...linearOutput, confidence: "high" }));
    const error = await failureOf(createDeliberateClient({ transport }).tools.reasoning_linear({ content: "x" }));
    expect(error.code).toBe("MALFORMED_RESPONSE");
    expect(error.issues.map((issue) => issue.field)).toEqual(["confidence"]);
    const lenient = createDeliberateClient({ transport, validateOutput: false });
    expect(await lenient.tools.reasoning_linear({ content: "x" })).toMatchObject({ confidence: "high" });
  });

  it("answers needs_completion steps with complete() and submits them until the result", async () => {
    const { transport, calls } = fakeTransport((name, input) => {
      if (name === "reasoning_linear")
        return step("rt_1", [
          { id: "p1-a", name: "linear_continuation" },
          { id: "p2-b", name: "linear_extra" },
        ]);
      const token = (input as { resume_token: string }).resume_token;
      return token === "rt_1" ? step("rt_1", [{ id: "p3-c", name: "linear_more" }]) : linearOutput;
    });
    const seen: Array<{ id: string; round: number; tool: string }> = [];
    const complete: CompleteFunction = (prompt, context) => {
      seen.push({ id: prompt.id, round: context.round, tool: context.tool });
      return { content: `answer to ${prompt.id}` };
    };
    let submissions = 0;
    const counting: Transport = {
      ...transport,
      callTool: (name, input, options) => {
        if (name === "reasoning_submit") {
          submissions += 1;
          if (submissions === 2)
            return transport.callTool(name, { ...(input as object), resume_token: "rt_done" }, options);
        }
        return transport.callTool(name, input, options);
      },
    };
    const client = createDeliberateClient({ transport: counting, complete });
    expect(await client.tools.reasoning_linear({ content: "x" })).toEqual(linearOutput);
    expect(seen).toEqual([
      { id: "p1-a", round: 1, tool: "reasoning_linear" },
      { id: "p2-b", round: 1, tool: "reasoning_linear" },
      { id: "p3-c", round: 2, tool: "reasoning_linear" },
    ]);
    expect(calls[1]).toMatchObject({
      name: "reasoning_submit",
      input: {
        resume_token: "rt_1",
        answers: [
          { prompt_id: "p1-a", answer: { content: "answer to p1-a" } },
          { prompt_id: "p2-b", answer: { content: "answer to p2-b" } },
        ],
      },
      options: { idempotent: false },
    });
  });

  it("rebuilds compact steps' prompts in full for complete(), from blocks this and earlier steps of the call sent", async () => {
    const compact = (
      prompt: { id: string; user_refs: string[] },
      context: Record<string, string>,
      schemas: Record<string, object>,
    ) => ({
      status: "needs_completion",
      resume_token: "rt_c",
      tool: "reasoning_linear",
      prompts: [
        {
          id: prompt.id,
          name: "linear_continuation",
          system_ref: "csys",
          user_refs: prompt.user_refs,
          schema_ref: "sobj",
        },
      ],
      context,
      schemas,
      instructions: "Answer each prompt.",
      expires_at: "2026-11-22T13:00:00.000Z",
    });
    const { transport } = fakeTransport((name, input) => {
      if (name === "reasoning_linear")
        return compact(
          { id: "p1", user_refs: ["cproblem"] },
          { csys: "You reason.", cproblem: "Problem: cache misses" },
          { sobj: { type: "object" } },
        );
      // The second step names the system text, the problem and the schema the first step sent.
      if ((input as { answers?: Array<{ prompt_id: string }> }).answers?.[0]?.prompt_id === "p1")
        return compact({ id: "p2", user_refs: ["cproblem", "cnext"] }, { cnext: "Step 2" }, {});
      return linearOutput;
    });
    const seen: PendingPrompt[] = [];
    const client = createDeliberateClient({
      transport,
      complete: (prompt) => {
        seen.push(prompt);
        return { content: "c" };
      },
    });
    expect(await client.tools.reasoning_linear({ content: "x" })).toEqual(linearOutput);
    expect(seen).toEqual([
      {
        id: "p1",
        name: "linear_continuation",
        system: "You reason.",
        user: "Problem: cache misses",
        schema: { type: "object" },
      },
      {
        id: "p2",
        name: "linear_continuation",
        system: "You reason.",
        user: "Problem: cache misses\n\nStep 2",
        schema: { type: "object" },
      },
    ]);
  });

  it("resumes a compact step whose earlier blocks it never saw by asking the server to resend the step whole", async () => {
    const later = {
      status: "needs_completion",
      resume_token: "rt_r",
      tool: "reasoning_linear",
      prompts: [
        { id: "p2", name: "linear_continuation", system_ref: "csys", user_refs: ["cproblem"], schema_ref: "sobj" },
      ],
      context: {},
      schemas: {},
      instructions: "Answer each prompt.",
      expires_at: "2026-11-22T13:00:00.000Z",
    };
    const { transport, calls } = fakeTransport((_name, input) => {
      if ((input as { resend?: boolean }).resend === true)
        return {
          ...later,
          context: { csys: "You reason.", cproblem: "Problem" },
          schemas: { sobj: { type: "object" } },
        };
      return linearOutput;
    });
    const seen: PendingPrompt[] = [];
    const client = createDeliberateClient({
      transport,
      complete: (prompt) => {
        seen.push(prompt);
        return { content: "c" };
      },
    });
    expect(await client.resume(later as NeedsCompletion)).toEqual(linearOutput);
    expect(calls.map((call) => call.input)).toEqual([
      { resume_token: "rt_r", resend: true },
      { resume_token: "rt_r", answers: [{ prompt_id: "p2", answer: { content: "c" } }] },
    ]);
    expect(seen).toEqual([
      { id: "p2", name: "linear_continuation", system: "You reason.", user: "Problem", schema: { type: "object" } },
    ]);
  });

  it("without complete(), fails with COMPLETION_REQUIRED carrying the step; resume() finishes it later", async () => {
    const { transport } = fakeTransport((name) =>
      name === "reasoning_linear" ? step("rt_9", [{ id: "p1", name: "linear_continuation" }]) : linearOutput,
    );
    const client = createDeliberateClient({ transport });
    const error = await failureOf(client.tools.reasoning_linear({ content: "x" }));
    expect(error.code).toBe("COMPLETION_REQUIRED");
    expect(error.needsCompletion?.resume_token).toBe("rt_9");
    const pending = error.needsCompletion;
    if (!pending) throw new Error("no step");
    expect(await client.resume(pending, { complete: () => ({ content: "done" }) })).toEqual(linearOutput);
    const raw = await client.callRaw("reasoning_linear", { content: "x" });
    expect(raw).toMatchObject({ status: "needs_completion" });
  });

  it("answers again once, with the server's feedback, when a submission is rejected", async () => {
    let submissions = 0;
    const { transport } = fakeTransport((name) => {
      if (name === "reasoning_linear") return step("rt_2", [{ id: "p1", name: "linear_continuation" }]);
      submissions += 1;
      if (submissions === 1) {
        return new DeliberateClientError({
          code: "INVALID_INPUT",
          message: "bad answer",
          issues: [{ field: "answers.0.answer.confidence", message: "Too big: expected number to be <=1" }],
        });
      }
      return linearOutput;
    });
    const feedback: Array<string | undefined> = [];
    const client = createDeliberateClient({
      transport,
      complete: (_prompt, context) => {
        feedback.push(context.feedback);
        return { confidence: context.feedback ? 0.5 : 5 };
      },
    });
    expect(await client.tools.reasoning_linear({ content: "x" })).toEqual(linearOutput);
    expect(feedback).toEqual([undefined, "answers.0.answer.confidence: Too big: expected number to be <=1"]);
  });

  it("reports a failing complete() and runaway rounds as COMPLETION_FAILED", async () => {
    const { transport } = fakeTransport(() => step("rt_3", [{ id: "p1", name: "linear_continuation" }]));
    const failing = createDeliberateClient({
      transport,
      complete: () => {
        throw new Error("model offline");
      },
    });
    const error = await failureOf(failing.tools.reasoning_linear({ content: "x" }));
    expect(error.code).toBe("COMPLETION_FAILED");
    expect(error.message).toContain("model offline");
    const endless = createDeliberateClient({ transport, complete: () => ({}), maxCompletionRounds: 3 });
    const runaway = await failureOf(endless.tools.reasoning_linear({ content: "x" }));
    expect(runaway.code).toBe("COMPLETION_FAILED");
    expect(runaway.message).toContain("3 rounds");
  });

  it("keeps a server's error code, and calls what is not a client error a connection failure", async () => {
    const { transport } = fakeTransport(
      () => new DeliberateClientError({ code: "NOT_FOUND", message: "Unknown session ses_x" }),
    );
    expect(
      (
        await failureOf(
          createDeliberateClient({ transport }).tools.reasoning_linear({ content: "x", session_id: "ses_x" }),
        )
      ).code,
    ).toBe("NOT_FOUND");
    const broken = fakeTransport(() => new TypeError("socket hang up"));
    const error = await failureOf(
      createDeliberateClient({ transport: broken.transport }).tools.reasoning_linear({ content: "x" }),
    );
    expect(isClientError(error, "CONNECTION_FAILED")).toBe(true);
  });
});
