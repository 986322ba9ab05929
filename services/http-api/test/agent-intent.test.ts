import { createFakeModelServer } from "@deliberate/providers/testing";
import { afterEach, describe, expect, it } from "vitest";
import { agentIntentResponseSchema } from "@deliberate/contracts";
import { eventually, postJson, startService, type RunningService } from "./support/service-harness.ts";
import type { ApiTables } from "../src/store/tables.ts";

const searchTool = {
  name: "context.fts_search",
  description: "Full-text search over the repository",
  input_schema: {
    type: "object",
    properties: { query: { type: "string", minLength: 1 }, limit: { type: "integer", minimum: 1, maximum: 50 } },
    required: ["query"],
    additionalProperties: false,
  },
};
const readTool = {
  name: "fs.read_file",
  description: "Read one file",
  input_schema: {
    type: "object",
    properties: { path: { type: "string" } },
    required: ["path"],
    additionalProperties: false,
  },
};

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function withModel(
  respond: Parameters<typeof createFakeModelServer>[0] = {},
  env: Record<string, string> = {},
  wire: "openai" | "anthropic" = "openai",
) {
  const model = await createFakeModelServer(respond);
  cleanups.push(() => model.close());
  const running = await startService({ ...model.environment(wire), MAX_RETRIES: "0", ...env });
  cleanups.push(() => running.stop());
  return { model, running };
}

async function withoutModel(env: Record<string, string> = {}) {
  const running = await startService(env);
  cleanups.push(() => running.stop());
  return running;
}

function intent(running: RunningService, body: unknown) {
  return postJson(`${running.url}/agent_intent`, body, { "Accept-Version": "v1" });
}

describe("POST /agent_intent: every request is one the real APIs accept, and asks for constrained output", () => {
  it.each([
    ["anthropic", "claude-opus-4-8"],
    ["anthropic", "claude-sonnet-4-5"],
    ["openai", "gpt-5-mini"],
    ["openai", "gpt-4.1-mini"],
  ] as const)("%s with %s: a tool call and a finish, decided by the model", async (wire, modelId) => {
    const answers = [
      {
        object: {
          value: {
            reasoning: "Search first.",
            tool_name: "context.fts_search",
            tool_args: { query: "auth", limit: null },
            final_text: "",
          },
        },
      },
      {
        object: {
          value: { reasoning: "Done.", tool_name: "finish", tool_args: {}, final_text: "Auth lives in src/auth.ts" },
        },
      },
    ];
    const { model, running } = await withModel(
      { respond: answers },
      { [wire === "anthropic" ? "ANTHROPIC_MODEL" : "OPENAI_MODEL"]: modelId },
      wire,
    );
    const first = await intent(running, { goal_text: "Find auth logic", tools: [searchTool, readTool], history: [] });
    const second = await intent(running, {
      goal_text: "Find auth logic",
      tools: [searchTool, readTool],
      history: [{ tool_name: "context.fts_search", result: "src/auth.ts" }],
    });

    // The strict form asks for every argument (optional ones nullable): a null limit means "not given".
    expect(first.json).toMatchObject({ status: "ok", decided_by: "model", tool_name: "context.fts_search" });
    expect(first.json.tool_args).toEqual({ query: "auth" });
    expect(second.json).toMatchObject({
      status: "ok",
      decided_by: "model",
      finish: true,
      final_text: "Auth lives in src/auth.ts",
    });
    expect(
      model.requests.map((request) => ({ model: request.model, refused: request.refused, strict: request.strict })),
    ).toEqual([
      { model: modelId, refused: undefined, strict: true },
      { model: modelId, refused: undefined, strict: true },
    ]);
  });
});

describe("POST /agent_intent with a model (fake model server over loopback)", () => {
  it.each(["openai", "anthropic"] as const)(
    "returns the model's tool call, constrained to the offered tools (%s wire)",
    async (wire) => {
      const { model, running } = await withModel(
        {
          respond: {
            object: {
              reasoning: "Search for the login code first.",
              tool_name: "context.fts_search",
              tool_args: { query: "auth login" },
              final_text: "",
            },
          },
        },
        {},
        wire,
      );
      const response = await intent(running, {
        session_id: "s1",
        persona: { name: "savant-engineer" },
        goal_text: "Find auth logic",
        history: [],
        tools: [searchTool, readTool],
      });
      expect(response.status).toBe(200);
      expect(agentIntentResponseSchema.parse(response.json)).toBeTruthy();
      expect(response.json).toMatchObject({
        status: "ok",
        tool_name: "context.fts_search",
        tool_args: { query: "auth login" },
        finish: false,
        final_text: null,
        decided_by: "model",
        reasoning: "Search for the login code first.",
      });
      expect(response.json.intent_id).toMatch(/^intent_/);
      expect(response.json.trace.map((entry: { step: string }) => entry.step)).toEqual([
        "tools",
        "model",
        "validate_tool_args",
      ]);
      // The model was offered exactly the tools (plus finish) as an enum, and saw their schemas in the prompt.
      const request = model.requests[0];
      expect(request?.schemaName).toBe("agent_next_action");
      // Constrained decoding, one branch per offered tool (its arguments' schema) plus finish, under `value`:
      // no anyOf at the root of a tool's input schema, which the Messages API refuses.
      expect(request).toMatchObject({ strict: true, refused: undefined });
      expect(request?.jsonSchema).toMatchObject({ type: "object", required: ["value"], additionalProperties: false });
      expect(request?.jsonSchema).not.toHaveProperty("anyOf");
      const wrapper = (request?.jsonSchema?.["properties"] ?? {}) as {
        value?: { anyOf?: Array<{ properties: Record<string, { enum?: string[] }> }> };
      };
      const branches = wrapper.value?.anyOf ?? [];
      expect(branches.map((branch) => branch.properties["tool_name"]?.enum)).toEqual([
        ["context.fts_search"],
        ["fs.read_file"],
        ["finish"],
      ]);
      expect(branches[0]?.properties["tool_args"]).toMatchObject({
        properties: { query: { type: "string" } },
        required: ["query", "limit"],
        additionalProperties: false,
      });
      expect(request?.prompt).toContain("Find auth logic");
      expect(request?.prompt).toContain('"required":["path"]');
    },
  );

  it("finishes with the model's final text", async () => {
    const { running } = await withModel({
      respond: {
        object: {
          reasoning: "Already answered.",
          tool_name: "finish",
          tool_args: {},
          final_text: "Auth lives in src/auth.ts",
        },
      },
    });
    const response = await intent(running, {
      goal_text: "Find auth logic",
      tools: [searchTool],
      history: [{ tool_name: "context.fts_search", result: "src/auth.ts" }],
    });
    expect(response.json).toMatchObject({
      finish: true,
      tool_name: null,
      tool_args: {},
      final_text: "Auth lives in src/auth.ts",
      decided_by: "model",
    });
  });

  it("rejects a tool the model invents (after one repair round) and passes nothing on", async () => {
    const { model, running } = await withModel({
      respond: {
        object: { reasoning: "Delete it.", tool_name: "shell.rm_rf", tool_args: { path: "/" }, final_text: "" },
      },
    });
    const response = await intent(running, { goal_text: "Clean up", tools: [searchTool, readTool] });
    expect(response.status).toBe(502);
    expect(response.json.status).toBe("error");
    expect(response.json.error.code).toBe("MODEL_OUTPUT_INVALID");
    expect(response.json.error.issues.some((issue: { field: string }) => issue.field === "tool_name")).toBe(true);
    expect(response.text).not.toContain('"tool_name":"shell.rm_rf"');
    expect(model.requests).toHaveLength(2); // the answer and its repair round
  });

  it("rejects tool_args that violate the chosen tool's schema", async () => {
    const { running } = await withModel({
      respond: {
        object: { reasoning: "Read it.", tool_name: "fs.read_file", tool_args: { file: "a.ts" }, final_text: "" },
      },
    });
    const response = await intent(running, { goal_text: "Read a.ts", tools: [searchTool, readTool] });
    expect(response.status).toBe(502);
    expect(response.json.error.code).toBe("MODEL_OUTPUT_INVALID");
    const fields = response.json.error.issues.map((issue: { field: string }) => issue.field);
    expect(fields).toContain("tool_args.path");
  });

  it("accepts a repaired answer: the model is told what was wrong", async () => {
    const { model, running } = await withModel({
      respond: [
        { object: { reasoning: "Read it.", tool_name: "fs.read_file", tool_args: { file: "a.ts" }, final_text: "" } },
        { object: { reasoning: "Read it.", tool_name: "fs.read_file", tool_args: { path: "a.ts" }, final_text: "" } },
      ],
    });
    const response = await intent(running, { goal_text: "Read a.ts", tools: [readTool] });
    expect(response.status).toBe(200);
    expect(response.json.tool_args).toEqual({ path: "a.ts" });
    expect(model.requests[1]?.prompt).toContain("tool_args.path");
  });

  it("uses the request's llm provider, model and key for that call only, and never logs or stores the key", async () => {
    const secretKey = "sk-request-only-7f3a9c2e5b1d";
    const model = await createFakeModelServer({
      apiKey: secretKey,
      respond: {
        object: { reasoning: "Search.", tool_name: "context.fts_search", tool_args: { query: "x" }, final_text: "" },
      },
    });
    cleanups.push(() => model.close());
    // The server knows the endpoint but holds no valid key for it.
    const running = await startService({
      OPENAI_BASE_URL: model.openaiBaseURL,
      MAX_RETRIES: "0",
      REASONING_LOG_STDOUT: "0",
    });
    cleanups.push(() => running.stop());

    const withKey = await intent(running, {
      goal_text: "Find x",
      correlation_id: "c-key",
      llm: { provider: "openai", model: "gpt-request", api_key: secretKey },
    });
    expect(withKey.status).toBe(200);
    expect(withKey.json.model).toEqual({ provider: "openai", model_id: "gpt-request" });
    expect(model.requests.at(-1)?.model).toBe("gpt-request");

    const withoutKey = await intent(running, { goal_text: "Find x" });
    expect(withoutKey.status).toBe(502); // the server's own (missing) key is refused by the provider
    expect(withoutKey.json.error.code).toBe("PROVIDER_AUTH");

    // A wrong key in the request fails without echoing it.
    const wrongKey = "sk-wrong-key-0123456789abcdef";
    const wrong = await intent(running, { goal_text: "Find x", llm: { provider: "openai", api_key: wrongKey } });
    expect(wrong.status).toBe(502);
    expect(wrong.text).not.toContain(wrongKey);

    // Nowhere: not in the log lines (stderr / file / stdout mirrors), the telemetry table or the invocations.
    await running.service.telemetry.flush();
    const logs = running.logs.join("");
    expect(logs).toContain("intent.decided");
    for (const key of [secretKey, wrongKey]) {
      expect(logs).not.toContain(key);
      const rows = await running.service.store.db
        .withTables<ApiTables>()
        .selectFrom("reasoning_logs")
        .selectAll()
        .execute();
      expect(rows.length).toBeGreaterThan(0);
      expect(JSON.stringify(rows)).not.toContain(key);
      const invocations = await running.service.store.db.selectFrom("invocations").selectAll().execute();
      expect(JSON.stringify(invocations)).not.toContain(key);
    }
  });

  it("aborts the model call when the request times out (504)", async () => {
    // The timeout leaves a loaded machine room to reach the model; the model would answer far later.
    const { model, running } = await withModel(
      { respond: { delayMs: 30_000 } },
      { REASONING_API_REQUEST_TIMEOUT_MS: "3000" },
    );
    const started = Date.now();
    const response = await intent(running, { goal_text: "Find x" });
    expect(response.status).toBe(504);
    expect(response.json.error.code).toBe("REQUEST_TIMEOUT");
    expect(Date.now() - started).toBeLessThan(30_000); // answered on the timeout, not on the model's answer
    expect(model.requests).toHaveLength(1);
  });
});

describe("client disconnect", () => {
  it("aborts the model call when the caller goes away", async () => {
    const { model, running } = await withModel({ respond: { delayMs: 10_000 } });
    const controller = new AbortController();
    const pending = fetch(`${running.url}/agent_intent`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ goal_text: "Find x", correlation_id: "gone" }),
      signal: controller.signal,
    }).catch((error: unknown) => error);
    await eventually(() => (model.requests.length > 0 ? true : undefined), 30_000, "the model call");
    const started = Date.now();
    controller.abort();
    await pending;
    const failed = await eventually(
      async () => {
        await running.service.telemetry.flush();
        const events = await running.service.store.reasoningLogs.list({ event: "intent.failed" });
        return events.find((event) => event.correlation_id === "gone");
      },
      30_000,
      "the aborted decision",
    );
    expect(failed.data["code"]).toBe("CANCELLED");
    // The model call (10 s) was abandoned at once.
    expect(Date.now() - started).toBeLessThan(2000);
  });
});

describe("POST /agent_intent without a model", () => {
  it("searches for an information-seeking goal and says the heuristic decided (the spec's minimal example)", async () => {
    const running = await withoutModel();
    const response = await intent(running, { session_id: "s1", persona: {}, goal_text: "search project for TODOs" });
    expect(response.status).toBe(200);
    expect(response.json).toMatchObject({
      status: "ok",
      tool_name: "context.fts_search",
      tool_args: { query: "search project for TODOs" },
      finish: false,
      decided_by: "heuristic",
    });
    expect(response.json.reasoning).toMatch(/heuristic/i);
    expect(response.json.trace.at(-1)).toMatchObject({ step: "heuristic" });
  });

  it("picks the offered search tool and fills its query argument", async () => {
    const running = await withoutModel();
    const tools = [
      readTool,
      {
        name: "code.search",
        input_schema: {
          type: "object",
          properties: { q: { type: "string" }, max: { type: "integer", default: 10 } },
          required: ["q", "max"],
        },
      },
    ];
    const response = await intent(running, { goal_text: "Where is the rate limiter?", tools });
    expect(response.json).toMatchObject({
      tool_name: "code.search",
      tool_args: { q: "Where is the rate limiter?", max: 10 },
      decided_by: "heuristic",
    });
  });

  it("does not repeat a search the history already answered", async () => {
    const running = await withoutModel();
    const response = await intent(running, {
      goal_text: "Find auth logic",
      history: [
        {
          tool_name: "context.fts_search",
          tool_args: { query: "Find auth logic" },
          result: [{ path: "src/auth/session.ts" }],
        },
      ],
    });
    expect(response.json).toMatchObject({ finish: true, tool_name: null, decided_by: "heuristic" });
    expect(response.json.final_text).toContain("src/auth/session.ts");
  });

  it("reads the spec runtime's nested history: a run loop ends after one search instead of repeating it until max_steps", async () => {
    const running = await withoutModel();
    const history: unknown[] = [];
    const decisions: Array<{ tool_name: string | null; finish: boolean }> = [];
    // The agent runtime's loop: ask, run the tool, append the step in its own shape, ask again.
    for (let step = 0; step < 5; step += 1) {
      const response = await intent(running, {
        session_id: "loop",
        goal_text: "Find auth logic",
        history,
        max_steps: 5,
      });
      decisions.push({ tool_name: response.json.tool_name, finish: response.json.finish });
      if (response.json.finish) {
        expect(response.json.final_text).toContain("src/auth/login.ts:12");
        break;
      }
      history.push({
        index: step + 1,
        action: {
          action: "tool",
          tool_name: response.json.tool_name,
          args: response.json.tool_args,
          reasoning: response.json.reasoning,
        },
        output: { content: [{ type: "text", text: "src/auth/login.ts:12 export function login(" }] },
      });
    }
    expect(decisions).toEqual([
      { tool_name: "context.fts_search", finish: false },
      { tool_name: null, finish: true },
    ]);
  });

  it("finishes when the goal seeks no information", async () => {
    const running = await withoutModel();
    const response = await intent(running, { goal_text: "Refactor the parser", tools: [searchTool] });
    expect(response.json).toMatchObject({ finish: true, tool_name: null, decided_by: "heuristic" });
  });
});

describe("forced_tool and max_steps", () => {
  it("forced_tool short-circuits: no model call", async () => {
    const { model, running } = await withModel({ respond: { status: 500 } });
    const response = await intent(running, {
      goal_text: "auth",
      forced_tool: "context.fts_search",
      tools: [searchTool, readTool],
    });
    expect(response.status).toBe(200);
    expect(response.json).toMatchObject({
      tool_name: "context.fts_search",
      tool_args: { query: "auth" },
      decided_by: "forced_tool",
      finish: false,
    });
    expect(model.requests).toHaveLength(0);
  });

  it("refuses a forced tool that is not offered", async () => {
    const running = await withoutModel();
    const response = await intent(running, { goal_text: "auth", forced_tool: "shell.exec", tools: [searchTool] });
    expect(response.status).toBe(400);
    expect(response.json.error.issues[0].field).toBe("forced_tool");
  });

  it("max_steps reached ends the run with the reason, before anything else", async () => {
    const { model, running } = await withModel({ respond: { status: 500 } });
    const response = await intent(running, {
      goal_text: "Find auth",
      max_steps: "2",
      forced_tool: "context.fts_search",
      history: ["step one", { tool_name: "context.fts_search", result: "x" }],
    });
    expect(response.status).toBe(200);
    expect(response.json).toMatchObject({ finish: true, tool_name: null, decided_by: "max_steps" });
    expect(response.json.final_text).toContain("max_steps");
    expect(model.requests).toHaveLength(0);
  });
});

describe("request validation", () => {
  it("names each bad field", async () => {
    const running = await withoutModel();
    const response = await intent(running, {
      goal_text: 42,
      max_steps: 0,
      tools: [{ name: "finish" }, { name: "a", input_schema: { type: "string" } }],
    });
    expect(response.status).toBe(400);
    const fields = response.json.error.issues.map((issue: { field: string }) => issue.field);
    expect(fields).toEqual(expect.arrayContaining(["goal_text", "max_steps"]));
  });

  it("refuses text holding U+0000, naming the field, whatever the database", async () => {
    const running = await withoutModel();
    const response = await intent(running, {
      goal_text: "find\u0000 it",
      tools: [{ name: "finish" }, { ...searchTool, description: "searches\u0000" }],
    });
    expect(response.status).toBe(400);
    expect(response.json.error.code).toBe("INVALID_INPUT");
    expect(response.json.error.issues.map((issue: { field: string }) => issue.field)).toEqual([
      "goal_text",
      "tools.1.description",
    ]);
  });

  it("refuses patterns only a backtracking engine can check (backreferences, lookarounds, nested {n,m}), naming the field", async () => {
    const running = await withoutModel();
    const text = (pattern: string) => ({ type: "object", properties: { query: { type: "string", pattern } } });
    const response = await intent(running, {
      goal_text: "x",
      tools: [
        { name: "a", input_schema: text("^(?=(a+)+$)") },
        { name: "b", input_schema: text("^(a+)+\\1$") },
        {
          name: "c",
          input_schema: { type: "object", properties: { q: { type: "array", items: text("^(a+){1,30}$") } } },
        },
        { name: "d", input_schema: { type: "object", patternProperties: { "^(a{1,10})+$": { type: "string" } } } },
        // Classes and escapes are not groups or backreferences; a pattern inside `default` is data.
        {
          name: "e",
          input_schema: {
            type: "object",
            properties: { q: { type: "string", pattern: "^[(?=\\1]+\\(a+\\)+$", default: "(?=x)" } },
          },
        },
      ],
    });
    expect(response.status).toBe(400);
    expect(response.json.error.issues.map((issue: { field: string }) => issue.field)).toEqual([
      "tools.0.input_schema.properties.query.pattern",
      "tools.1.input_schema.properties.query.pattern",
      "tools.2.input_schema.properties.q.items.properties.query.pattern",
      "tools.3.input_schema.patternProperties",
    ]);
  });

  it("checks a nested-quantifier pattern against a long text without holding the service (linear-time fallback)", async () => {
    const running = await withoutModel();
    // ^(a+)+$ against "aaaa…!" backtracks 2^n steps on V8's default engine: with n = 64, for ever.
    const goal = `${"a".repeat(64)}!`;
    const tool = {
      name: "t",
      input_schema: {
        type: "object",
        properties: { query: { type: "string", pattern: "^(a+)+$" } },
        required: ["query"],
      },
    };
    const response = await intent(running, { goal_text: goal, forced_tool: "t", tools: [tool] });
    expect(response.status).toBe(400);
    expect(response.json.error.issues).toEqual([
      { field: "forced_tool", message: expect.stringContaining("must match pattern") },
    ]);
    const accepted = await intent(running, { goal_text: "a".repeat(64), forced_tool: "t", tools: [tool] });
    expect(accepted.json).toMatchObject({ status: "ok", tool_name: "t", tool_args: { query: "a".repeat(64) } });
  });

  it("refuses a $ref that leads back to itself without describing a value, naming it (it overflowed the stack: 500)", async () => {
    const running = await withoutModel();
    const looping = (defs: Record<string, unknown>) => ({
      type: "object",
      $defs: defs,
      properties: { query: { $ref: "#/$defs/a" } },
      required: ["query"],
    });
    const response = await intent(running, {
      goal_text: "find x",
      forced_tool: "a",
      tools: [
        { name: "a", input_schema: looping({ a: { $ref: "#/$defs/a" } }) },
        { name: "b", input_schema: looping({ a: { $ref: "#/$defs/b" }, b: { $ref: "#/$defs/a" } }) },
        {
          name: "c",
          input_schema: looping({
            a: { allOf: [{ $ref: "#/$defs/c" }] },
            c: { anyOf: [{ $ref: "#/$defs/a" }, { type: "string" }] },
          }),
        },
      ],
    });
    expect(response.status).toBe(400);
    expect(response.json.error.code).toBe("INVALID_INPUT");
    expect(response.json.error.issues.map((issue: { field: string }) => issue.field)).toEqual([
      "tools.0.input_schema.$defs.a.$ref",
      "tools.1.input_schema.$defs.a.$ref",
      "tools.1.input_schema.$defs.b.$ref",
      "tools.2.input_schema.$defs.a.allOf.0.$ref",
      "tools.2.input_schema.$defs.c.anyOf.0.$ref",
    ]);
    // A recursive schema whose $ref describes a part of the value is fine.
    const tree = {
      type: "object",
      properties: { query: { type: "string" }, children: { type: "array", items: { $ref: "#" } } },
      required: ["query"],
    };
    const recursive = await intent(running, {
      goal_text: "find x",
      forced_tool: "t",
      tools: [{ name: "t", input_schema: tree }],
    });
    expect(recursive.json).toMatchObject({ status: "ok", tool_name: "t", tool_args: { query: "find x" } });
  });

  it("refuses a schema whose $refs expand it exponentially (a 2 KB schema checking one value 2^40 times), naming it", async () => {
    const running = await withoutModel();
    const defs: Record<string, unknown> = { d40: { type: "string" } };
    for (let level = 0; level < 40; level += 1)
      defs[`d${level}`] = { allOf: [{ $ref: `#/$defs/d${level + 1}` }, { $ref: `#/$defs/d${level + 1}` }] };
    const tool = {
      name: "t",
      input_schema: { type: "object", $defs: defs, properties: { query: { $ref: "#/$defs/d0" } }, required: ["query"] },
    };
    const response = await intent(running, { goal_text: "find x", forced_tool: "t", tools: [tool] });
    expect(response.status).toBe(400);
    expect(response.json.error.issues).toEqual([
      { field: "tools.0.input_schema", message: expect.stringContaining("subschemas through its $refs") },
    ]);
  });

  it("rejects offered tools that cannot be enforced", async () => {
    const running = await withoutModel();
    const response = await intent(running, {
      goal_text: "x",
      tools: [{ name: "finish" }, searchTool, searchTool, { name: "b", input_schema: { type: "array" } }],
    });
    expect(response.status).toBe(400);
    expect(response.json.error.issues.map((issue: { field: string }) => issue.field)).toEqual([
      "tools.0.name",
      "tools.2.name",
      "tools.3.input_schema",
    ]);
  });
});
