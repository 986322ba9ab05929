import type { CriterionDirection, decisionTool, ToolInput } from "@deliberate/contracts";
import { runMode } from "@deliberate/engine";
import type { ReasoningContext } from "../../define-handler.ts";
import { historyMessages, type SessionHistory } from "../../session-history.ts";
import { createScoringMode, type ScoringAnswer } from "./decision.mode.ts";

/** Where a criterion's weight or direction came from. */
type ValueSource = "caller" | "model" | "default";

/** A decision matrix with every weight, direction and score filled in, and where each came from. */
export interface DecisionMatrix {
  type: "weighted" | "topsis";
  options: string[];
  /** In the caller's order (or the model's, when it proposed them). */
  criteria: Array<{
    name: string;
    weight: number;
    direction: CriterionDirection;
    weight_source: ValueSource;
    direction_source: ValueSource;
  }>;
  /** `scores[option][criterion]`. */
  scores: number[][];
  /** The model's notes on its judgements, when it was asked. */
  notes: string | undefined;
}

/**
 * Completes the caller's matrix of a weighted or TOPSIS decision: what the caller left out (criteria,
 * importance, directions, scores) is asked of the model in one call; what the caller gave is kept.
 */
export async function judgeDecisionMatrix(
  input: ToolInput<typeof decisionTool>,
  context: ReasoningContext,
  history: SessionHistory,
): Promise<DecisionMatrix> {
  const type = input.type as "weighted" | "topsis";
  const options = input.options as string[];
  const given = input.criteria;
  const needImportance = given === undefined || given.every((criterion) => criterion.weight === undefined);
  const needScores = input.scores === undefined;
  const callModel = given === undefined || needImportance || needScores;
  const needDirection =
    callModel && given !== undefined
      ? given.filter((criterion) => criterion.direction === undefined).map((criterion) => criterion.name)
      : [];

  let answer: ScoringAnswer | undefined;
  if (callModel) {
    const needs = {
      type,
      question: input.question,
      context: input.context,
      options,
      criteria: given,
      needImportance,
      needScores,
      needDirection,
    };
    answer = await runMode(context, createScoringMode(needs), needs, { history: historyMessages(history) });
  }

  // Criteria in the caller's order (or the model's, when it proposed them).
  const names =
    given?.map((criterion) => criterion.name) ??
    (answer as ScoringAnswer).criteria.map((criterion) => criterion.name.trim());
  const judged = new Map((answer?.criteria ?? []).map((criterion) => [criterion.name.trim().toLowerCase(), criterion]));
  const criteria = names.map((name, index) => {
    const caller = given?.[index];
    const model = judged.get(name.toLowerCase());
    const weight = caller?.weight ?? model?.importance;
    const direction: CriterionDirection = caller?.direction ?? model?.direction ?? "benefit";
    const weightSource: ValueSource = caller?.weight !== undefined ? "caller" : "model";
    const directionSource: ValueSource =
      caller?.direction !== undefined ? "caller" : model?.direction !== undefined ? "model" : "default";
    return {
      name,
      weight: weight as number,
      direction,
      weight_source: weightSource,
      direction_source: directionSource,
    };
  });
  const scores =
    input.scores ??
    options.map((option) =>
      names.map((name) => {
        const entry = judged.get(name.toLowerCase())?.scores?.find((score) => score.option === option);
        return entry?.score as number;
      }),
    );

  return { type, options, criteria, scores, notes: answer?.notes };
}
