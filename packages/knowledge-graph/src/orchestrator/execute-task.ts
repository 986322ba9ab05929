import type { ExecuteTaskRequest, ExecuteTaskResponse } from "@deliberate/contracts";
import type { KnowledgeGraphOptions } from "./options.ts";
import { BudgetExhausted, type KnowledgeGraphContext } from "./reasoning-run.ts";
import { commit } from "./stages/commit.ts";
import { gather } from "./stages/gather.ts";
import { reason } from "./stages/reason.ts";
import { failedResponse, respond } from "./stages/respond.ts";
import { type Stage, startTask, type Task } from "./stages/task.ts";
import { modelFailureOf } from "./task-failure.ts";

/**
 * A model failure (not a cancellation) fails the task; a spent budget stops it with what was found so far.
 * Anything else is not the task's outcome and propagates.
 */
function settleInterrupted(task: Task, error: unknown): Stage {
  // A cancelled call stays cancelled, whatever the provider made of the abort.
  const modelFailure = task.context.signal.aborted ? null : modelFailureOf(error);
  if (modelFailure) return { stage: "settled", outcome: { kind: "failed", error: modelFailure } };
  if (!(error instanceof BudgetExhausted)) throw error;
  const maxStepsGiven = task.request.outputRequirements?.maxSteps != null;
  task.run.notices.push({
    field: maxStepsGiven ? "outputRequirements.maxSteps" : null,
    message: `Stopped: ${error.reason}. The graph keeps what was found so far; call again to continue.`,
  });
  for (const step of task.planSteps ?? []) if (step.status === "pending") step.status = "not_reached";
  return { stage: "settled", outcome: { kind: "exhausted" } };
}

/** Moves the task one stage on. The model calls (gather, reason) work on the in-memory graph only. */
async function advance(task: Task, current: Exclude<Stage, { stage: "done" }>): Promise<Stage> {
  switch (current.stage) {
    case "gather":
      return gather(task).catch((error: unknown) => settleInterrupted(task, error));
    case "reason":
      return reason(task).then(
        (outcome): Stage => ({ stage: "settled", outcome }),
        (error: unknown) => settleInterrupted(task, error),
      );
    case "settled": {
      const { outcome } = current;
      if (outcome.kind === "failed") return { stage: "done", response: await failedResponse(task, outcome) };
      return { stage: "committed", outcome, committed: await commit(task, outcome) };
    }
    case "committed":
      return { stage: "done", response: respond(task, current.outcome, current.committed) };
  }
}

/**
 * reasoning/executeTask: resolves (or creates) the session, makes every model
 * call on an in-memory copy of its graph (seeding, the reasoning operations,
 * the answer under the chosen CoT variation), then writes the graph's changes
 * and the session's next state in one transaction and returns the response
 * with a freshly signed session state. Refused requests write nothing.
 *
 * The stages (`stages/*`): gather → reason → settled → committed → done.
 */
export async function executeTask(
  request: ExecuteTaskRequest,
  context: KnowledgeGraphContext,
  options: KnowledgeGraphOptions,
): Promise<ExecuteTaskResponse> {
  const task = await startTask(request, context, options);
  let stage: Stage = { stage: "gather" };
  while (stage.stage !== "done") stage = await advance(task, stage);
  return stage.response;
}
