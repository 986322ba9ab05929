import { join } from "node:path";
import { reasoningTools, type ToolDefinition } from "@deliberate/contracts";
import {
  createFakeModelServer,
  type FakeModelRequest,
  type FakeModelServer,
  type FakeReply,
} from "@deliberate/providers/testing";
import { type ReasoningRepositories, reasoningModule } from "@deliberate/reasoning";
import { testStorePlace } from "@deliberate/engine/testing";
import { openStore } from "@deliberate/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { answerBySchemaName } from "./support/fake-answers.ts";
import {
  expectOutput,
  expectToolError,
  startStdioServer,
  temporaryDirectory,
  type StdioServer,
} from "./support/server-process.ts";

// reasoning_preset and reasoning_metrics end to end: the built server over
// stdio, the real SDK client, the OpenAI-compatible provider pointed at the
// loopback fake model server; a second server process on the same database
// sees the runs and the metrics the first one recorded.

const definitions = new Map<string, ToolDefinition>(
  [reasoningTools.reasoning_preset, reasoningTools.reasoning_metrics].map((definition) => [
    definition.name,
    definition as ToolDefinition,
  ]),
);

const apiKey = "sk-e2e-secret-4242";

/** Answers for the modes the code-review and architecture-decision presets use; no answer for decision_scores (it fails). */
function respond(request: FakeModelRequest): FakeReply {
  switch (request.schemaName) {
    case "detect_fallacies":
    case "detect_biases":
      return { object: { detections: [] } };
    case "decision_stakeholders":
      return {
        object: {
          stakeholders: {
            CTO: { role: "sponsor", power_level: 0.9, interest_level: 0.8 },
            Ops: { role: "runs it", power_level: 0.4, interest_level: 0.9 },
            Finance: { role: "pays", power_level: 0.7, interest_level: 0.2 },
          },
          conflicts: ["Ops vs CTO on on-call load"],
          alignments: ["CTO and Finance on cost"],
        },
      };
    default:
      return answerBySchemaName(request);
  }
}

describe("stdio: reasoning_preset and reasoning_metrics, every operation", () => {
  const directory = temporaryDirectory();
  const databasePath = join(directory.path, "preset-metrics.db");
  let fake: FakeModelServer;
  let env: Record<string, string>;
  let server: StdioServer;
  let reviewSession = "";

  beforeAll(async () => {
    fake = await createFakeModelServer({ respond });
    env = { DATABASE_PATH: databasePath, OPENAI_BASE_URL: fake.openaiBaseURL, OPENAI_API_KEY: apiKey };
    server = await startStdioServer(env);
  });
  afterAll(async () => {
    await server?.close();
    await fake?.close();
    directory.remove();
  });

  const call = (
    name: string,
    args: Record<string, unknown>,
    options?: Parameters<StdioServer["client"]["callTool"]>[1],
  ) => server.client.callTool({ name, arguments: args }, options);

  it("lists both tools with true annotations", async () => {
    const { tools } = await server.client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    expect(byName.get("reasoning_preset")?.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: true,
    });
    expect(byName.get("reasoning_metrics")?.annotations).toMatchObject({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
    expect(byName.get("reasoning_preset")?.inputSchema.properties).toMatchObject({
      operation: { enum: ["list", "run"] },
      inputs: { type: ["array", "null"] },
    });
    expect(byName.get("reasoning_metrics")?.inputSchema.properties).toMatchObject({
      query: { enum: ["summary", "by_mode", "invocations", "fallbacks", "config"] },
    });
    for (const name of definitions.keys())
      expect((byName.get(name)?.description ?? "").length).toBeLessThanOrEqual(1024);
  });

  it("reasoning_preset list: the built-in presets by category", async () => {
    const all = expectOutput("reasoning_preset", await call("reasoning_preset", { operation: "list" }));
    expect((all["presets"] as Array<{ id: string }>).map((preset) => preset.id)).toEqual([
      "code-review",
      "debug-analysis",
      "architecture-decision",
      "risk-assessment",
      "research-synthesis",
    ]);
    expect(all["categories"]).toEqual(["code", "debugging", "decision", "research", "risk"]);
    const code = expectOutput(
      "reasoning_preset",
      await call("reasoning_preset", { operation: "list", category: "code" }),
    );
    expect(code["presets"]).toEqual([
      expect.objectContaining({ id: "code-review", required_inputs: ["code"], optional_inputs: ["context"] }),
    ]);
  });

  it("reasoning_preset run: code-review runs its DAG with progress per step and one shared session", async () => {
    const progress: Array<{ progress: number; total?: number; message?: string }> = [];
    const before = fake.requests.length;
    const output = expectOutput(
      "reasoning_preset",
      await call(
        "reasoning_preset",
        { operation: "run", preset_id: "code-review", inputs: { code: "function add(a, b) { return a - b; }" } },
        { onprogress: (update) => progress.push(update) },
      ),
    );
    const execution = output["execution_result"] as {
      status: string;
      steps_completed: number;
      step_results: Array<{ step_id: string; result: { session_id: string } }>;
      final_output: Record<string, unknown>;
    };
    expect(execution.status).toBe("completed");
    expect(execution.steps_completed).toBe(5);
    reviewSession = output["session_id"] as string;
    for (const step of execution.step_results) expect(step.result.session_id).toBe(reviewSession);
    expect(execution.final_output).toMatchObject({
      review: "Refined: the constraint rules out B, per the benchmark.",
      reasoning_issues: [],
    });
    const asked = fake.requests.slice(before).map((request) => request.schemaName);
    expect(asked[0]).toBe("linear_continuation");
    expect(asked.at(-1)).toBe("reflection_critique");
    expect(new Set(asked)).toEqual(
      new Set([
        "linear_continuation",
        "divergent_perspective",
        "divergent_synthesis",
        "tree_branches",
        "detect_fallacies",
        "reflection_critique",
        "reflection_revision",
      ]),
    );
    // Progress only increases and ends at the step count.
    expect(
      progress.every(
        (update, index) =>
          update.total === 5 &&
          (index === 0 || update.progress > (progress[index - 1] as { progress: number }).progress),
      ),
    ).toBe(true);
    // The SDK client hands notifications to their handler a tick after it reads them, so the last ones can
    // lose the race with the response that follows them on the wire: assert what arrived, not that all did.
    expect(progress.length).toBeGreaterThan(0);
    expect(progress.at(-1)?.progress).toBeLessThanOrEqual(5);
  });

  it("reasoning_preset run: a failing step returns the completed steps, the failing step and its error", async () => {
    const output = expectOutput(
      "reasoning_preset",
      await call("reasoning_preset", {
        operation: "run",
        preset_id: "architecture-decision",
        inputs: { question: "Monolith or services?", options: ["monolith", "services"] },
      }),
    );
    const execution = output["execution_result"] as {
      status: string;
      step_results: Array<{ step_id: string }>;
      failed_step: { step_id: string; tool: string; error: { code: string; message: string } };
      not_run: string[];
    };
    expect(execution.status).toBe("failed");
    expect(execution.failed_step).toMatchObject({
      step_id: "ranking",
      tool: "reasoning_decision",
      error: { code: "PROVIDER_BAD_REQUEST" },
    });
    expect(execution.step_results.map((step) => step.step_id)).toEqual(["explore", "stakeholders"]);
    expect(execution.not_run).toEqual(["consequences", "bias_check", "record"]);
  });

  it("reasoning_preset: an unknown preset id or a missing input is a clear error", async () => {
    const unknown = expectToolError(await call("reasoning_preset", { operation: "run", preset_id: "code-reveiw" }));
    expect(unknown).toMatchObject({
      code: "NOT_FOUND",
      issues: [{ field: "preset_id" }],
      hint: expect.stringContaining("code-review"),
    });
    const missing = expectToolError(
      await call("reasoning_preset", { operation: "run", preset_id: "code-review", inputs: {} }),
    );
    expect(missing).toMatchObject({ code: "INVALID_INPUT", issues: [{ field: "inputs.code" }] });
  });

  it("reasoning_metrics: summary, by_mode, invocations, fallbacks and config from the recorded calls", async () => {
    const summary = expectOutput("reasoning_metrics", await call("reasoning_metrics", { query: "summary" }))[
      "summary"
    ] as {
      total_calls: number;
      by_mode: Record<string, number>;
      success_rate: number;
    };
    // Two lists and two runs; caller errors are not recorded. The failed run returned its partial results
    // but is recorded as the failure it is.
    expect(summary).toMatchObject({ total_calls: 4, by_mode: { reasoning_preset: 4 }, success_rate: 0.75 });

    const byMode = expectOutput(
      "reasoning_metrics",
      await call("reasoning_metrics", { query: "by_mode", mode_name: "preset" }),
    )["mode_stats"] as Record<string, unknown>;
    expect(byMode).toMatchObject({ mode_name: "reasoning_preset", call_count: 4 });
    for (const field of ["latency_p50_ms", "latency_p95_ms", "latency_p99_ms"])
      expect(byMode[field]).toEqual(expect.any(Number));
    expect(
      (byMode["by_operation"] as Array<{ operation: string; call_count: number }>).map((entry) => [
        entry.operation,
        entry.call_count,
      ]),
    ).toEqual([
      ["list", 2],
      ["run", 2],
    ]);

    const invocations = expectOutput(
      "reasoning_metrics",
      await call("reasoning_metrics", { query: "invocations", session_id: reviewSession, limit: "5" }),
    )["invocations"] as Array<{
      tool_name: string;
      operation: string;
      success: boolean;
      model_calls: number;
    }>;
    expect(invocations).toEqual([
      expect.objectContaining({ tool_name: "reasoning_preset", operation: "run", success: true }),
    ]);
    expect(invocations[0]?.model_calls).toBeGreaterThanOrEqual(8);

    const fallbacks = expectOutput("reasoning_metrics", await call("reasoning_metrics", { query: "fallbacks" }))[
      "fallbacks"
    ] as {
      by_provider: Array<{ provider: string; call_count: number }>;
      by_error_code: unknown[];
    };
    // The runs were served by the OpenAI-compatible provider; the lists needed no model ("none"). Ties: by name.
    expect(fallbacks.by_provider).toEqual([
      expect.objectContaining({ provider: "none", call_count: 2, model_calls: 0 }),
      expect.objectContaining({ provider: "openai", call_count: 2, failure_count: 1 }),
    ]);
    expect(fallbacks.by_error_code).toEqual([expect.objectContaining({ error_code: "PROVIDER_BAD_REQUEST" })]);

    const configResult = await call("reasoning_metrics", { query: "config" });
    const config = expectOutput("reasoning_metrics", configResult)["config"] as {
      engine: { concurrency: number; mode_settings: Record<string, unknown> };
    };
    expect(config.engine.concurrency).toBeGreaterThanOrEqual(1);
    expect(Object.keys(config.engine.mode_settings)).toContain("linear");
    expect(JSON.stringify(configResult)).not.toContain(apiKey);
  });

  it("a second server process on the same database sees the runs and the same metrics", async () => {
    const first = expectOutput("reasoning_metrics", await call("reasoning_metrics", { query: "summary" }));
    const second = await startStdioServer(env);
    try {
      const seen = expectOutput(
        "reasoning_metrics",
        await second.client.callTool({ name: "reasoning_metrics", arguments: { query: "summary" } }),
      );
      expect(seen).toEqual(first);
      const listed = expectOutput(
        "reasoning_metrics",
        await second.client.callTool({
          name: "reasoning_metrics",
          arguments: { query: "invocations", tool_name: "reasoning_preset", limit: 2 },
        }),
      );
      expect((listed["invocations"] as Array<{ operation: string }>).map((invocation) => invocation.operation)).toEqual(
        ["run", "run"],
      );
    } finally {
      await second.close();
    }
    const store = await openStore<ReasoningRepositories>({
      ...(await testStorePlace(databasePath)),
      modules: [reasoningModule],
    });
    try {
      const thoughts = await store.thoughts.listBySession(reviewSession);
      expect(new Set(thoughts.map((thought) => thought.mode))).toEqual(
        new Set(["input", "linear", "divergent", "tree", "detect", "reflection"]),
      );
      // Metrics calls are recorded too, but no figure above counted them.
      expect((await store.invocations.list({ tool: "reasoning_metrics" })).length).toBeGreaterThanOrEqual(7);
    } finally {
      await store.close();
    }
  });
});
