import { createModelRouterFromModel, createOpenAIModel } from "@deliberate/providers";
import {
  createFakeModelServer,
  type FakeModelServer,
  type FakeReply,
  respondBySchemaName,
} from "@deliberate/providers/testing";
import { afterEach, describe, expect, it } from "vitest";
import type { LearningRecord } from "../src/records.ts";
import type { SelfImprovementModuleOptions } from "../src/module.ts";
import { createSyntheticHarness, type SyntheticHarness } from "./support/synthetic.ts";

const harnesses: SyntheticHarness[] = [];
const servers: FakeModelServer[] = [];
afterEach(async () => {
  await Promise.all(harnesses.splice(0).map((harness) => harness.close().catch(() => undefined)));
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** Synthetic invocation rows, and a real model (the OpenAI SDK against the loopback fake server) for the analyzer only. */
async function withModelAnalyzer(diagnosis: () => FakeReply, options: SelfImprovementModuleOptions = {}) {
  const server = await createFakeModelServer({
    respond: respondBySchemaName({ self_improvement_diagnosis: diagnosis }),
  });
  servers.push(server);
  const model = createOpenAIModel({
    baseURL: server.openaiBaseURL,
    apiKey: "test",
    modelId: "fake-model",
    timeoutMs: 30_000,
    maxRetries: 0,
  });
  const harness = await createSyntheticHarness({
    models: createModelRouterFromModel(model),
    options: { ...options, analyzer: { use: "auto", ...options.analyzer } },
  });
  harnesses.push(harness);
  return { harness, server };
}

async function synthetic(options: SelfImprovementModuleOptions = {}) {
  const harness = await createSyntheticHarness({ options });
  harnesses.push(harness);
  return harness;
}

const lowerTimeout: FakeReply = {
  object: {
    suspected_cause: "Slow answers hold the tool's calls.",
    action: { kind: "adjust", target: "probe.timeoutMs", direction: "decrease", steps: 1 },
    rationale: "Fail faster.",
  },
};
const raiseTimeout: FakeReply = {
  object: {
    suspected_cause: "Timeouts.",
    action: { kind: "adjust", target: "probe.timeoutMs", direction: "increase", steps: 1 },
    rationale: "More time.",
  },
};

function regressedLesson(harness: SyntheticHarness): LearningRecord {
  return {
    id: "sil_harmful",
    created_at: harness.clock.now().toISOString(),
    action_id: null,
    diagnosis_id: null,
    tool: "probe_ask",
    scope: "probe",
    setting: "timeoutMs",
    direction: "decrease",
    verdict: "regressed",
    reward: -1,
    confidence: 0.5,
    breakdown: [],
    lessons: ["Changing probe.timeoutMs 2300 → 1300 made probe_ask worse: error_rate 10.0% → 100.0%; rolled back."],
  };
}

describe("calls are attributed by when they started", () => {
  it("a call that started before a change and finished after it counts for the old setting, in the learner and the window", async () => {
    const harness = await synthetic();
    await harness.record("probe_ask", "probe", 10);
    await harness.record("probe_ask", "probe", 10, { success: false, error_code: "PROVIDER_TIMEOUT" });
    const applied = await harness.module.runCycle();
    expect(applied.outcome).toBe("applied");
    // Four calls started under the old timeout (a second before the change) and time out after it is applied...
    await harness.record("probe_ask", "probe", 4, {
      success: false,
      error_code: "PROVIDER_TIMEOUT",
      startedBeforeMs: 1_000,
    });
    // ...and every call started under the new one succeeds.
    await harness.record("probe_ask", "probe", 10);
    const health = await harness.module.control(harness.store).baselines();
    expect(health.tools[0]?.window).toMatchObject({ samples: 10, error_rate: 0 });
    const judged = await harness.module.runCycle();
    // Dated by finish, the four would have counted after the change: 4 of 14 failing (29 %), as the issue measured.
    expect(judged.evaluations[0]).toMatchObject({ outcome: "kept", samples_after: 10 });
    const action = await harness.store.selfImprovement.actions.get(applied.action?.id ?? "");
    expect(action.post_metrics).toMatchObject({ samples: 10, error_rate: 0 });
  });

  it("a row written without a start gets its finish less its latency", async () => {
    const harness = await synthetic();
    await harness.store.invocations.record({
      id: "inv_no_start",
      tool: "probe_ask",
      operation: null,
      session_id: null,
      provider: "fake",
      model: "fake-model",
      input_tokens: 1,
      output_tokens: 1,
      cache_read_tokens: 0,
      cache_write_tokens: 0,
      model_calls: 1,
      latency_ms: 2_500,
      success: true,
      error_code: null,
      error_message: null,
      quality: null,
      created_at: "2026-11-24T10:00:05.000Z",
    });
    const [row] = await harness.store.invocations.list({ limit: 1 });
    expect(row).toMatchObject({ created_at: "2026-11-24T10:00:05.000Z", started_at: "2026-11-24T10:00:02.500Z" });
  });
});

describe("lessons bind every analyzer", () => {
  it("the model analyzer's proposal of a change already rolled back as harmful is set aside; the rules diagnose, saying why", async () => {
    const { harness, server } = await withModelAnalyzer(() => lowerTimeout);
    await harness.store.selfImprovement.learnings.insert(regressedLesson(harness));
    await harness.record("probe_ask", "probe", 10);
    await harness.record("probe_ask", "probe", 10, { success: false, error_code: "PROVIDER_TIMEOUT" });
    const result = await harness.module.runCycle();
    const prompts = server.requests
      .filter((request) => request.schemaName === "self_improvement_diagnosis")
      .map((request) => request.prompt);
    expect(prompts).toHaveLength(1);
    // The model is told which moves the lessons rule out.
    expect(prompts[0]).toContain(
      "Moves the lessons rule out (a proposal of one is not applied):\n- probe.timeoutMs decrease: ruled out (regressed)",
    );
    expect(result.diagnosis).toMatchObject({ analyzer: "rules", rule: "timeouts-raise-timeout" });
    expect(result.diagnosis?.description).toContain(
      "the model proposed to decrease probe.timeoutMs (300 → -700), which a lesson rules out (regressed: Changing probe.timeoutMs 2300 → 1300 made probe_ask worse",
    );
    // Before: the model's cut was applied a second time.
    expect(result.action).toMatchObject({ setting: "timeoutMs", direction: "increase" });
    expect(
      (await harness.store.selfImprovement.actions.list()).filter((action) => action.direction === "decrease"),
    ).toEqual([]);
  });

  it("a model proposal no lesson covers is applied as proposed", async () => {
    const { harness } = await withModelAnalyzer(() => raiseTimeout);
    await harness.store.selfImprovement.learnings.insert(regressedLesson(harness));
    await harness.record("probe_ask", "probe", 10);
    await harness.record("probe_ask", "probe", 10, { success: false, error_code: "PROVIDER_TIMEOUT" });
    const result = await harness.module.runCycle();
    expect(result.diagnosis).toMatchObject({ analyzer: "model" });
    expect(result.action).toMatchObject({
      setting: "timeoutMs",
      direction: "increase",
      from_value: 300,
      to_value: 1300,
    });
  });
});

describe("the rules stand in when the model analyzer fails", () => {
  it("analyzer auto: a failing model call falls back to the rules, and the diagnosis and the cycle say so", async () => {
    const { harness } = await withModelAnalyzer(() => ({ status: 500, message: "analyzer model down" }));
    await harness.record("probe_ask", "probe", 10);
    await harness.record("probe_ask", "probe", 10, { success: false, error_code: "PROVIDER_TIMEOUT" });
    const result = await harness.module.runCycle();
    // Before: outcome "failed", "analyzer failed: ...", a breaker failure.
    expect(result.outcome).toBe("applied");
    expect(result.diagnosis).toMatchObject({ analyzer: "rules", rule: "timeouts-raise-timeout" });
    expect(result.diagnosis?.description).toMatch(
      /Diagnosed by the deterministic rules \(the model analyzer failed: .*analyzer model down/,
    );
    expect(result.analyzer_fallback).toMatch(
      /^the model analyzer failed \(.*analyzer model down.*\); the rules diagnosed$/,
    );
    expect(result.reason).toContain("the rules diagnosed");
    expect(result.breaker.consecutive_failures).toBe(0);
    const [cycle] = await harness.store.selfImprovement.cycles.list(1);
    expect(cycle?.details["analyzer_fallback"]).toBe(result.analyzer_fallback);
  });

  it("an answer that fails the schema falls back too", async () => {
    const { harness } = await withModelAnalyzer(() => ({
      object: {
        suspected_cause: "?",
        action: { kind: "adjust", target: "nowhere.timeoutMs", direction: "up", steps: 9 },
        rationale: "",
      },
    }));
    await harness.record("probe_ask", "probe", 10);
    await harness.record("probe_ask", "probe", 10, { success: false, error_code: "PROVIDER_TIMEOUT" });
    const result = await harness.module.runCycle();
    expect(result.outcome).toBe("applied");
    expect(result.diagnosis?.analyzer).toBe("rules");
    expect(result.analyzer_fallback).toContain("the model analyzer failed");
  });
});

describe("one pending diagnosis per tool and setting (advisory)", () => {
  it("the same trigger is not filed again every cycle, and other tools are still analyzed", async () => {
    const harness = await synthetic({ mode: "advisory" });
    await harness.record("probe_ask", "probe", 10);
    await harness.record("probe_ask", "probe", 10, { success: false, error_code: "PROVIDER_TIMEOUT" });
    const first = await harness.module.runCycle();
    expect(first.outcome).toBe("advised");
    for (let cycle = 0; cycle < 4; cycle += 1) {
      await harness.record("probe_ask", "probe", 2, { success: false, error_code: "PROVIDER_TIMEOUT" });
      const again = await harness.module.runCycle();
      expect(again.outcome).toBe("blocked");
      expect(again.blocked).toEqual({
        kind: "no_triggers",
        suppressed: [`probe_ask error_rate: ${first.diagnosis?.id} awaits approval`],
      });
    }
    // Before: one pending diagnosis per cycle, until maxPending (3) blocked every other tool.
    expect(await harness.store.selfImprovement.diagnoses.list({ status: "pending" })).toHaveLength(1);
    await harness.record("other_tool", "echo", 10);
    await harness.record("other_tool", "echo", 10, { success: false, error_code: "PROVIDER_TIMEOUT" });
    const other = await harness.module.runCycle();
    expect(other).toMatchObject({ outcome: "advised", diagnosis: { tool: "other_tool" } });
  });

  it("another trigger of the tool proposing the same setting joins the waiting diagnosis", async () => {
    const { harness, server } = await withModelAnalyzer(() => raiseTimeout, { mode: "advisory" });
    await harness.record("probe_ask", "probe", 10);
    await harness.record("probe_ask", "probe", 10, { success: false, error_code: "PROVIDER_TIMEOUT" });
    const first = await harness.module.runCycle();
    expect(first).toMatchObject({ outcome: "advised", diagnosis: { metric: "error_rate" } });
    // Now the calls succeed, with a far lower quality: a quality trigger, and the model proposes the same setting.
    await harness.record("probe_ask", "probe", 10, { quality: 0.3 });
    const second = await harness.module.runCycle();
    expect(second.triggers.map((trigger) => trigger.metric)).toEqual(["quality"]);
    expect(second.blocked).toEqual({
      kind: "already_pending",
      diagnosis_id: first.diagnosis?.id,
      target: "probe.timeoutMs",
      tool: "probe_ask",
    });
    expect(second.reason).toContain(
      `already pending: ${first.diagnosis?.id} suggests a change of probe.timeoutMs for probe_ask`,
    );
    expect(await harness.store.selfImprovement.diagnoses.list({ status: "pending" })).toHaveLength(1);
    expect(server.requests.filter((request) => request.schemaName === "self_improvement_diagnosis")).toHaveLength(2);
  });
});
