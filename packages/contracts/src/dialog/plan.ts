import { z } from "zod";
import { type DialogAct, dialogActSchema, dialogLimits } from "./agent.ts";
import { lazySchema } from "../lazy-schema.ts";

/** One agent speaking once in a step. */
export const dialogTurnSchema = lazySchema(() =>
  z.strictObject({
    agent: z.string().trim().min(1, "agent must not be empty").describe("An agent name of the session"),
    act: dialogActSchema,
  }),
);
export type DialogTurn = z.infer<typeof dialogTurnSchema>;

/**
 * Who speaks when in one iteration: steps run in order; the turns of one step are independent
 * and run concurrently. Every step has one act.
 */
export const dialogPlanSchema = lazySchema(() =>
  z
    .array(z.array(dialogTurnSchema).min(1, "a step needs at least one turn"))
    .min(2, "a plan needs at least two steps (a document, then its review)")
    .max(dialogLimits.maxSteps, `a plan has at most ${dialogLimits.maxSteps} steps`),
);
export type DialogPlan = z.infer<typeof dialogPlanSchema>;

/** A plan problem: where (path inside the plan) and what is wrong. */
export interface DialogPlanProblem {
  path: Array<string | number>;
  message: string;
}

/**
 * Checks a plan against the session's agents. The rules: every turn names an agent of the session,
 * once per step; a step's turns share one act; the first step produces; a merge step has one turn;
 * a review step (and a produce step after the first) needs exactly one current document, so several
 * produced documents are merged first; a reviewer never reviews a document it wrote (the author of
 * the current document is the agent of the last produce or merge step); the last step reviews (its
 * reviewers' scores are the iteration's quality); every agent speaks; at most 16 turns.
 */
export function dialogPlanProblems(
  plan: readonly (readonly DialogTurn[])[],
  agentNames: readonly string[],
): DialogPlanProblem[] {
  const problems: DialogPlanProblem[] = [];
  const known = new Set(agentNames);
  let turns = 0;
  // How many documents are "current" after each step (0 before the first step of iteration 0), and who wrote them.
  let documents = 0;
  let authors: { names: Set<string>; step: number } = { names: new Set(), step: -1 };
  plan.forEach((step, stepIndex) => {
    const acts = new Set<DialogAct>(step.map((turn) => turn.act));
    const seen = new Set<string>();
    step.forEach((turn, turnIndex) => {
      turns += 1;
      if (!known.has(turn.agent)) {
        problems.push({
          path: [stepIndex, turnIndex, "agent"],
          message: `'${turn.agent}' is not an agent of this session; agents: ${agentNames.join(", ")}`,
        });
      }
      if (seen.has(turn.agent))
        problems.push({
          path: [stepIndex, turnIndex, "agent"],
          message: `'${turn.agent}' speaks twice in step ${stepIndex}; an agent speaks once per step`,
        });
      seen.add(turn.agent);
    });
    if (acts.size > 1) {
      problems.push({
        path: [stepIndex],
        message: `step ${stepIndex} mixes acts (${[...acts].join(", ")}); the turns of one step share one act`,
      });
      return;
    }
    const act = step[0]?.act;
    if (stepIndex === 0 && act !== "produce")
      problems.push({
        path: [stepIndex, 0, "act"],
        message: "the first step must produce the document (act 'produce')",
      });
    if (act === "merge" && step.length !== 1)
      problems.push({
        path: [stepIndex],
        message: `a merge step has exactly one turn; step ${stepIndex} has ${step.length}`,
      });
    if (act === "produce" && stepIndex > 0 && documents !== 1) {
      problems.push({
        path: [stepIndex],
        message: `step ${stepIndex} produces from ${documents} current documents; merge them first`,
      });
    }
    if (act === "review" && documents !== 1) {
      problems.push({
        path: [stepIndex],
        message:
          documents === 0
            ? `step ${stepIndex} reviews before any document exists`
            : `step ${stepIndex} reviews ${documents} documents; add a merge step before it`,
      });
    }
    if (act === "review" && documents === 1) problems.push(...selfReviews(step, stepIndex, authors, agentNames));
    if (act === "produce") documents = step.length;
    if (act === "merge") documents = 1;
    if (act !== "review") authors = { names: new Set(step.map((turn) => turn.agent)), step: stepIndex };
  });
  const last = plan[plan.length - 1];
  if (last !== undefined && last[0]?.act !== "review") {
    problems.push({
      path: [plan.length - 1],
      message: "the last step must review the document (act 'review'): its scores decide when to stop",
    });
  }
  const speaking = new Set(plan.flatMap((step) => step.map((turn) => turn.agent)));
  for (const name of agentNames) {
    if (!speaking.has(name))
      problems.push({ path: [], message: `agent '${name}' never speaks; give it a turn or leave it out of agents` });
  }
  if (turns > dialogLimits.maxTurns)
    problems.push({ path: [], message: `a plan has at most ${dialogLimits.maxTurns} turns; this one has ${turns}` });
  return problems;
}

/** A review turn by the author of the document it would review: an author never grades its own work. */
function selfReviews(
  step: readonly DialogTurn[],
  stepIndex: number,
  authors: { names: Set<string>; step: number },
  agentNames: readonly string[],
): DialogPlanProblem[] {
  const problems: DialogPlanProblem[] = [];
  step.forEach((turn, turnIndex) => {
    if (!authors.names.has(turn.agent)) return;
    const others = agentNames.filter((name) => !authors.names.has(name));
    const instead =
      others.length > 0
        ? `give this review to another agent (${others.map((name) => `'${name}'`).join(" or ")})`
        : "give this review to an agent that did not write it";
    problems.push({
      path: [stepIndex, turnIndex, "agent"],
      message: `'${turn.agent}' would review the document it wrote in step ${authors.step}; a reviewer never reviews its own document: ${instead}, or let another agent write step ${authors.step}`,
    });
  });
  return problems;
}

/**
 * The plan custom agents get when none is given: two agents produce then review; with n >= 3 the
 * first n-1 produce independently, the last merges their documents, and the first n-1 review the
 * merged document.
 */
export function defaultDialogPlan(agentNames: readonly string[]): DialogPlan {
  if (agentNames.length <= 2) {
    const [producer = "", reviewer = ""] = agentNames;
    return [[{ agent: producer, act: "produce" }], [{ agent: reviewer, act: "review" }]];
  }
  const contributors = agentNames.slice(0, -1);
  const merger = agentNames[agentNames.length - 1] as string;
  return [
    contributors.map((agent) => ({ agent, act: "produce" as const })),
    [{ agent: merger, act: "merge" }],
    contributors.map((agent) => ({ agent, act: "review" as const })),
  ];
}
