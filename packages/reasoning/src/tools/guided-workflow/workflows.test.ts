import { DeliberateError } from "@deliberate/contracts";
import { describe, expect, it } from "vitest";
import { findWorkflow, getWorkflow, workflowDefinitions } from "./registry.ts";
import { defineWorkflow, placeholdersOf } from "./workflow-definition.ts";
import { advanceWorkflow, startWorkflow } from "./workflow-navigation.ts";

describe("guided workflows", () => {
  it("registers the four workflows, each valid by construction", () => {
    expect(workflowDefinitions.map((workflow) => workflow.name)).toEqual([
      "chain_of_thought",
      "root_cause_analysis",
      "decision_making",
      "plan_and_execute",
    ]);
    for (const workflow of workflowDefinitions) expect(defineWorkflow(workflow)).toBe(workflow);
  });

  it("runs chain_of_thought from start to completion (ticket E2E scenario)", () => {
    const workflow = getWorkflow("chain_of_thought");
    const first = startWorkflow(workflow, { problem: "Build auth system" });
    expect(first).toMatchObject({
      stepId: "decompose",
      stepNumber: 1,
      totalSteps: 3,
      saveAs: "decomposition",
      completes: false,
    });
    expect(first.instruction).toContain("Break down");
    expect(first.instruction).toContain('"Build auth system"');

    const answers: Record<string, string> = { decomposition: "1. User model, 2. JWT generation, 3. Middleware" };
    const second = advanceWorkflow(workflow, {
      currentStep: "decompose",
      inputs: { problem: "Build auth system" },
      answers,
    });
    if (second.complete) throw new Error("expected a next step");
    expect(second.next.stepId).toBe("analyze");
    expect(second.next.instruction).toContain("1. User model, 2. JWT generation, 3. Middleware");

    answers["analysis"] = "User model needs email and hashed password";
    const third = advanceWorkflow(workflow, {
      currentStep: "analyze",
      inputs: { problem: "Build auth system" },
      answers,
    });
    if (third.complete) throw new Error("expected a next step");
    expect(third.next).toMatchObject({ stepId: "synthesize", completes: true });
    expect(third.next.instruction).toContain("Synthesize");
    expect(third.next.instruction).not.toMatch(/\{[a-z_]+\}/);

    answers["synthesis"] = "Complete JWT implementation plan";
    const done = advanceWorkflow(workflow, {
      currentStep: "synthesize",
      inputs: { problem: "Build auth system" },
      answers,
    });
    expect(done).toEqual({
      complete: true,
      completedStep: "synthesize",
      stepsCompleted: 3,
      answers: {
        decomposition: answers["decomposition"],
        analysis: answers["analysis"],
        synthesis: "Complete JWT implementation plan",
      },
    });
  });

  it("names the missing answer, input or unknown step in the caller's own field names", () => {
    const workflow = getWorkflow("root_cause_analysis");
    const fields = { inputs: "params", answers: "outputs", step: "current_node" };
    const issuesOf = (run: () => unknown) => {
      try {
        run();
      } catch (error) {
        if (DeliberateError.isInstance(error))
          return { code: error.code, fields: error.issues.map((issue) => issue.field) };
      }
      throw new Error("expected a DeliberateError");
    };
    expect(issuesOf(() => startWorkflow(workflow, {}, fields))).toEqual({
      code: "INVALID_INPUT",
      fields: ["params.problem"],
    });
    expect(
      issuesOf(() => advanceWorkflow(workflow, { currentStep: "nope", inputs: { problem: "p" }, answers: {} }, fields)),
    ).toEqual({
      code: "INVALID_INPUT",
      fields: ["current_node"],
    });
    expect(
      issuesOf(() =>
        advanceWorkflow(workflow, { currentStep: "define_problem", inputs: { problem: "p" }, answers: {} }, fields),
      ),
    ).toEqual({
      code: "INVALID_INPUT",
      fields: ["outputs.problem_statement"],
    });
    // The hypothesize step needs both earlier answers; only the latest was sent.
    expect(
      issuesOf(() =>
        advanceWorkflow(
          workflow,
          { currentStep: "gather_evidence", inputs: { problem: "p" }, answers: { evidence: "logs" } },
          fields,
        ),
      ),
    ).toEqual({ code: "INVALID_INPUT", fields: ["outputs.problem_statement"] });
    expect(() => getWorkflow("nope")).toThrow(/Unknown workflow/);
    expect(findWorkflow("nope")).toBeUndefined();
  });

  it("refuses malformed definitions", () => {
    const step = { id: "a", title: "A", instruction: "x", expecting: "y", saveAs: "a_answer" };
    expect(() =>
      defineWorkflow({ name: "w", version: "1", title: "W", description: "", inputs: [], steps: [step] }),
    ).toThrow(/must be marked completes/);
    expect(() =>
      defineWorkflow({
        name: "w",
        version: "1",
        title: "W",
        description: "",
        inputs: [],
        steps: [{ ...step, instruction: "use {later}", completes: true }],
      }),
    ).toThrow(/\{later\}/);
    expect(() =>
      defineWorkflow({
        name: "w",
        version: "1",
        title: "W",
        description: "",
        inputs: [],
        steps: [
          { ...step, completes: true },
          { ...step, id: "b", saveAs: "b" },
        ],
      }),
    ).toThrow(/not the last step/);
    expect(placeholdersOf("{a} and {b} and {a}")).toEqual(["a", "b"]);
  });
});
