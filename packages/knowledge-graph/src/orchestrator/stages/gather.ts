import type { ExecuteTaskRequest } from "@deliberate/contracts";
import { extractInto } from "../extract.ts";
import { absorbHostKnowledge, needsExtraction } from "../host-knowledge.ts";
import type { PendingWork, ResumePoint } from "../pending.ts";
import { executeTaskFailures } from "../task-failure.ts";
import type { Stage, Task } from "./task.ts";
import { clip, textOf } from "./text.ts";

/** The goal and the host's context, as the text a new session is seeded from. */
function seedText(request: ExecuteTaskRequest): string {
  const context = request.contextData;
  const summary = context?.hostProvidedPriorReasoningSummary;
  const parts = [`Goal: ${request.goalQuery}`];
  if (context?.domainKnowledge) parts.push(`Domain knowledge:\n${context.domainKnowledge}`);
  if (context?.currentPlanStep) parts.push(`Current plan step: ${context.currentPlanStep}`);
  if (summary != null) parts.push(`Prior reasoning summary:\n${textOf(summary)}`);
  if (context?.historicalConversation)
    parts.push(`Conversation (most recent part):\n${context.historicalConversation.slice(-6000)}`);
  return parts.join("\n\n");
}

/** Marks the waited-on plan step done, or records the answer of the waited-on sub-question. */
function settle(point: ResumePoint, answer: string): void {
  if (point.stage.stage === "plan") {
    const step = point.stage.steps[point.stage.next - 1];
    if (step) step.status = "done";
  } else {
    const question = point.stage.subQuestions[point.stage.waiting];
    if (question) question.answer = answer;
  }
}

/** Takes in the host's answer to what the session waited on: a tool result or the user's input. */
async function absorbAnswer(task: Task, work: PendingWork): Promise<void> {
  const { request, run } = task;
  if (work.kind === "tool") {
    const result = request.toolResults?.find((item) => item.toolCallId === work.toolCallId);
    const text = textOf(result?.result);
    if (result?.isError) {
      run.findings.push(`Tool ${work.toolName} failed: ${clip(text, 500)}`);
      run.record("toolResult", `The host reports that ${work.toolName} failed: ${clip(text, 300)}`, task.graph.mark());
    } else {
      run.findings.push(
        `Tool ${work.toolName}(${clip(JSON.stringify(work.toolArguments), 200)}) returned: ${clip(text, 500)}`,
      );
      await extractInto(run, {
        source: `result of the tool ${work.toolName}`,
        text,
        kind: "tool_result",
        step: `tool ${work.toolName}`,
        reference: work.toolCallId,
      });
    }
    settle(work.resume, result?.isError ? `(the tool failed: ${clip(text, 300)})` : clip(text, 500));
  } else {
    const answer = request.userInput ?? "";
    run.findings.push(`The user answered "${work.question}": ${clip(answer, 500)}`);
    await extractInto(run, {
      source: "user's answer",
      text: `Question: ${work.question}\nAnswer: ${answer}`,
      kind: "user_input",
      step: "user input",
      reference: null,
    });
    settle(work.resume, clip(answer, 500));
  }
}

/** A new session's seed: extracted from the goal and context; EXTRACTION_EMPTY when nothing came of it. */
async function seed(task: Task): Promise<Stage> {
  const extracted = needsExtraction(task.request.contextData)
    ? await extractInto(task.run, {
        source: "goal and context",
        text: seedText(task.request),
        kind: "seed",
        step: "seed",
        reference: null,
      })
    : { entities: 0, relations: 0 };
  absorbHost(task);
  if (task.graph.entityCount > 0) return { stage: "reason" };
  return {
    stage: "settled",
    outcome: {
      kind: "failed",
      error: {
        code: executeTaskFailures.EXTRACTION_EMPTY,
        reason: "EXTRACTION_EMPTY",
        message:
          "No entities or relations could be extracted from goalQuery and contextData, so there is no graph to reason over",
        details: `The extraction returned ${extracted.entities} entities and ${extracted.relations} relations. Give the goal concrete subjects, or add facts in contextData.domainKnowledge or contextData.facts.`,
        retryable: false,
      },
    },
  };
}

/** An existing session given a new goal: enrich its graph with what the goal and context add. */
async function enrich(task: Task): Promise<void> {
  const { request } = task;
  if (!needsExtraction(request.contextData)) return;
  const summary = request.contextData?.hostProvidedPriorReasoningSummary;
  await extractInto(task.run, {
    source: "new goal",
    text: [
      `Goal: ${request.goalQuery}`,
      request.contextData?.domainKnowledge ? `Domain knowledge:\n${request.contextData.domainKnowledge}` : "",
      summary != null ? `Prior reasoning summary:\n${textOf(summary)}` : "",
    ]
      .filter(Boolean)
      .join("\n\n"),
    kind: "extraction",
    step: "enrich",
    reference: null,
  });
}

function absorbHost(task: Task): void {
  absorbHostKnowledge(task.run, { facts: task.request.contextData?.facts ?? [], rules: task.hostRules });
}

/** Stage 1: seed a new graph, take in the host's answer, or enrich with this call's goal; then the host's facts and rules. */
export async function gather(task: Task): Promise<Stage> {
  if (task.access.kind === "new") return seed(task);
  if (task.pending) await absorbAnswer(task, task.pending);
  else await enrich(task);
  absorbHost(task);
  return { stage: "reason" };
}
