import type { FakeReply } from "@deliberate/providers/testing";
import { afterEach, describe, expect, it } from "vitest";
import { createHarness, type Harness, probeAnswer } from "./support/harness.ts";

const harnesses: Harness[] = [];
afterEach(async () => {
  await Promise.all(harnesses.splice(0).map((harness) => harness.close()));
});

async function harnessWith(input: Parameters<typeof createHarness>[0]) {
  const harness = await createHarness(input);
  harnesses.push(harness);
  return harness;
}

/** A probe answer after `delay()` milliseconds (read per request, so a test changes the provider's latency live). */
function slowProbe(delay: () => number) {
  return () => ({ ...probeAnswer, delayMs: delay() });
}

// These scenarios drive real calls against a fake model (in this process) with real latencies and
// timeouts, and hold on a loaded machine without retries:
// - a call that must time out gets an answer slower than its timeout: the client's timer is armed before
//   the fake server's and expires first, and timers fire in order, so it times out however late either fires;
// - a call that must succeed has seconds to spare: an immediate answer within a 3 s timeout or more, a
//   slow one 4.5 s or more inside its timeout;
// - the healthy calls a latency baseline is measured on run one after another, so the baseline is a call's
//   own latency, not the wait of ten calls at once on a busy machine (0.5 s measured at a load of 17, half
//   way to where the slowdown after the rollback would fall under "high", the least severity acted on).
describe("a good action is kept", () => {
  it("raises a timing-out mode's timeout by the rules, the measured error rate falls, the reward is positive and the action stays", async () => {
    let delay = 0;
    const harness = await harnessWith({
      probe: slowProbe(() => delay),
      options: {
        defaultTimeoutMs: 3_000,
        executor: { allowlist: { timeoutMs: { min: 100, max: 9_000, step: 3_000, maxSteps: 2 } } },
      },
    });
    expect(await harness.call(10, "one by one")).toBe(0);
    const first = await harness.module.runCycle();
    expect(first.outcome).toBe("blocked");
    expect(first.blocked).toEqual({ kind: "no_triggers", suppressed: [] });

    delay = 3_500; // the provider slows down beyond the 3 s timeout: every call times out
    expect(await harness.call(10)).toBe(10);
    const acted = await harness.module.runCycle();
    expect(acted.outcome).toBe("applied");
    expect(acted.triggers[0]).toMatchObject({
      tool: "probe_ask",
      metric: "error_rate",
      observed: 1,
      baseline: 0,
      severity: "critical",
    });
    expect(acted.diagnosis).toMatchObject({ analyzer: "rules", rule: "timeouts-raise-timeout", status: "applied" });
    expect(acted.diagnosis?.description).toContain(
      "Diagnosed by the deterministic rules (the analyzer is set to rules)",
    );
    expect(acted.action).toMatchObject({
      scope: "probe",
      setting: "timeoutMs",
      from_value: 3000,
      to_value: 9000,
      previous_override: null,
      tools: ["probe_ask"],
      status: "evaluating",
    });
    // Which mode the tool asks was learned from the engine's invocation events.
    expect(await harness.store.selfImprovement.toolModes.all()).toEqual(new Map([["probe_ask", ["probe"]]]));
    // Live: the engine reads the override on the next call, no restart.
    expect(harness.engine.settingsFor("probe").timeoutMs).toBe(9000);

    expect(await harness.call(10)).toBe(0); // the same 3.5 s answers, 5.5 s inside the raised timeout
    const judged = await harness.module.runCycle();
    expect(judged.evaluations).toHaveLength(1);
    const [evaluation] = judged.evaluations;
    expect(evaluation).toMatchObject({ outcome: "kept", samples_before: 10, samples_after: 10 });
    expect(evaluation?.reward).toBeGreaterThan(0);
    const action = await harness.store.selfImprovement.actions.get(acted.action?.id ?? "");
    expect(action).toMatchObject({ status: "kept" });
    expect(action.reward).toBeGreaterThan(0);
    const errorRate = (await harness.store.selfImprovement.learnings.forAction(action.id))?.breakdown.find(
      (entry) => entry.metric === "error_rate",
    );
    expect(errorRate).toMatchObject({ before: 1, after: 0, before_samples: 10, after_samples: 10, significant: true });
    expect(errorRate?.minimum_detectable_effect).toBeGreaterThan(0);
    expect(harness.engine.settingsFor("probe").timeoutMs).toBe(9000);
    expect((await harness.module.control(harness.store).status()).overrides).toMatchObject([
      { target: "probe.timeoutMs", value: 9000, action_id: action.id },
    ]);
  });
});

describe("a bad action is undone", () => {
  it("rolls back automatically a change the model suggested when the measured error rate rises, and feeds the lesson to the next analysis", async () => {
    let delay = 0;
    const diagnoses: FakeReply[] = [
      {
        object: {
          suspected_cause: "Slow answers hold the tool's calls; failing fast would cut latency.",
          action: { kind: "adjust", target: "probe.timeoutMs", direction: "decrease", steps: 2 },
          rationale: "A shorter timeout bounds the latency.",
        },
      },
    ];
    const harness = await harnessWith({
      probe: slowProbe(() => delay),
      diagnosis: (): FakeReply =>
        diagnoses.shift() ?? {
          object: {
            suspected_cause: "The provider is slow.",
            action: { kind: "none", reason: "Nothing listed speeds the provider up." },
            rationale: "Lesson: lowering the timeout failed.",
          },
        },
      options: {
        analyzer: { use: "auto" },
        defaultTimeoutMs: 6_500,
        executor: { allowlist: { timeoutMs: { min: 100, max: 9_000, step: 3_000, maxSteps: 2 } } },
      },
    });
    expect(await harness.call(10, "one by one")).toBe(0);
    delay = 2_000; // slower, 4.5 s inside the 6500 ms timeout
    expect(await harness.call(10)).toBe(0);
    const acted = await harness.module.runCycle();
    // p95 rose from a call's own latency to 2000 ms: critical on a quiet machine, at least high on a loaded one.
    expect(acted.triggers[0]).toMatchObject({ metric: "latency_p95" });
    expect(["high", "critical"]).toContain(acted.triggers[0]?.severity);
    expect(acted.diagnosis).toMatchObject({
      analyzer: "model",
      rule: null,
      suspected_cause: "Slow answers hold the tool's calls; failing fast would cut latency.",
    });
    expect(acted.action).toMatchObject({
      scope: "probe",
      setting: "timeoutMs",
      direction: "decrease",
      from_value: 6500,
      to_value: 500,
    });
    const diagnosisRequest = harness.server.requests.find(
      (request) => request.schemaName === "self_improvement_diagnosis",
    );
    expect(diagnosisRequest?.prompt).toContain("probe.timeoutMs: 6500; 100..9000; step 3000; at most 2 steps");

    expect(await harness.call(10)).toBe(10); // 2000 ms answers now time out at 500 ms
    const judged = await harness.module.runCycle();
    expect(judged.evaluations[0]).toMatchObject({ outcome: "rolled_back" });
    expect(judged.evaluations[0]?.reward).toBeLessThan(0);
    const action = await harness.store.selfImprovement.actions.get(acted.action?.id ?? "");
    expect(action).toMatchObject({ status: "rolled_back", rolled_back_by: "learner" });
    expect(harness.engine.settingsFor("probe").timeoutMs).toBeUndefined();
    expect((await harness.store.selfImprovement.overrides.all()).length).toBe(0);
    expect(judged.breaker.consecutive_failures).toBe(1);
    expect(await harness.call(10)).toBe(0); // the configured timeout is back

    // The lesson reaches the next analysis: the calls are still slow (the window's 2000 ms against a baseline
    // of 0.7 × a call's own latency + 0.3 × 2000 ms: high or critical), so the model is asked again.
    const learning = await harness.store.selfImprovement.learnings.forAction(action.id);
    expect(learning?.verdict).toBe("regressed");
    expect(learning?.lessons[0]).toContain("made probe_ask worse");
    const next = await harness.module.runCycle();
    expect(next).toMatchObject({ outcome: "no_action", triggers: [{ metric: "latency_p95" }] });
    const prompts = harness.server.requests
      .filter((request) => request.schemaName === "self_improvement_diagnosis")
      .map((request) => request.prompt);
    expect(prompts).toHaveLength(2);
    expect(prompts.at(-1)).toContain("[regressed] Changing probe.timeoutMs 6500 → 500 made probe_ask worse");
  });
});

describe("the guards", () => {
  it("refuses a model's change that leaves the allowlist's bounds, and changes nothing", async () => {
    let delay = 0;
    const harness = await harnessWith({
      probe: slowProbe(() => delay),
      diagnosis: {
        object: {
          suspected_cause: "Timeouts.",
          action: { kind: "adjust", target: "probe.timeoutMs", direction: "increase", steps: 2 },
          rationale: "More time.",
        },
      },
      options: {
        analyzer: { use: "model" },
        executor: { allowlist: { timeoutMs: { min: 100, max: 2_000, step: 1_000, maxSteps: 2 } } },
      },
    });
    // The baseline one call after another: at once, a loaded machine makes it slow enough to soften the slowdown's severity.
    await harness.call(10, "one by one");
    delay = 2_500;
    await harness.call(10);
    const result = await harness.module.runCycle();
    expect(result.outcome).toBe("refused");
    expect(result.reason).toContain("probe.timeoutMs: 3000 is above the allowlist maximum 2000");
    expect(result.diagnosis).toMatchObject({ status: "refused", analyzer: "model" });
    expect(result.diagnosis?.status_reason).toContain("above the allowlist maximum 2000");
    expect(result.action).toBeNull();
    expect(harness.engine.settingsFor("probe").timeoutMs).toBeUndefined();
    expect(await harness.store.selfImprovement.actions.list()).toEqual([]);
    expect(result.breaker.consecutive_failures).toBe(1);
  });

  it("opens the breaker after 3 failed cycles, stays open 5 minutes, then closes after 2 good cycles in half-open", async () => {
    let delay = 0;
    let analyzerDown = true;
    const harness = await harnessWith({
      probe: slowProbe(() => delay),
      diagnosis: () =>
        analyzerDown
          ? { status: 500, message: "analyzer model down" }
          : {
              object: {
                suspected_cause: "Slow provider.",
                action: { kind: "none", reason: "Nothing to change." },
                rationale: "Wait.",
              },
            },
      options: { analyzer: { use: "model" } },
    });
    // The baseline one call after another: at once, a loaded machine makes it slow enough to soften the slowdown's severity.
    await harness.call(10, "one by one");
    delay = 2_500;
    await harness.call(10);
    for (let cycle = 1; cycle <= 3; cycle += 1) {
      const result = await harness.module.runCycle();
      expect(result.outcome).toBe("failed");
      expect(result.reason).toContain("analyzer failed");
      expect(result.breaker).toMatchObject({ consecutive_failures: cycle, state: cycle < 3 ? "closed" : "open" });
      harness.clock.advance(1_000);
    }
    const blocked = await harness.module.runCycle();
    expect(blocked.outcome).toBe("blocked");
    expect(blocked.blocked?.kind).toBe("circuit_open");
    expect(blocked.reason).toMatch(/^circuit open: \d+ s until it lets a cycle through/);
    const requestsWhileOpen = harness.server.requests.length;
    harness.clock.advance(5 * 60_000);
    analyzerDown = false;
    const halfOpen = await harness.module.runCycle();
    expect(halfOpen.outcome).toBe("no_action");
    expect(halfOpen.breaker).toMatchObject({ state: "half_open", half_open_successes: 1 });
    expect(harness.server.requests.length).toBeGreaterThan(requestsWhileOpen);
    const closed = await harness.module.runCycle();
    expect(closed.breaker.state).toBe("closed");
    expect((await harness.module.control(harness.store).circuitBreaker()).state).toBe("closed");
  });
});
