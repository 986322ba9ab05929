import { decisionTool, type ToolInput, type ToolOutput } from "@deliberate/contracts";
import {
  analyzePairwiseJudgements,
  analyzePairwiseMatrix,
  consistencyRatioThreshold,
  type PairwiseAnalysis,
  type RankedOption,
  rankOptions,
  topsis,
  weightedSum,
} from "@deliberate/algorithms";
import { runMode } from "@deliberate/engine";
import { type ReasoningContext, defineHandler } from "../../define-handler.ts";
import { createPairwiseMode, createStakeholderMode } from "./decision.mode.ts";
import { judgeDecisionMatrix } from "./decision-matrix.ts";
import { recordAnalysis } from "../../record-analysis.ts";
import { historyMessages, loadSessionHistory, type SessionHistory } from "../../session-history.ts";
import { mapStakeholders, quadrantOf } from "./stakeholder-map.ts";

type DecisionInput = ToolInput<typeof decisionTool>;
type DecisionOutput = ToolOutput<typeof decisionTool>;
/** The output without the ids assigned when it is recorded. */
type DecisionResult = Omit<DecisionOutput, "session_id" | "thought_id">;

const format = (value: number): string => String(Number(value.toPrecision(4)));

function toRankings(rankings: readonly RankedOption[]) {
  return rankings.map(({ option, score, rank, tied }) => ({ option, score, rank, tied }));
}

/** Names every group of tied options, best group first. */
function tieWarnings(rankings: readonly RankedOption[], what: string): string[] {
  const groups: RankedOption[][] = [];
  for (const ranked of rankings) {
    if (!ranked.tied) continue;
    const last = groups.at(-1);
    if (
      last !== undefined &&
      (last.at(-1) as RankedOption).rank === ranked.rank - 1 &&
      Number((last[0] as RankedOption).score.toPrecision(12)) === Number(ranked.score.toPrecision(12))
    ) {
      last.push(ranked);
    } else groups.push([ranked]);
  }
  return groups.map(
    (group) =>
      `${group.map((ranked) => JSON.stringify(ranked.option)).join(", ")} tie on ${what} ${format((group[0] as RankedOption).score)}; ` +
      `they are ranked ${(group[0] as RankedOption).rank}-${(group.at(-1) as RankedOption).rank} by input order, not by merit.`,
  );
}

function recommend(rankings: readonly RankedOption[], what: string): string {
  const best = rankings[0] as RankedOption;
  if (!best.tied) {
    const runnerUp = rankings[1];
    return `Choose ${JSON.stringify(best.option)} (${what} ${format(best.score)}${runnerUp ? `; next: ${JSON.stringify(runnerUp.option)} at ${format(runnerUp.score)}` : ""}).`;
  }
  const tied = rankings.filter(
    (ranked) => ranked.tied && Number(ranked.score.toPrecision(12)) === Number(best.score.toPrecision(12)),
  );
  return `No single winner: ${tied.map((ranked) => JSON.stringify(ranked.option)).join(" and ")} tie at ${what} ${format(best.score)}. Add a criterion or revisit the judgements to separate them.`;
}

async function scoredDecision(
  input: DecisionInput,
  context: ReasoningContext,
  history: SessionHistory,
): Promise<DecisionResult> {
  const { type, options, criteria, scores, notes } = await judgeDecisionMatrix(input, context, history);
  const matrix = {
    options,
    criteria: criteria.map(({ name, weight, direction }) => ({ name, weight, direction })),
    scores,
  };
  const warnings: string[] = [];
  let result: DecisionResult;
  if (type === "weighted") {
    const computed = weightedSum({ ...matrix, normalization: input.normalization });
    warnings.push(...tieWarnings(computed.rankings, "total"));
    const weightsText = criteria
      .map(
        (criterion, index) => `${criterion.name} ${format(computed.weights[index] as number)} (${criterion.direction})`,
      )
      .join(", ");
    result = {
      type,
      recommendation: recommend(computed.rankings, "weighted total"),
      rankings: toRankings(computed.rankings),
      criteria: criteria.map((criterion, index) => ({ ...criterion, weight: computed.weights[index] as number })),
      scores,
      scores_source: input.scores === undefined ? "model" : "caller",
      normalized_scores: computed.normalized_scores,
      warnings,
      rationale:
        `Weighted sum over normalised weights: ${weightsText}. ` +
        (input.normalization === "min_max"
          ? "Each criterion was rescaled to 0..1 across the options (min-max; cost criteria inverted), so totals lie in 0..1. "
          : "Raw scores were used (cost criteria reflected within their observed range). ") +
        `Totals: ${computed.rankings.map((ranked) => `${ranked.option} ${format(ranked.score)}`).join(", ")}.`,
    };
  } else {
    const computed = topsis(matrix);
    warnings.push(...tieWarnings(computed.rankings, "closeness"));
    const weightsText = criteria
      .map(
        (criterion, index) => `${criterion.name} ${format(computed.weights[index] as number)} (${criterion.direction})`,
      )
      .join(", ");
    result = {
      type,
      recommendation: recommend(computed.rankings, "closeness"),
      rankings: toRankings(computed.rankings),
      criteria: criteria.map((criterion, index) => ({ ...criterion, weight: computed.weights[index] as number })),
      scores,
      scores_source: input.scores === undefined ? "model" : "caller",
      topsis: {
        weighted_normalized: computed.weighted_normalized,
        ideal: computed.ideal,
        anti_ideal: computed.anti_ideal,
        distance_to_ideal: computed.distance_to_ideal,
        distance_to_anti_ideal: computed.distance_to_anti_ideal,
      },
      warnings,
      rationale:
        `TOPSIS with weights ${weightsText}: scores vector-normalised per criterion and weighted; the ideal takes the best value per criterion (max for benefit, min for cost) and the anti-ideal the worst; ` +
        `closeness = distance to anti-ideal / (distance to ideal + distance to anti-ideal). Closeness: ${computed.rankings.map((ranked) => `${ranked.option} ${format(ranked.score)}`).join(", ")}.`,
    };
  }
  if (notes) result.rationale += ` Model's notes on its judgements: ${notes}`;
  return result;
}

function pairwiseWarning(analysis: PairwiseAnalysis, options: readonly string[]): string | undefined {
  if (analysis.consistent || analysis.most_inconsistent === undefined) return undefined;
  const { row, column, value, implied } = analysis.most_inconsistent;
  return (
    `Consistency ratio ${analysis.consistency_ratio.toFixed(3)} exceeds ${consistencyRatioThreshold}: the pairwise judgements contradict each other, so the priorities are unreliable. ` +
    `Revisit ${JSON.stringify(options[row])} vs ${JSON.stringify(options[column])} first (judged ${format(value)}, the other judgements imply about ${format(implied)}).`
  );
}

async function pairwiseDecision(
  input: DecisionInput,
  context: ReasoningContext,
  history: SessionHistory,
): Promise<DecisionResult> {
  const options = input.options as string[];
  let analysis: PairwiseAnalysis & { matrix: number[][] };
  let rankings: RankedOption[];
  let notes: string | undefined;
  const warnings: string[] = [];
  if (input.pairwise_matrix !== undefined) {
    analysis = { ...analyzePairwiseMatrix({ matrix: input.pairwise_matrix }), matrix: input.pairwise_matrix };
    rankings = rankOptions(options, analysis.priorities);
    if (input.criteria !== undefined)
      warnings.push(
        "criteria were not used: a supplied pairwise_matrix already is the overall comparison of the options.",
      );
  } else {
    const pairs: Array<readonly [number, number]> = [];
    for (let i = 0; i < options.length; i += 1) for (let j = i + 1; j < options.length; j += 1) pairs.push([i, j]);
    const needs = { question: input.question, context: input.context, options, criteria: input.criteria, pairs };
    const answer = await runMode(context, createPairwiseMode(needs), needs, { history: historyMessages(history) });
    notes = answer.notes;
    const judgements = answer.judgements.map((judgement) => {
      const [a, b] = pairs[judgement.pair - 1] as readonly [number, number];
      const aName = options[a] as string;
      const bName = options[b] as string;
      return {
        a: aName,
        b: bName,
        value: judgement.preferred === aName ? judgement.intensity : 1 / judgement.intensity,
      };
    });
    const computed = analyzePairwiseJudgements({ items: options, judgements });
    analysis = computed;
    rankings = computed.rankings;
  }
  const warning = pairwiseWarning(analysis, options);
  if (warning !== undefined) warnings.push(warning);
  warnings.push(...tieWarnings(rankings, "priority"));
  let rationale =
    `AHP: priorities are the principal eigenvector of the ${options.length} x ${options.length} pairwise matrix (normalised to sum 1): ` +
    `${rankings.map((ranked) => `${ranked.option} ${format(ranked.score)}`).join(", ")}. ` +
    `λmax ${format(analysis.lambda_max)}, CI ${format(analysis.consistency_index)}, RI ${analysis.random_index}, CR ${format(analysis.consistency_ratio)} ` +
    `(${analysis.consistent ? "consistent" : "inconsistent"}: the limit is ${consistencyRatioThreshold}).`;
  if (notes) rationale += ` Model's notes on its judgements: ${notes}`;
  return {
    type: "pairwise",
    recommendation: recommend(rankings, "priority"),
    rankings: toRankings(rankings),
    pairwise: {
      matrix: analysis.matrix,
      matrix_source: input.pairwise_matrix === undefined ? "model" : "caller",
      priorities: analysis.priorities,
      lambda_max: analysis.lambda_max,
      consistency_index: analysis.consistency_index,
      random_index: analysis.random_index,
      consistency_ratio: analysis.consistency_ratio,
      consistent: analysis.consistent,
    },
    warnings,
    rationale,
  };
}

async function perspectivesDecision(
  input: DecisionInput,
  context: ReasoningContext,
  history: SessionHistory,
): Promise<DecisionResult> {
  const given = input.stakeholders;
  const missingLevels = (given ?? [])
    .filter((stakeholder) => stakeholder.power_level === undefined || stakeholder.interest_level === undefined)
    .map((stakeholder) => stakeholder.name);
  // Conflicts and alignments are qualitative judgements, so this type always asks the model.
  const needs = {
    topic: input.topic as string,
    context: input.context,
    options: input.options,
    stakeholders: given,
    missingLevels,
  };
  const answer = await runMode(context, createStakeholderMode(needs), needs, { history: historyMessages(history) });
  const levels = new Map((answer.levels ?? []).map((entry) => [entry.name, entry]));
  const stakeholders = (
    given?.map((stakeholder) => {
      const estimate = levels.get(stakeholder.name);
      const power = stakeholder.power_level ?? (estimate?.power_level as number);
      const interest = stakeholder.interest_level ?? (estimate?.interest_level as number);
      return {
        name: stakeholder.name,
        ...(stakeholder.role !== undefined ? { role: stakeholder.role } : {}),
        power_level: power,
        interest_level: interest,
        source: estimate === undefined ? ("caller" as const) : ("model" as const),
      };
    }) ??
    (answer.stakeholders ?? []).map((stakeholder) => ({
      name: stakeholder.name.trim(),
      role: stakeholder.role,
      power_level: stakeholder.power_level,
      interest_level: stakeholder.interest_level,
      source: "model" as const,
    }))
  ).map((stakeholder) => ({ ...stakeholder, quadrant: quadrantOf(stakeholder) }));
  const map = mapStakeholders(stakeholders);
  const list = (names: readonly string[]) => (names.length === 0 ? "none" : names.join(", "));
  const recommendation =
    map.key_players.length > 0
      ? `Manage ${list(map.key_players)} closely (key players); keep ${list(map.keep_satisfied)} satisfied; keep ${list(map.keep_informed)} informed.`
      : `No stakeholder has both high power and high interest; keep ${list(map.keep_satisfied)} satisfied and ${list(map.keep_informed)} informed.`;
  return {
    type: "perspectives",
    recommendation,
    stakeholder_map: map,
    stakeholders,
    conflicts: answer.conflicts,
    alignments: answer.alignments,
    warnings: [],
    rationale:
      "Quadrants from power and interest levels (high = 0.5 or more): key players = high power and interest; keep satisfied = high power, low interest; keep informed = low power, high interest; minimal effort = both low. " +
      `Levels ${given === undefined ? "were judged by the model" : missingLevels.length > 0 ? `were given by the caller except for ${missingLevels.join(", ")} (judged by the model)` : "were given by the caller"}; conflicts and alignments are the model's.`,
  };
}

export const decisionHandler = defineHandler(decisionTool, async (input, context) => {
  const history = await loadSessionHistory(context, input.session_id);
  const result =
    input.type === "pairwise"
      ? await pairwiseDecision(input, context, history)
      : input.type === "perspectives"
        ? await perspectivesDecision(input, context, history)
        : await scoredDecision(input, context, history);
  const thoughtId = await recordAnalysis(context, history, {
    mode: "decision",
    content: result.recommendation,
    metadata: {
      input: { question: input.question, topic: input.topic, options: input.options, context: input.context },
      ...result,
    },
  });
  return { session_id: history.sessionId, thought_id: thoughtId, ...result };
});
