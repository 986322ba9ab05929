import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DeliberateError } from "@deliberate/base";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { createSyntheticHarness, type SyntheticHarness } from "./support/synthetic.ts";

const harnesses: SyntheticHarness[] = [];
afterEach(async () => {
  await Promise.all(harnesses.splice(0).map((harness) => harness.close().catch(() => undefined)));
});
const directory = mkdtempSync(join(tmpdir(), "deliberate-self-improvement-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

async function harnessWith(input: Parameters<typeof createSyntheticHarness>[0] = {}) {
  const harness = await createSyntheticHarness(input);
  harnesses.push(harness);
  return harness;
}

async function errorOf(promise: Promise<unknown>): Promise<DeliberateError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!DeliberateError.isInstance(error)) throw new Error(`expected a DeliberateError, got ${String(error)}`);
  return error;
}

/** A healthy baseline, then a window of timeouts, for `tool` on `mode`. */
async function timeoutsOn(harness: SyntheticHarness, tool = "probe_ask", mode = "probe") {
  await harness.record(tool, mode, 10);
  await harness.record(tool, mode, 10, { success: false, error_code: "PROVIDER_TIMEOUT" });
}

describe("the rules analyzer without a server-side model", () => {
  it("says it diagnosed by rules because no model is configured, and names the rule", async () => {
    const harness = await harnessWith({ options: { analyzer: { use: "auto" } } });
    await timeoutsOn(harness);
    const result = await harness.module.runCycle();
    expect(result.outcome).toBe("applied");
    expect(result.diagnosis?.analyzer).toBe("rules");
    expect(result.diagnosis?.description).toContain(
      "Diagnosed by the deterministic rules (no server-side model is configured)",
    );
    expect(result.diagnosis?.rationale).toContain("Rule timeouts-raise-timeout");
  });

  it("analyzer `model` without a server-side model fails the cycle, saying so (a breaker failure)", async () => {
    const harness = await harnessWith({ options: { analyzer: { use: "model" } } });
    await timeoutsOn(harness);
    const result = await harness.module.runCycle();
    expect(result.outcome).toBe("failed");
    expect(result.reason).toBe(
      "analyzer failed: analyzer.use is 'model' but the service has no server-side model (set a provider, or use 'auto' or 'rules').",
    );
    expect(result.breaker.consecutive_failures).toBe(1);
    expect(await harness.store.selfImprovement.diagnoses.list()).toEqual([]);
  });

  it("cut-off answers raise max tokens; rate limits lower the engine's concurrency", async () => {
    const harness = await harnessWith({
      options: {
        executor: {
          allowlist: {
            maxTokens: { min: 500, max: 4_000, step: 500, maxSteps: 2 },
            concurrency: { min: 1, max: 8, step: 1, maxSteps: 1 },
          },
        },
      },
    });
    await harness.record("probe_ask", "probe", 10);
    await harness.record("probe_ask", "probe", 10, {
      success: false,
      error_code: "MODEL_OUTPUT_INVALID",
      error_message:
        'The model\'s answer did not match the "probe_answer" schema, even after one repair round: answer: Required. The answer was cut off at the token limit.',
    });
    const cutOff = await harness.module.runCycle();
    expect(cutOff.diagnosis?.rule).toBe("cut-off-raise-max-tokens");
    expect(cutOff.action).toMatchObject({ scope: "probe", setting: "maxTokens", from_value: 800, to_value: 1800 });
    expect(harness.engine.settingsFor("probe").maxTokens).toBe(1800);

    await harness.record("other_tool", "echo", 10);
    await harness.record("other_tool", "echo", 10, { success: false, error_code: "PROVIDER_RATE_LIMITED" });
    const limited = await harness.module.runCycle();
    expect(limited.diagnosis?.rule).toBe("rate-limited-lower-concurrency");
    expect(limited.action).toMatchObject({ scope: "engine", setting: "concurrency", from_value: 8, to_value: 7 }); // from the engine's default (8)
    expect(harness.engine.concurrencyNow()).toBe(7);
  });

  it("suggests no action when nothing allowlisted fits, and does not revisit the trigger for an hour", async () => {
    const harness = await harnessWith();
    await harness.record("probe_ask", "probe", 10);
    await harness.record("probe_ask", "probe", 10, { success: false, error_code: "PROVIDER_AUTH" });
    const first = await harness.module.runCycle();
    expect(first.outcome).toBe("no_action");
    expect(first.diagnosis).toMatchObject({ status: "no_action", rule: "no-rule", action: { kind: "none" } });
    expect(first.diagnosis?.action.kind === "none" && first.diagnosis.action.reason).toContain(
      "No rule covers error_rate with these failures (PROVIDER_AUTH ×10)",
    );
    const second = await harness.module.runCycle();
    expect(second.blocked?.kind).toBe("no_triggers");
    expect(second.reason).toContain(`no action found by ${first.diagnosis?.id}`);
    harness.clock.advance(61 * 60_000);
    await harness.record("probe_ask", "probe", 10, { success: false, error_code: "PROVIDER_AUTH" });
    expect((await harness.module.runCycle()).outcome).toBe("no_action");
  });

  it("skips a move a lesson ruled out and says so", async () => {
    const harness = await harnessWith();
    await timeoutsOn(harness);
    await harness.store.selfImprovement.learnings.insert({
      id: "sil_old",
      created_at: harness.clock.now().toISOString(),
      action_id: null,
      diagnosis_id: null,
      tool: "probe_ask",
      scope: "probe",
      setting: "timeoutMs",
      direction: "increase",
      verdict: "regressed",
      reward: -0.8,
      confidence: 0.7,
      breakdown: [],
      lessons: ["Changing probe.timeoutMs 300 → 2300 made probe_ask worse; rolled back."],
    });
    const result = await harness.module.runCycle();
    expect(result.outcome).toBe("no_action");
    expect(result.diagnosis?.action.kind === "none" && result.diagnosis.action.reason).toContain(
      "a lesson rules out moving probe.timeoutMs that way (regressed",
    );
  });
});

describe("blocked cycles say why", () => {
  it("no triggers, severity too low", async () => {
    const harness = await harnessWith({ options: { analyzer: { minSeverity: "critical" } } });
    await harness.record("probe_ask", "probe", 5);
    const early = await harness.module.runCycle();
    expect(early).toMatchObject({ outcome: "blocked", blocked: { kind: "no_triggers", suppressed: [] } });
    expect(early.reason).toBe("no triggers: every tool is within its baseline");
    await harness.record("probe_ask", "probe", 2, { success: false });
    await harness.record("probe_ask", "probe", 3);
    // Baseline 2 failures in 10 calls is 20%; the window's 3 in 10 is 50% worse: high, not critical.
    await harness.record("probe_ask", "probe", 7);
    await harness.record("probe_ask", "probe", 3, { success: false });
    const report = await harness.module.control(harness.store).baselines();
    expect(report.triggers).toMatchObject([{ metric: "error_rate", severity: "high" }]);
    const result = await harness.module.runCycle();
    expect(result.blocked).toEqual({ kind: "severity_too_low", severity: "high", minimum: "critical" });
    expect(result.reason).toBe("severity too low: the worst trigger is high, action needs critical");
  });

  it("too many pending (advisory), cooldown and the hourly limit (auto)", async () => {
    const advisory = await harnessWith({ options: { mode: "advisory", analyzer: { maxPending: 1 } } });
    await timeoutsOn(advisory);
    expect((await advisory.module.runCycle()).outcome).toBe("advised");
    await timeoutsOn(advisory, "other_tool", "echo");
    const pending = await advisory.module.runCycle();
    expect(pending.blocked).toEqual({ kind: "too_many_pending", count: 1, max: 1 });

    const cooling = await harnessWith({ options: { executor: { cooldownMs: 600_000 } } });
    await timeoutsOn(cooling);
    expect((await cooling.module.runCycle()).outcome).toBe("applied");
    await timeoutsOn(cooling, "other_tool", "echo");
    const cooldown = await cooling.module.runCycle();
    expect(cooldown.blocked?.kind).toBe("cooldown");
    expect(cooldown.reason).toMatch(/^cooldown: the last action was applied at .*; the next may follow in 5\d\d s$/);

    const limited = await harnessWith({ options: { executor: { maxActionsPerHour: 1 } } });
    await timeoutsOn(limited);
    expect((await limited.module.runCycle()).outcome).toBe("applied");
    await timeoutsOn(limited, "other_tool", "echo");
    const rate = await limited.module.runCycle();
    expect(rate.blocked).toEqual({ kind: "rate_limit", count: 1, max: 1 });
  });

  it("pause blocks every phase until it ends; pause 0 resumes", async () => {
    const harness = await harnessWith();
    await timeoutsOn(harness);
    const control = harness.module.control(harness.store);
    const { paused_until } = await control.pause("30m");
    expect(paused_until).toBe(new Date(harness.clock.now().getTime() + 30 * 60_000).toISOString());
    const paused = await harness.module.runCycle();
    expect(paused).toMatchObject({ outcome: "paused", reason: `paused until ${paused_until}` });
    expect(await control.pause("0")).toEqual({ paused_until: null });
    expect((await harness.module.runCycle()).outcome).toBe("applied");
    expect((await errorOf(control.pause("soon"))).issues).toEqual([
      { field: "duration", message: "expected e.g. 90s, 30m, 2h, 1d, 1h30m, or milliseconds" },
    ]);
  });

  it("off: no diagnoses or actions, but an action being measured is still judged", async () => {
    const path = join(directory, "off.db");
    const auto = await harnessWith({ path, holder: "one" });
    await timeoutsOn(auto);
    const applied = await auto.module.runCycle();
    expect(applied.outcome).toBe("applied");
    await auto.record("probe_ask", "probe", 10, { success: false });
    await auto.close();
    harnesses.splice(harnesses.indexOf(auto), 1);
    const off = await harnessWith({ path, holder: "two", options: { mode: "off" }, clock: auto.clock });
    const result = await off.module.runCycle();
    expect(result.outcome).toBe("off");
    expect(result.evaluations).toMatchObject([{ outcome: "reverted" }]);
    expect(result.reason).toContain("mode off: no new diagnoses or actions (learner: probe.timeoutMs reverted)");
    expect(await off.store.selfImprovement.diagnoses.list()).toHaveLength(1);
  });
});

describe("advisory mode", () => {
  it("records the suggestion; approve applies it through the same checks; reject records a lesson the rules then respect", async () => {
    const harness = await harnessWith({ options: { mode: "advisory" } });
    await timeoutsOn(harness);
    const advised = await harness.module.runCycle();
    expect(advised.outcome).toBe("advised");
    expect(advised.diagnosis).toMatchObject({ status: "pending", status_reason: "awaiting approval (advisory mode)" });
    expect(harness.engine.settingsFor("probe").timeoutMs).toBeUndefined();
    const control = harness.module.control(harness.store);
    const action = await control.approve(advised.diagnosis?.id ?? "");
    expect(action).toMatchObject({ applied_by: "operator", to_value: 2300, status: "evaluating" });
    expect(harness.engine.settingsFor("probe").timeoutMs).toBe(2300);
    expect((await errorOf(control.approve(advised.diagnosis?.id ?? ""))).code).toBe("CONFLICT");
    expect((await errorOf(control.approve("sid_missing"))).issues).toEqual([
      { field: "diagnosis_id", message: "no diagnosis 'sid_missing'" },
    ]);

    const other = await harnessWith({ options: { mode: "advisory" } });
    await timeoutsOn(other);
    const second = await other.module.runCycle();
    const rejected = await other.module
      .control(other.store)
      .reject(second.diagnosis?.id ?? "", "the provider is down, not slow");
    expect(rejected).toMatchObject({ status: "rejected", status_reason: "the provider is down, not slow" });
    await other.record("probe_ask", "probe", 10, { success: false });
    const after = await other.module.runCycle();
    expect(after.outcome).toBe("no_action");
    expect(after.diagnosis?.action.kind === "none" && after.diagnosis.action.reason).toContain(
      "rejected: An operator rejected probe.timeoutMs 300 → 2300 for probe_ask error_rate: the provider is down, not slow.",
    );
  });

  it("expires suggestions not approved in time", async () => {
    const harness = await harnessWith({ options: { mode: "advisory", analyzer: { pendingTtlMs: 60_000 } } });
    await timeoutsOn(harness);
    const advised = await harness.module.runCycle();
    harness.clock.advance(120_000);
    await harness.module.runCycle();
    expect(await harness.store.selfImprovement.diagnoses.get(advised.diagnosis?.id ?? "")).toMatchObject({
      status: "expired",
      status_reason: "not approved in time",
    });
  });
});

describe("reversal by an operator", () => {
  it("restores what the action replaced, records the lesson, and refuses what cannot be reversed", async () => {
    const harness = await harnessWith();
    await timeoutsOn(harness);
    const first = await harness.module.runCycle();
    const control = harness.module.control(harness.store);
    // A second change of the same setting, approved by hand on top of the first.
    await harness.store.selfImprovement.actions.update(first.action?.id ?? "", { status: "kept" });
    await timeoutsOn(harness, "probe_ask", "probe");
    const second = await harness.module.runCycle();
    expect(second.action).toMatchObject({
      from_value: 2300,
      to_value: 4300,
      previous_override: 2300,
      previous_action_id: first.action?.id,
    });
    const blocked = await errorOf(control.rollback(first.action?.id ?? ""));
    expect(blocked.code).toBe("CONFLICT");
    expect(blocked.hint).toBe(`Roll back ${second.action?.id} first.`);
    const undone = await control.rollback(second.action?.id ?? "", "too long for our clients");
    expect(undone).toMatchObject({
      status: "rolled_back",
      rolled_back_by: "operator",
      status_reason: "too long for our clients",
    });
    expect(harness.engine.settingsFor("probe").timeoutMs).toBe(2300);
    expect(await harness.store.selfImprovement.overrides.all()).toMatchObject([
      { scope: "probe", setting: "timeoutMs", value: 2300, action_id: first.action?.id },
    ]);
    await control.rollback(first.action?.id ?? "");
    expect(harness.engine.settingsFor("probe").timeoutMs).toBeUndefined();
    expect((await errorOf(control.rollback(first.action?.id ?? ""))).message).toContain("was already rolled back");
    const lesson = await harness.store.selfImprovement.learnings.forAction(second.action?.id ?? "");
    expect(lesson).toMatchObject({
      verdict: "rolled_back_by_operator",
      lessons: ["An operator rolled back probe.timeoutMs 2300 → 4300: too long for our clients."],
    });
  });
});

describe("persistence and replicas", () => {
  it("restores applied overrides when the service starts again", async () => {
    const path = join(directory, "restart.db");
    const before = await harnessWith({ path });
    await timeoutsOn(before);
    await before.module.runCycle();
    expect(before.engine.settingsFor("probe").timeoutMs).toBe(2300);
    await before.close();
    harnesses.splice(harnesses.indexOf(before), 1);
    const after = await harnessWith({ path });
    // Restored by the task's start, before any cycle or call.
    expect(after.engine.settingsFor("probe").timeoutMs).toBe(2300);
    expect(after.module.settingsSource.all()).toMatchObject([{ scope: "probe", setting: "timeoutMs", value: 2300 }]);
  });

  it("one replica leads under the lease; a graceful stop hands over at once, a crash at expiry", async () => {
    const path = join(directory, "lease.db");
    const first = await harnessWith({ path, holder: "replica-a" });
    const second = await harnessWith({ path, holder: "replica-b", clock: first.clock });
    expect((await first.module.runCycle()).leader.holder).toBe("replica-a");
    const follower = await second.module.runCycle();
    expect(follower).toMatchObject({ outcome: "not_leader", cycle_id: null });
    expect(follower.reason).toMatch(/^replica-a leads until /);
    await first.runner.stop(); // releases the lease
    expect((await second.module.runCycle()).leader.holder).toBe("replica-b");
    // replica-b now "crashes" (no release); replica-a waits for the lease to expire.
    expect((await first.module.runCycle()).outcome).toBe("not_leader");
    first.clock.advance(first.module.config.lease.durationMs + 1);
    expect((await first.module.runCycle()).leader.holder).toBe("replica-a");
  });

  it("keeps baselines per tool and per mode (a mode's rows are those of the tools that ask it)", async () => {
    const harness = await harnessWith();
    await harness.record("probe_ask", "probe", 10);
    await harness.record("other_tool", "probe", 10);
    const report = await harness.module.control(harness.store).baselines();
    expect(report.modes.map((baseline) => [baseline.name, baseline.window.samples + baseline.rolling.samples])).toEqual(
      [["probe", 20]],
    );
    expect(report.tools.map((baseline) => baseline.name)).toEqual(["other_tool", "probe_ask"]);
  });
});
