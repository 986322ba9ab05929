import { afterEach, describe, expect, it } from "vitest";
import { createHarness, type Harness, probeAnswer } from "./support/harness.ts";

const harnesses: Harness[] = [];
afterEach(async () => {
  await Promise.all(harnesses.splice(0).map((harness) => harness.close()));
});

// Real calls of probe_ask through the engine, the OpenAI SDK and the loopback fake model server.
// The figures: window 50, 20 calls minimum on each side (the defaults). A call that must time
// out gets an answer 0.5 s slower than its 5 s timeout (the loop has those 5 s to act while calls are in
// flight, on a loaded machine); one that must succeed has 5.5 s to spare.
describe("a lasting regression", () => {
  it("60 good calls then 300 failing: detected against the frozen baseline, acted on, and the fix measured by the calls started after the change", async () => {
    let delay = 0;
    const harness = await createHarness({
      probe: () => ({ ...probeAnswer, delayMs: delay }),
      options: {
        defaultTimeoutMs: 5_000,
        monitor: { windowSize: 50, minSamples: 20 },
        learner: { minSamples: 20 },
        executor: { allowlist: { timeoutMs: { min: 100, max: 11_000, step: 3_000, maxSteps: 2 } } },
      },
    });
    harnesses.push(harness);
    expect(await harness.call(60)).toBe(0);
    delay = 5_500; // the provider slows down for good: every call times out
    expect(await harness.call(300)).toBe(300);

    // Calls in flight when the loop acts: started under the 5 s timeout, they fail after the change is applied.
    let inFlightSettled = false;
    const startedBefore = Promise.allSettled(
      Array.from({ length: 5 }, (_, index) => harness.engine.invoke("probe_ask", { question: `in flight ${index}` })),
    ).then((results) => {
      inFlightSettled = true;
      return results;
    });
    harness.clock.advance(1_000);
    const acted = await harness.module.runCycle();
    // Before the fix the baseline absorbed the failures (EMA 83 %) and this cycle read "no triggers".
    expect(acted.outcome).toBe("applied");
    expect(acted.triggers[0]).toMatchObject({
      tool: "probe_ask",
      metric: "error_rate",
      observed: 1,
      baseline: 0,
      severity: "critical",
      window_samples: 50,
      baseline_samples: 310,
    });
    expect(acted.action).toMatchObject({ scope: "probe", setting: "timeoutMs", from_value: 5_000, to_value: 11_000 });
    expect(
      inFlightSettled,
      "the in-flight calls ended before the change was applied (machine too slow for this scenario)",
    ).toBe(false);
    const inFlight = await startedBefore;
    expect(inFlight.every((result) => result.status === "rejected")).toBe(true);
    harness.clock.advance(1_000);

    expect(await harness.call(20)).toBe(0); // the same 5.5 s answers, inside the raised timeout
    const judged = await harness.module.runCycle();
    expect(judged.evaluations[0]).toMatchObject({ outcome: "kept", samples_after: 20 });
    const action = await harness.store.selfImprovement.actions.get(acted.action?.id ?? "");
    // Dated by finish, the five in-flight failures would have counted after the change (5 of 25: 20 % errors).
    expect(action).toMatchObject({ status: "kept", post_metrics: { samples: 20, error_rate: 0 } });
    const errorRate = (await harness.store.selfImprovement.learnings.forAction(action.id))?.breakdown.find(
      (entry) => entry.metric === "error_rate",
    );
    expect(errorRate).toMatchObject({ before: 1, after: 0, after_samples: 20, significant: true });
    // The five rows finished after the change and started before it.
    const rows = await harness.store.invocations.list({ limit: 1000 });
    const straddling = rows.filter(
      (row) => row.started_at !== null && row.started_at < action.applied_at && row.created_at >= action.applied_at,
    );
    expect(straddling).toHaveLength(5);
    expect(straddling.every((row) => row.success === false && row.error_code === "PROVIDER_TIMEOUT")).toBe(true);
  }, 120_000);
});
