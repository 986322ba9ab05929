import type { ExecuteTaskResponse, Plan, ReasoningTrace } from "@deliberate/contracts";
import { toWireSubgraph } from "../../graph/subgraph.ts";
import type { StoredPlanStep } from "../pending.ts";
import type { KnowledgeGraphContext, ReasoningRun } from "../reasoning-run.ts";
import { expiresAt, stateSecretFor } from "../session-access.ts";
import { signSessionState } from "../../session-state.ts";
import type { Committed, Outcome, Task } from "./task.ts";

/** How much of the graph a trace's subgraph shows at most. */
const traceSubgraphLimits = { entities: 60, relations: 120, derivations: 200 } as const;

function wirePlan(goal: string, maxPlanDepth: number, steps: readonly StoredPlanStep[]): Plan {
  return {
    goal,
    maxPlanDepth,
    steps: steps.map((step, index) => ({
      index,
      kind: step.kind,
      purpose: step.purpose,
      status: step.status,
      toolName: step.toolName,
      toolArguments: step.toolArguments,
      question: step.question,
    })),
  };
}

/** The part of the graph the answer rests on: what the steps touched and added, bounded. */
function relevantSubgraph(run: ReasoningRun) {
  const { graph } = run;
  const keys = new Set<string>();
  for (const key of run.found.relevantEntities) if (graph.entity(key)) keys.add(key);
  for (const entity of graph.entities()) if (entity.fresh) keys.add(entity.key);
  for (const relation of graph.relations()) {
    if (relation.fresh) {
      keys.add(relation.subject);
      keys.add(relation.object);
    }
  }
  const entities = graph
    .entities()
    .filter((entity) => keys.has(entity.key))
    .slice(0, traceSubgraphLimits.entities);
  const shown = new Set(entities.map((entity) => entity.key));
  const relations = graph
    .relations()
    .filter((relation) => shown.has(relation.subject) && shown.has(relation.object))
    .sort((a, b) => Number(b.fresh) - Number(a.fresh))
    .slice(0, traceSubgraphLimits.relations);
  return toWireSubgraph(graph, entities, relations);
}

function traceOf(task: Task, outcome: Outcome): ReasoningTrace {
  const { run, options } = task;
  return {
    reasoningType: task.reasoningType,
    cotVariation: task.cot,
    steps: run.trace.map((step, index) => ({ ...step, index })),
    derivations: run.found.derivations.slice(0, traceSubgraphLimits.derivations),
    pathValidation: run.found.pathValidation,
    hypotheses: run.found.hypotheses,
    selfConsistency: run.found.selfConsistency,
    subQuestions: run.found.subQuestions,
    thoughts: run.found.thoughts,
    confidence: outcome.kind === "answered" ? outcome.report : null,
    subgraph: relevantSubgraph(run),
    budget: {
      iterations: run.iterations,
      maxIterations: run.maxIterations,
      modelCalls: run.modelCalls,
      maxModelCalls: options.maxModelCalls,
      graphGrowth: task.graph.growth,
      maxGraphGrowth: options.maxGraphGrowth,
      chaining: run.found.chaining,
    },
  };
}

/** Stage 4: the response of a committed call, with a freshly signed session state. */
export function respond(
  task: Task,
  outcome: Exclude<Outcome, { kind: "failed" }>,
  committed: Committed,
): ExecuteTaskResponse {
  const { sessionId, toolCallId, committedAt } = committed;
  const report = outcome.kind === "answered" ? outcome.report : null;
  const plan = task.planSteps ? wirePlan(task.goal, task.options.maxPlanDepth, task.planSteps) : null;
  const prompts = outcome.kind === "planned" ? outcome.prompts : null;
  return {
    taskId: task.taskId,
    reasoningSessionId: sessionId,
    status:
      outcome.kind === "waitTool"
        ? "pending_tool_call"
        : outcome.kind === "waitUser"
          ? "pending_user_input"
          : outcome.kind === "exhausted"
            ? "max_iterations_reached"
            : "completed",
    result: {
      reasonedAnswer: outcome.kind === "answered" ? outcome.answer : null,
      reasoningTrace: traceOf(task, outcome),
      confidenceScore: report?.score ?? null,
      confidenceMethod: report?.method ?? null,
      plan,
      promptsToExecute: prompts
        ? prompts.map(
            (prompt) =>
              `${prompt.system}\n\n${prompt.user}\n\nAnswer with one JSON object matching this JSON Schema:\n${JSON.stringify(prompt.schema)}`,
          )
        : null,
      promptDetails: prompts,
    },
    toolCallRequest:
      outcome.kind === "waitTool"
        ? { toolName: outcome.toolName, toolArguments: outcome.toolArguments, toolCallId: toolCallId as string }
        : null,
    userInputRequest: outcome.kind === "waitUser" ? outcome.question : null,
    error: null,
    updatedSessionState: signSessionState({ sessionId, revision: committed.expectedRevision + 1 }, committed.secret),
    sessionExpiresAt: new Date(committedAt.getTime() + task.options.idleTimeoutMs).toISOString(),
    notices: task.run.notices,
  };
}

/**
 * A failed task writes nothing: a new session is not created, an existing one
 * stays at its revision (so its state is returned again and the call can be
 * retried). The invocation row records the failure.
 */
export async function failedResponse(
  task: Task,
  outcome: Extract<Outcome, { kind: "failed" }>,
): Promise<ExecuteTaskResponse> {
  const { context, options, access, request } = task;
  if (outcome.error.reason !== "EXTRACTION_EMPTY") {
    context.reportFailure({
      code: outcome.error.reason as Parameters<KnowledgeGraphContext["reportFailure"]>[0]["code"],
      message: outcome.error.message,
    });
  }
  const session = access.kind === "existing" ? access.session : null;
  const secret = session ? await stateSecretFor(context, options) : undefined;
  return {
    taskId: request.taskId,
    reasoningSessionId: session?.sessionId ?? null,
    status: "failed",
    result: null,
    toolCallRequest: null,
    userInputRequest: null,
    error: outcome.error,
    updatedSessionState:
      session && secret !== undefined
        ? signSessionState({ sessionId: session.sessionId, revision: session.revision }, secret)
        : null,
    sessionExpiresAt: session ? expiresAt(session, options) : null,
    notices: task.run.notices,
  };
}
