import type { PendingPrompt } from "@deliberate/contracts";
import { z } from "zod";
import { createAbductionMode } from "../../modes/abduction.mode.ts";
import { createAnswerMode } from "../../modes/answer.mode.ts";
import { createDeductionMode } from "../../modes/deduction.mode.ts";
import { createInductionMode } from "../../modes/induction.mode.ts";
import { createPlanMode } from "../../modes/plan.mode.ts";
import { answerGoal } from "../answer.ts";
import { abduce, deduce, induce } from "../operations.ts";
import type { ResumePoint, StoredPlanStep, StoredSubQuestion } from "../pending.ts";
import type { ReasoningRun } from "../reasoning-run.ts";
import type { Outcome, Task } from "./task.ts";

const planKinds = { inductive: "induce", deductive: "deduce", abductive: "abduce" } as const;

async function runOperation(
  run: ReasoningRun,
  kind: "induce" | "deduce" | "abduce",
  purpose: string,
  step: string,
): Promise<void> {
  if (kind === "induce") await induce(run, purpose, step);
  else if (kind === "deduce") await deduce(run, purpose, step);
  else await abduce(run, purpose, step);
}

async function makePlan(run: ReasoningRun, currentPlanStep: string | null): Promise<StoredPlanStep[]> {
  run.step("plan");
  const focus = run.focus(run.input.goal);
  const maxPlanDepth = run.options.maxPlanDepth;
  const answer = await run.ask(createPlanMode(run.input.tools, maxPlanDepth, true), {
    goal: run.input.goal,
    graph: focus.text,
    tools: run.input.tools,
    maxPlanDepth,
    allowUserInput: true,
    currentPlanStep,
  });
  const steps: StoredPlanStep[] = answer.steps.map((step) => ({
    kind: step.kind,
    purpose: step.purpose,
    toolName: step.kind === "toolCall" ? step.toolName : null,
    toolArguments: step.kind === "toolCall" ? step.toolArguments : null,
    question: step.kind === "askUser" ? step.question : null,
    status: "pending",
  }));
  run.record(
    "plan",
    `Plan of ${steps.length} step(s): ${steps.map((step, index) => `${index + 1}. ${step.kind}: ${step.purpose}`).join(" ")}`,
    run.graph.mark(),
  );
  return steps;
}

function resumePoint(task: Task, stage: ResumePoint["stage"]): ResumePoint {
  const { run } = task;
  const relevant = new Set(run.found.relevantEntities);
  for (const entity of run.graph.entities()) if (entity.fresh) relevant.add(entity.key);
  return {
    ...task.base,
    stage,
    findings: run.findings.slice(-40),
    trace: run.trace.slice(-50),
    relevant: [...relevant].slice(0, 200),
  };
}

/** A step's prompt exactly as the server would send it (and as needs_completion shows it). */
function promptOf<Input, Output>(
  mode: { name: string; system: string; prompt: (input: Input) => string; output: z.ZodType<Output> },
  input: Input,
  step: number,
): PendingPrompt & { step: number } {
  return {
    id: `plan-step-${step}`,
    name: mode.name,
    system: mode.system,
    user: mode.prompt(input),
    schema: z.toJSONSchema(mode.output, { unrepresentable: "any" }) as Record<string, unknown>,
    step,
  };
}

function planPrompts(run: ReasoningRun, steps: readonly StoredPlanStep[]): Array<PendingPrompt & { step: number }> {
  const prompts: Array<PendingPrompt & { step: number }> = [];
  steps.forEach((step, index) => {
    const focus = run.focus(`${run.input.goal} ${step.purpose}`);
    const base = { goal: run.input.goal, purpose: step.purpose, graph: focus.text, names: focus.names };
    if (step.kind === "induce") prompts.push(promptOf(createInductionMode(focus.names), base, index));
    if (step.kind === "deduce")
      prompts.push(promptOf(createDeductionMode(focus.names), { ...base, premises: run.input.premises }, index));
    if (step.kind === "abduce") prompts.push(promptOf(createAbductionMode(focus.names), base, index));
  });
  const focus = run.focus(run.input.goal);
  prompts.push(
    promptOf(
      createAnswerMode(focus.names),
      { goal: run.input.goal, graph: focus.text, findings: run.findingsText(), sample: null },
      steps.length,
    ),
  );
  return prompts;
}

/** detailedPlanWithPrompts: the plan (or the one operation) and every step's prompt, for the host to run. */
async function planWithPrompts(task: Task): Promise<Outcome> {
  const { run, reasoningType } = task;
  const steps =
    reasoningType === "planAndExecuteCoT"
      ? await makePlan(run, task.request.contextData?.currentPlanStep ?? null)
      : [
          {
            kind: planKinds[reasoningType],
            purpose: task.goal,
            toolName: null,
            toolArguments: null,
            question: null,
            status: "pending" as const,
          },
        ];
  task.planSteps = steps;
  return { kind: "planned", prompts: planPrompts(run, steps) };
}

/** planAndExecuteCoT: carry out the plan from where it stands; a tool call or a question to the user waits for the host. */
async function executePlan(task: Task): Promise<Outcome | null> {
  const { run, resume } = task;
  const steps = task.planSteps ?? (await makePlan(run, task.request.contextData?.currentPlanStep ?? null));
  task.planSteps = steps;
  const start = resume?.stage.stage === "plan" ? resume.stage.next : 0;
  for (let index = start; index < steps.length; index += 1) {
    const step = steps[index] as StoredPlanStep;
    run.step(`plan step ${index + 1}: ${step.kind}`);
    if (step.kind === "toolCall" || step.kind === "askUser") {
      step.status = "waiting";
      const stage = { stage: "plan" as const, steps, next: index + 1 };
      if (step.kind === "toolCall") {
        run.record(
          "toolCall",
          `Plan step ${index + 1}: asked the host to call ${step.toolName} (${step.purpose}).`,
          task.graph.mark(),
        );
        return {
          kind: "waitTool",
          toolName: step.toolName as string,
          toolArguments: step.toolArguments ?? {},
          resume: resumePoint(task, stage),
        };
      }
      run.record("askUser", `Plan step ${index + 1}: asked the user: ${step.question}`, task.graph.mark());
      return { kind: "waitUser", question: step.question as string, resume: resumePoint(task, stage) };
    }
    await runOperation(run, step.kind, step.purpose, `plan step ${index + 1}: ${step.kind}`);
    step.status = "done";
  }
  return null;
}

/** The answer under the CoT variation; self-ask may wait for a tool result or the user first. */
async function answer(task: Task): Promise<Outcome> {
  const { run, resume } = task;
  const resumeQuestions: StoredSubQuestion[] | null =
    resume?.stage.stage === "selfAsk" ? resume.stage.subQuestions : null;
  const answered = await answerGoal(run, task.cot.used, task.desired, resumeQuestions);
  if (answered.kind === "answered") return answered;
  const question = answered.subQuestions[answered.waiting] as StoredSubQuestion;
  const stage = { stage: "selfAsk" as const, subQuestions: answered.subQuestions, waiting: answered.waiting };
  if (question.source === "tool") {
    run.record(
      "toolCall",
      `Self-ask: asked the host to call ${question.toolName} for "${question.question}".`,
      task.graph.mark(),
    );
    return {
      kind: "waitTool",
      toolName: question.toolName as string,
      toolArguments: question.toolArguments ?? {},
      resume: resumePoint(task, stage),
    };
  }
  run.record("askUser", `Self-ask: asked the user: ${question.question}`, task.graph.mark());
  return { kind: "waitUser", question: question.question, resume: resumePoint(task, stage) };
}

/** Stage 2: the reasoning type's graph operations, then the answer (or a plan with prompts, or a wait for the host). */
export async function reason(task: Task): Promise<Outcome> {
  if (task.format === "detailedPlanWithPrompts") return planWithPrompts(task);
  if (task.resume?.stage.stage !== "selfAsk") {
    if (task.reasoningType === "planAndExecuteCoT") {
      const waiting = await executePlan(task);
      if (waiting) return waiting;
    } else if (!task.resume) {
      const kind = planKinds[task.reasoningType];
      task.run.step(kind);
      await runOperation(task.run, kind, task.goal, kind);
    }
  }
  return answer(task);
}
