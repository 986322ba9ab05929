import { DeliberateError } from "@deliberate/contracts";
import { parseJsonColumn } from "@deliberate/store";
import type { DatabaseExecutor } from "../tables.ts";
import type { WorkflowRunRow } from "../tables/workflow-run.table.ts";

export interface WorkflowRun {
  id: string;
  workflow: string;
  status: "in_progress" | "complete";
  current_step: string | null;
  inputs: Record<string, string>;
  answers: Record<string, string>;
  created_at: string;
  updated_at: string;
  completed_at: string | null;
}

function toWorkflowRun(row: WorkflowRunRow): WorkflowRun {
  return {
    ...row,
    status: row.status === "complete" ? "complete" : "in_progress",
    inputs: parseJsonColumn<Record<string, string>>(row.inputs, `workflow run ${row.id} inputs`),
    answers: parseJsonColumn<Record<string, string>>(row.answers, `workflow run ${row.id} answers`),
  };
}

/** Guided workflow runs, each isolated by its id (the state_id). */
export function createWorkflowRunRepository(db: DatabaseExecutor) {
  return {
    async create(run: WorkflowRun): Promise<void> {
      await db
        .insertInto("workflow_runs")
        .values({ ...run, inputs: JSON.stringify(run.inputs), answers: JSON.stringify(run.answers) })
        .execute();
    },

    async get(id: string): Promise<WorkflowRun> {
      const row = await db.selectFrom("workflow_runs").selectAll().where("id", "=", id).executeTakeFirst();
      if (!row) {
        throw new DeliberateError({
          code: "NOT_FOUND",
          message: `Invalid or expired state_id: ${id}`,
          issues: [{ field: "state_id", message: `no workflow run '${id}'` }],
          hint: "Use the state_id returned by startChainOfThought / startWorkflow, or start a new workflow.",
        });
      }
      return toWorkflowRun(row);
    },

    /**
     * Saves an answer and moves the run on, only if it is still at `fromStep`
     * (so two concurrent submissions cannot both advance it). Returns false when it was not.
     */
    async advance(input: {
      id: string;
      fromStep: string;
      toStep: string | null;
      answers: Record<string, string>;
      now: string;
    }): Promise<boolean> {
      const result = await db
        .updateTable("workflow_runs")
        .set({
          current_step: input.toStep,
          answers: JSON.stringify(input.answers),
          status: input.toStep === null ? "complete" : "in_progress",
          updated_at: input.now,
          completed_at: input.toStep === null ? input.now : null,
        })
        .where("id", "=", input.id)
        .where("status", "=", "in_progress")
        .where("current_step", "=", input.fromStep)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
  };
}
export type WorkflowRunRepository = ReturnType<typeof createWorkflowRunRepository>;
