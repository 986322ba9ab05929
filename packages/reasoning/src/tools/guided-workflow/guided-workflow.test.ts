import { DeliberateError, workflowProgressSchema } from "@deliberate/contracts";
import { afterEach, describe, expect, it } from "vitest";
import { createTestEngine, type TestEngine } from "../../test-support.ts";

const engines: TestEngine[] = [];
afterEach(async () => {
  await Promise.all(engines.splice(0).map((testEngine) => testEngine.store.close()));
});
async function setup() {
  const testEngine = await createTestEngine([]);
  engines.push(testEngine);
  return testEngine;
}
async function errorOf(promise: Promise<unknown>): Promise<DeliberateError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!DeliberateError.isInstance(error)) throw new Error(`expected a DeliberateError, got ${String(error)}`);
  return error;
}

describe("guided workflows", () => {
  it("runs the chain-of-thought scenario from start to completion with no model call", async () => {
    const { engine, model } = await setup();
    const start = workflowProgressSchema.parse(
      await engine.invoke("startChainOfThought", { problem: "Build auth system" }),
    );
    expect(start).toMatchObject({ status: "in_progress", step: "decompose", step_number: 1, total_steps: 3 });
    expect(start.agent_instructions).toContain("Break down");
    expect(start.instruction).toContain("Build auth system");

    const analysis = workflowProgressSchema.parse(
      await engine.invoke("submitThought", { state_id: start.state_id, thought: "1. Users 2. Tokens 3. Middleware" }),
    );
    expect(analysis.step).toBe("analyze");
    expect(analysis.instruction).toContain("1. Users 2. Tokens 3. Middleware");
    const synthesis = workflowProgressSchema.parse(
      await engine.invoke("submitThought", { state_id: start.state_id, thought: "Users need hashed passwords" }),
    );
    expect(synthesis.agent_instructions).toContain("Synthesize");
    const done = workflowProgressSchema.parse(
      await engine.invoke("submitThought", { state_id: start.state_id, thought: "JWT plan" }),
    );
    expect(done).toMatchObject({ status: "complete", summary: { steps_completed: 3 } });
    expect(done.reasoning_chain).toEqual({
      decomposition: "1. Users 2. Tokens 3. Middleware",
      analysis: "Users need hashed passwords",
      synthesis: "JWT plan",
    });
    expect(model.calls).toHaveLength(0);
  });

  it("keeps concurrent runs apart", async () => {
    const { engine } = await setup();
    const [a, b] = await Promise.all([
      engine.invoke("startChainOfThought", { problem: "Problem A" }),
      engine.invoke("startChainOfThought", { problem: "Problem B" }),
    ]);
    await Promise.all([
      engine.invoke("submitThought", { state_id: a?.state_id, thought: "A parts" }),
      engine.invoke("submitThought", { state_id: b?.state_id, thought: "B parts" }),
    ]);
    const nextA = await engine.invoke("submitThought", { state_id: a?.state_id, thought: "A analysis" });
    expect(nextA.instruction).toContain("Problem A");
    expect(nextA.instruction).toContain("A parts");
    expect(nextA.instruction).not.toContain("B parts");
  });

  it("starts any workflow by name and lists them", async () => {
    const { engine } = await setup();
    const listed = await engine.invoke("listWorkflows", {});
    const names = (listed.workflows as Array<{ name: string }>).map((workflow) => workflow.name);
    expect(names).toEqual(
      expect.arrayContaining(["chain_of_thought", "root_cause_analysis", "decision_making", "plan_and_execute"]),
    );
    const started = await engine.invoke("startWorkflow", {
      workflow: "decision_making",
      inputs: { decision: "Postgres or SQLite?" },
    });
    expect(started.instruction).toContain("Postgres or SQLite?");
    const missing = await errorOf(engine.invoke("startWorkflow", { workflow: "decision_making" }));
    expect(missing.issues[0]?.field).toBe("inputs.decision");
    const unknown = await errorOf(engine.invoke("startWorkflow", { workflow: "astrology" }));
    expect(unknown.code).toBe("NOT_FOUND");
    expect(unknown.hint).toContain("chain_of_thought");
  });

  it("gives helpful errors and changes nothing on bad input", async () => {
    const { engine, store } = await setup();
    const start = await engine.invoke("startChainOfThought", { problem: "P" });
    const unknown = await errorOf(engine.invoke("submitThought", { state_id: "wf_nope", thought: "x" }));
    expect(unknown).toMatchObject({ code: "NOT_FOUND" });
    expect(unknown.hint).toContain("start a new workflow");
    const empty = await errorOf(engine.invoke("submitThought", { state_id: start.state_id, thought: "   " }));
    expect(empty.issues[0]?.field).toBe("thought");
    expect((await store.workflowRuns.get(start.state_id as string)).current_step).toBe("decompose");

    for (const thought of ["a", "b", "c"]) await engine.invoke("submitThought", { state_id: start.state_id, thought });
    const finished = await errorOf(engine.invoke("submitThought", { state_id: start.state_id, thought: "d" }));
    expect(finished.code).toBe("CONFLICT");
    expect(finished.hint).toContain("Start a new run");
    expect((await store.workflowRuns.get(start.state_id as string)).answers).toEqual({
      decomposition: "a",
      analysis: "b",
      synthesis: "c",
    });
  });
});
