import {
  createHostContext,
  DeliberateError,
  expandNeedsCompletion,
  linearTool,
  needsCompletionSchema,
  presetOutputSchema,
  presetTool,
  reasoningTools,
  type ToolDefinition,
} from "@deliberate/contracts";
import type { GenerateOptions } from "@deliberate/providers";
import { afterEach, describe, expect, it } from "vitest";
import { type ProgressUpdate, hostModelRouter } from "@deliberate/engine";
import type { ReasoningContext } from "../../define-handler.ts";
import { builtinPresets } from "./builtin-presets.ts";
import { definePreset, type PresetDefinition } from "./preset-definition.ts";
import { bySchemaName, createTestEngine, type TestEngine } from "../../test-support.ts";
import { createPresetHandler } from "./preset.handler.ts";
import { createReasoningModule } from "../../module.ts";
import type { ReasoningRepositories } from "../../store/contribution.ts";

// Test-only presets over the core tools: a fan-out/fan-in DAG and two roots.
const fanOut = definePreset({
  id: "fan-out",
  name: "Fan out",
  description: "A root, three independent steps that each continue it, and a join.",
  category: "testing",
  inputs: [
    { name: "topic", description: "What to think about", required: true },
    { name: "angle", description: "An optional slant", required: false, default: "no particular angle" },
  ],
  session_step: "root",
  steps: [
    {
      id: "root",
      tool: "reasoning_linear",
      description: "frame",
      arguments: { content: "ROOT {{input.topic}} ({{input.angle}})", session_id: { $ref: "session_id" } },
    },
    {
      id: "a",
      tool: "reasoning_linear",
      description: "a",
      depends_on: ["root"],
      arguments: { content: "STEP-a after [{{steps.root.content}}]", session_id: { $ref: "session_id" } },
    },
    {
      id: "b",
      tool: "reasoning_linear",
      description: "b",
      depends_on: ["root"],
      arguments: { content: "STEP-b after [{{steps.root.content}}]", session_id: { $ref: "session_id" } },
    },
    {
      id: "c",
      tool: "reasoning_linear",
      description: "c",
      depends_on: ["root"],
      arguments: { content: "STEP-c after [{{steps.root.content}}]", session_id: { $ref: "session_id" } },
    },
    {
      id: "join",
      tool: "reasoning_linear",
      description: "join",
      depends_on: ["a", "b", "c"],
      arguments: {
        content: "JOIN [{{steps.a.content}}] [{{steps.b.content}}] [{{steps.c.content}}]",
        session_id: { $ref: "session_id" },
      },
    },
  ],
  output: {
    framing: { $ref: "steps.root.content" },
    joined: { $ref: "steps.join.content" },
    confidences: [{ $ref: "steps.a.confidence" }, { $ref: "steps.b.confidence" }, { $ref: "steps.c.confidence" }],
  },
});

// Two roots: slow "x" and fast "y"; "z" needs only "y", then "w" needs "x" and "z".
const twoRoots = definePreset({
  id: "two-roots",
  name: "Two roots",
  description: "Independent roots of different speed.",
  category: "testing",
  inputs: [],
  steps: [
    { id: "x", tool: "reasoning_linear", description: "slow", arguments: { content: "STEP-x" } },
    { id: "y", tool: "reasoning_linear", description: "fast", arguments: { content: "STEP-y" } },
    {
      id: "z",
      tool: "reasoning_linear",
      description: "after y",
      depends_on: ["y"],
      arguments: { content: "STEP-z after [{{steps.y.content}}]" },
    },
    {
      id: "w",
      tool: "reasoning_linear",
      description: "after x and z",
      depends_on: ["x", "z"],
      arguments: { content: "STEP-w" },
    },
  ],
  output: { last: { $ref: "steps.w.content" } },
});

// Mixed tools, so a step's own progress (divergent reports per perspective) is folded in.
const mixed = definePreset({
  id: "mixed",
  name: "Mixed",
  description: "Divergent and reflection over a linear frame.",
  category: "Other",
  inputs: [{ name: "topic", description: "topic", required: true }],
  session_step: "root",
  steps: [
    {
      id: "root",
      tool: "reasoning_linear",
      description: "frame",
      arguments: { content: "ROOT {{input.topic}}", session_id: { $ref: "session_id" } },
    },
    {
      id: "views",
      tool: "reasoning_divergent",
      description: "views",
      depends_on: ["root"],
      arguments: {
        content: "Views on {{steps.root.content}}",
        num_perspectives: 3,
        session_id: { $ref: "session_id" },
      },
    },
    {
      id: "critique",
      tool: "reasoning_reflection",
      description: "critique",
      depends_on: ["root"],
      arguments: {
        operation: "process",
        content: "Critique {{steps.root.content}}",
        max_iterations: 1,
        session_id: { $ref: "session_id" },
      },
    },
  ],
  output: {
    synthesis: { $ref: "steps.views.synthesis" },
    viewpoints: { $ref: "steps.views.perspectives", pluck: "viewpoint" },
    quality: { $ref: "steps.critique.quality_score" },
  },
});

const testPresets: readonly PresetDefinition[] = [fanOut, twoRoots, mixed];

function promptOf(options: GenerateOptions<unknown>): string {
  return options.messages.map((message) => message.content).join("\n");
}

/** The step marker (ROOT, STEP-a, JOIN, ...) in a prompt: the first line of the thought to continue. */
function stepOf(options: GenerateOptions<unknown>): string {
  const prompt = promptOf(options);
  const thought = prompt.slice(prompt.lastIndexOf("Thought to continue:\n") + "Thought to continue:\n".length);
  return (thought.split(/\s/)[0] ?? "").trim();
}

function linearAnswer(options: GenerateOptions<unknown>) {
  const step = stepOf(options);
  return { content: `out(${step})`, confidence: 0.5, next_step: `after ${step}` };
}

const mixedAnswers = bySchemaName({
  linear_continuation: { content: "framed", confidence: 0.6, next_step: "go" },
  divergent_perspective: (index: number) => ({ viewpoint: `view ${index}`, content: "a view", novelty_score: 0.5 }),
  divergent_synthesis: { challenged_assumptions: [], synthesis: "together" },
  reflection_critique: (_index: number, call: { messages: ReadonlyArray<{ content: string }> }) => ({
    scores: !call.messages.at(-1)?.content.includes("better")
      ? { logic: 0.7, evidence: 0.7, completeness: 0.7, clarity: 0.7 }
      : { logic: 0.85, evidence: 0.85, completeness: 0.85, clarity: 0.85 },
    strengths: ["s"],
    weaknesses: ["w"],
    recommendations: ["r"],
  }),
  reflection_revision: { refined_content: "better", changes: ["c"] },
});

/**
 * Calls in flight, counted by the responder. A call waits (bounded) for
 * `expected` calls to be in flight together, so overlap does not depend on
 * timing: a runner that serialised the calls would see a maximum of 1.
 */
function createInFlightCounter(expected: number) {
  let current = 0;
  let max = 0;
  let release: () => void = () => {};
  let released = new Promise<void>((resolve) => {
    release = resolve;
  });
  return {
    get max() {
      return max;
    },
    async around<T>(work: () => T): Promise<T> {
      current += 1;
      max = Math.max(max, current);
      if (current >= expected) release();
      await Promise.race([released, new Promise((resolve) => setTimeout(resolve, 250))]);
      current -= 1;
      if (current === 0) {
        released = new Promise<void>((resolve) => {
          release = resolve;
        });
      }
      return work();
    },
  };
}

const engines: TestEngine<ReasoningRepositories>[] = [];
async function setup(...args: Parameters<typeof createTestEngine>) {
  const [script, options] = args;
  const testEngine = await createTestEngine(script, {
    modules: [createReasoningModule({ presets: testPresets })],
    ...options,
  });
  engines.push(testEngine);
  return testEngine;
}
afterEach(async () => {
  await Promise.all(engines.splice(0).map((testEngine) => testEngine.store.close()));
});

async function errorOf(promise: Promise<unknown>): Promise<DeliberateError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!DeliberateError.isInstance(error)) throw new Error(`expected a DeliberateError, got ${String(error)}`);
  return error;
}

type Execution = NonNullable<ReturnType<typeof presetOutputSchema.parse>["execution_result"]>;

async function runPreset(
  engine: TestEngine["engine"],
  args: Record<string, unknown>,
  progress?: (update: ProgressUpdate) => void,
) {
  const output = presetOutputSchema.parse(
    await engine.invoke("reasoning_preset", { operation: "run", ...args }, progress ? { progress } : {}),
  );
  return { output, execution: output.execution_result as Execution };
}

describe("reasoning_preset list", () => {
  it("shows only presets whose tools are all registered, by category", async () => {
    const { engine, model } = await setup(linearAnswer);
    const output = presetOutputSchema.parse(await engine.invoke("reasoning_preset", { operation: "list" }));
    expect(output.presets?.map((preset) => preset.id)).toEqual(["fan-out", "two-roots", "mixed"]);
    expect(output.categories).toEqual(["Other", "testing"]);
    const fan = output.presets?.[0];
    expect(fan).toMatchObject({ category: "testing", required_inputs: ["topic"], optional_inputs: ["angle"] });
    expect(fan?.steps.find((step) => step.id === "join")?.depends_on).toEqual(["a", "b", "c"]);

    const filtered = presetOutputSchema.parse(
      await engine.invoke("reasoning_preset", { operation: "list", category: "OTHER" }),
    );
    expect(filtered.presets?.map((preset) => preset.id)).toEqual(["mixed"]);
    const none = presetOutputSchema.parse(
      await engine.invoke("reasoning_preset", { operation: "list", category: "nothing-here" }),
    );
    expect(none.presets).toEqual([]);
    expect(model.calls).toHaveLength(0);
  });

  it("offers the built-in presets whose tools the engine registers", async () => {
    const testEngine = await createTestEngine(linearAnswer);
    engines.push(testEngine);
    const output = presetOutputSchema.parse(await testEngine.engine.invoke("reasoning_preset", { operation: "list" }));
    const registered = new Set(testEngine.engine.tools.map((tool) => tool.name));
    const expected = builtinPresets
      .filter((preset) => preset.steps.every((step) => registered.has(step.tool)))
      .map((preset) => preset.id);
    expect(output.presets?.map((preset) => preset.id)).toEqual(expected);
    // Today the engine registers every tool the built-ins use.
    expect(expected).toEqual([
      "code-review",
      "debug-analysis",
      "architecture-decision",
      "risk-assessment",
      "research-synthesis",
    ]);
    expect(output.categories).toEqual(["code", "debugging", "decision", "research", "risk"]);
  });
});

describe("reasoning_preset run", () => {
  it("runs independent steps concurrently, feeds results forward and shares one session", async () => {
    const counter = createInFlightCounter(3);
    const { engine, model, store } = await setup((options) => counter.around(() => linearAnswer(options)), {
      concurrency: 4,
    });
    const { output, execution } = await runPreset(engine, { preset_id: "fan-out", inputs: { topic: "caching" } });

    expect(counter.max).toBe(3); // a, b and c were in flight together
    expect(execution.status).toBe("completed");
    if (execution.status !== "completed") return;
    expect(execution).toMatchObject({ preset_id: "fan-out", steps_completed: 5, total_steps: 5 });
    expect(execution.step_results.map((step) => step.step_id)).toEqual(["root", "a", "b", "c", "join"]);
    expect(execution.final_output).toEqual({ framing: "out(ROOT)", joined: "out(JOIN)", confidences: [0.5, 0.5, 0.5] });

    // Results fed forward: the input (and the optional input's default) reach the root, the root's output
    // reaches a/b/c, and their outputs reach the join.
    const prompts = model.calls.map(promptOf);
    expect(prompts.find((prompt) => prompt.includes("ROOT caching (no particular angle)"))).toBeDefined();
    expect(prompts.find((prompt) => prompt.includes("STEP-b after [out(ROOT)]"))).toBeDefined();
    expect(prompts.find((prompt) => prompt.includes("JOIN [out(STEP-a)] [out(STEP-b)] [out(STEP-c)]"))).toBeDefined();

    // Every step wrote to the session the root started; the preset reports it.
    const sessionId = (execution.step_results[0]?.result as { session_id: string } | undefined)?.session_id ?? "";
    expect(output.session_id).toBe(sessionId);
    for (const step of execution.step_results)
      expect((step.result as { session_id: string }).session_id).toBe(sessionId);
    expect(await store.thoughts.listBySession(sessionId)).toHaveLength(10); // input + answer per step
    expect(await store.sessions.list({ limit: 10 })).toHaveLength(1);

    // One invocation row for the run, with every step's model calls.
    const [row] = await store.invocations.list({ tool: "reasoning_preset" });
    expect(row).toMatchObject({ success: true, operation: "run", model_calls: 5, session_id: sessionId });
  });

  it("keeps at most `concurrency` steps in flight", async () => {
    const counter = createInFlightCounter(2);
    const { engine } = await setup((options) => counter.around(() => linearAnswer(options)), { concurrency: 2 });
    const { execution } = await runPreset(engine, { preset_id: "fan-out", inputs: { topic: "caching" } });
    expect(execution.status).toBe("completed");
    expect(counter.max).toBe(2);
  });

  it("starts a step as soon as its own dependencies finish, not when its level does", async () => {
    // x is answered only once z has been asked (or after a long fallback): if z
    // waited for the whole first level (x and y), x would be released by the fallback.
    let zAsked: () => void = () => {};
    const zSeen = new Promise<"z">((resolve) => {
      zAsked = () => resolve("z");
    });
    let releasedBy: string | undefined;
    const { engine } = await setup(async (options) => {
      const step = stepOf(options);
      if (step === "STEP-z") zAsked();
      if (step === "STEP-x")
        releasedBy = await Promise.race([
          zSeen,
          new Promise<string>((resolve) => setTimeout(() => resolve("fallback"), 2000)),
        ]);
      return linearAnswer(options);
    });
    const { execution } = await runPreset(engine, { preset_id: "two-roots" });
    expect(releasedBy).toBe("z");
    expect(execution.status).toBe("completed");
    if (execution.status === "completed") expect(execution.final_output).toEqual({ last: "out(STEP-w)" });
  });

  it("returns partial results with the failing step and its error", async () => {
    let aFailed: () => void = () => {};
    const failure = new Promise<void>((resolve) => {
      aFailed = resolve;
    });
    const { engine, store } = await setup(async (options) => {
      const step = stepOf(options);
      if (step === "STEP-a") {
        setTimeout(aFailed, 20);
        throw new DeliberateError({ code: "PROVIDER_UNAVAILABLE", message: "upstream is down", retryable: true });
      }
      // b and c finish only after a has failed: running steps complete, nothing new starts.
      if (step === "STEP-b" || step === "STEP-c") await failure;
      return linearAnswer(options);
    });
    const { output, execution } = await runPreset(engine, { preset_id: "fan-out", inputs: { topic: "caching" } });
    expect(execution.status).toBe("failed");
    if (execution.status !== "failed") return;
    expect(execution.failed_step).toEqual({
      step_id: "a",
      tool: "reasoning_linear",
      error: { code: "PROVIDER_UNAVAILABLE", message: "upstream is down", retryable: true },
    });
    expect(execution.also_failed).toBeUndefined();
    expect(execution.step_results.map((step) => step.step_id)).toEqual(["root", "b", "c"]);
    expect(execution.steps_completed).toBe(3);
    expect(execution.not_run).toEqual(["join"]);
    expect("final_output" in execution).toBe(false);
    expect(output.session_id).toBe(
      (execution.step_results[0]?.result as { session_id: string } | undefined)?.session_id,
    );
    // The completed steps' writes stay: they are real results.
    expect(await store.thoughts.listBySession(output.session_id as string)).toHaveLength(6);
    // The invocation is a failure with the step's error, though its partial result is returned.
    const [row] = await store.invocations.list({ tool: "reasoning_preset" });
    expect(row).toMatchObject({ success: false, error_code: "PROVIDER_UNAVAILABLE", operation: "run" });
    expect(row?.error_message).toContain("Step a (reasoning_linear) failed: upstream is down");
  });

  it("reports a step whose arguments its tool rejects as that step's INVALID_INPUT", async () => {
    const broken = definePreset({
      id: "broken",
      name: "Broken",
      description: "The second step's content resolves to nothing.",
      category: "testing",
      inputs: [{ name: "topic", description: "topic", required: true }],
      steps: [
        { id: "first", tool: "reasoning_linear", description: "ok", arguments: { content: "{{input.topic}}" } },
        {
          id: "second",
          tool: "reasoning_linear",
          description: "empty",
          depends_on: ["first"],
          arguments: { content: "{{steps.first.next_step_missing}}" },
        },
      ],
      output: {},
    });
    const { engine } = await setup(linearAnswer, { modules: [createReasoningModule({ presets: [broken] })] });
    const { execution } = await runPreset(engine, { preset_id: "broken", inputs: { topic: "t" } });
    expect(execution.status).toBe("failed");
    if (execution.status !== "failed") return;
    expect(execution.failed_step.step_id).toBe("second");
    expect(execution.failed_step.error.code).toBe("INVALID_INPUT");
    expect(execution.failed_step.error.issues?.[0]?.field).toBe("content");
    expect(execution.step_results.map((step) => step.step_id)).toEqual(["first"]);
    expect(execution.not_run).toEqual([]);
  });

  it("sends increasing progress, with a message per finished step and each step's own progress folded in", async () => {
    const { engine } = await setup(mixedAnswers);
    const updates: ProgressUpdate[] = [];
    const { execution } = await runPreset(engine, { preset_id: "mixed", inputs: { topic: "caching" } }, (update) =>
      updates.push(update),
    );
    expect(execution.status).toBe("completed");
    if (execution.status === "completed")
      expect(execution.final_output).toEqual({
        synthesis: "together",
        viewpoints: ["view 1", "view 2", "view 3"],
        quality: 0.85,
      });

    for (const update of updates) expect(update.total).toBe(3);
    for (let index = 1; index < updates.length; index += 1) {
      expect(updates[index]?.progress).toBeGreaterThan(updates[index - 1]?.progress as number);
    }
    expect(updates.at(-1)?.progress).toBe(3);
    const messages = updates.map((update) => update.message ?? "");
    for (const [step, tool] of [
      ["root", "reasoning_linear"],
      ["views", "reasoning_divergent"],
      ["critique", "reasoning_reflection"],
    ]) {
      expect(messages).toContain(`step ${step} (${tool}) completed`);
    }
    expect(messages.some((message) => message.startsWith("views: perspective"))).toBe(true);
  });

  it("continues the caller's session when session_id is given", async () => {
    const { engine, store } = await setup(linearAnswer);
    const started = await engine.invoke("reasoning_linear", { content: "Earlier thought" });
    const { output, execution } = await runPreset(engine, {
      preset_id: "fan-out",
      inputs: { topic: "t" },
      session_id: started.session_id,
    });
    expect(output.session_id).toBe(started.session_id);
    for (const step of execution.step_results)
      expect((step.result as { session_id: string }).session_id).toBe(started.session_id);
    expect(await store.sessions.list({ limit: 10 })).toHaveLength(1);
  });

  it("host-executed: gathers the prompts of concurrent steps per round and leaves no duplicate writes", async () => {
    const { engine, store } = await setup([], { router: hostModelRouter });
    let result = await engine.invoke("reasoning_preset", {
      operation: "run",
      preset_id: "fan-out",
      inputs: { topic: "caching" },
    });
    const promptsPerRound: number[] = [];
    const known = createHostContext();
    while (result["status"] === "needs_completion") {
      const step = needsCompletionSchema.parse(result);
      promptsPerRound.push(step.prompts.length);
      // Nothing is written while the run is suspended.
      expect(await store.sessions.list({ limit: 10 })).toHaveLength(0);
      const answers = expandNeedsCompletion(step, known).map((prompt) => ({
        prompt_id: prompt.id,
        answer: { content: `answer to ${prompt.user.split("\n").at(-1)}`, confidence: 0.5, next_step: "n" },
      }));
      result = await engine.invoke("reasoning_submit", { resume_token: step.resume_token, answers });
    }
    expect(promptsPerRound).toEqual([1, 3, 1]); // root; a, b and c together; join
    const output = presetOutputSchema.parse(result);
    expect(output.execution_result?.status).toBe("completed");
    expect(await store.sessions.list({ limit: 10 })).toHaveLength(1);
    expect(await store.thoughts.listBySession(output.session_id as string)).toHaveLength(10);
  });

  it("rejects an unknown preset id naming preset_id, listing what is available", async () => {
    const { engine, model, store } = await setup(linearAnswer);
    const error = await errorOf(engine.invoke("reasoning_preset", { operation: "run", preset_id: "code-reveiw" }));
    expect(error.code).toBe("NOT_FOUND");
    expect(error.message).toContain("code-reveiw");
    expect(error.issues).toEqual([{ field: "preset_id", message: "no preset 'code-reveiw'" }]);
    expect(error.hint).toContain("fan-out, two-roots, mixed");
    expect(model.calls).toHaveLength(0);
    expect(await store.sessions.list({ limit: 10 })).toHaveLength(0);
  });

  it("requires preset_id for run", async () => {
    const { engine } = await setup(linearAnswer);
    const error = await errorOf(engine.invoke("reasoning_preset", { operation: "run" }));
    expect(error.code).toBe("INVALID_INPUT");
    expect(error.issues).toEqual([{ field: "preset_id", message: "preset_id is required for operation 'run'" }]);
  });

  it("rejects missing and unknown inputs naming inputs.<name>, before any model call", async () => {
    const { engine, model, store } = await setup(linearAnswer);
    const missing = await errorOf(
      engine.invoke("reasoning_preset", { operation: "run", preset_id: "fan-out", inputs: { topic: "  " } }),
    );
    expect(missing.code).toBe("INVALID_INPUT");
    expect(missing.issues).toEqual([{ field: "inputs.topic", message: "is required: What to think about" }]);
    expect(missing.hint).toContain("required inputs: topic; optional: angle");

    const unknown = await errorOf(
      engine.invoke("reasoning_preset", { operation: "run", preset_id: "fan-out", inputs: { topic: "t", angel: "x" } }),
    );
    expect(unknown.issues).toEqual([{ field: "inputs.angel", message: "preset 'fan-out' has no input 'angel'" }]);
    expect(model.calls).toHaveLength(0);
    expect(await store.sessions.list({ limit: 10 })).toHaveLength(0);
  });

  it("rejects an unknown session before running anything", async () => {
    const { engine, model } = await setup(linearAnswer);
    const error = await errorOf(
      engine.invoke("reasoning_preset", {
        operation: "run",
        preset_id: "fan-out",
        inputs: { topic: "t" },
        session_id: "ses_nope",
      }),
    );
    expect(error.code).toBe("NOT_FOUND");
    expect(model.calls).toHaveLength(0);
  });

  it("fails with CANCELLED when the call is cancelled mid-run", async () => {
    const controller = new AbortController();
    const { engine } = await setup((options) => {
      if (stepOf(options) === "STEP-a") controller.abort();
      return linearAnswer(options);
    });
    const error = await errorOf(
      engine.invoke(
        "reasoning_preset",
        { operation: "run", preset_id: "fan-out", inputs: { topic: "t" } },
        { signal: controller.signal },
      ),
    );
    expect(error.code).toBe("CANCELLED");
  });

  it("refuses to run a preset whose tools the engine does not register", async () => {
    const handler = createPresetHandler({ tools: Object.values(reasoningTools) as ToolDefinition[], presets: [mixed] });
    // An engine serving only linear and preset: the preset is refused before anything else is reached.
    const context = {
      tools: new Map([linearTool, presetTool].map((definition) => [definition.name, definition])),
    } as unknown as ReasoningContext;
    const listed = await handler.handle({ operation: "list", inputs: {} }, context);
    expect(listed.presets).toEqual([]);
    const error = await errorOf(
      handler.handle({ operation: "run", preset_id: "mixed", inputs: { topic: "t" } }, context),
    );
    expect(error.code).toBe("NOT_FOUND");
    expect(error.message).toContain("reasoning_divergent, reasoning_reflection");
  });
});

describe("preset validation at module creation", () => {
  it("fails startup on a cycle, an unknown tool or an unknown dependency", () => {
    {
      const bad = definePreset({
        id: "bad",
        name: "Bad",
        description: "Broken on purpose.",
        category: "testing",
        inputs: [],
        steps: [
          { id: "a", tool: "reasoning_linear", description: "a", depends_on: ["b"], arguments: { content: "a" } },
          { id: "b", tool: "reasoning_linear", description: "b", depends_on: ["a"], arguments: { content: "b" } },
          { id: "c", tool: "reasoning_lineer", description: "c", depends_on: ["d"], arguments: { content: "c" } },
        ],
        output: {},
      });
      expect(() => createReasoningModule({ presets: [bad] })).toThrow(/cycle: (a -> b -> a|b -> a -> b)/);
      expect(() => createReasoningModule({ presets: [bad] })).toThrow(/unknown tool 'reasoning_lineer'/);
      expect(() => createReasoningModule({ presets: [bad] })).toThrow(/unknown step 'd'/);
    }
  });
});
