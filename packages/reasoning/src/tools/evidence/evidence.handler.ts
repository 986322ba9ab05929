import { evidenceTool, type ToolInput, type ToolOutput } from "@deliberate/contracts";
import {
  assessCredibility,
  bayesianUpdate,
  chainOfCustodyScores,
  conditionalIndependenceAssumption,
  type CredibilityEvidence,
  sourceTierScores,
} from "@deliberate/algorithms";
import { runMode } from "@deliberate/engine";
import { type ReasoningContext, defineHandler } from "../../define-handler.ts";
import {
  type AssessmentAnswer,
  createAssessmentMode,
  createLikelihoodMode,
  type LikelihoodAnswer,
} from "./evidence.mode.ts";
import { recordAnalysis } from "../../record-analysis.ts";
import { historyMessages, loadSessionHistory, type SessionHistory } from "../../session-history.ts";

type EvidenceInput = ToolInput<typeof evidenceTool>;
type EvidenceOutput = ToolOutput<typeof evidenceTool>;
type EvidenceResult = Omit<EvidenceOutput, "session_id" | "thought_id">;

const format = (value: number): string => String(Number(value.toPrecision(3)));

const listScores = (scores: Readonly<Record<string, number>>): string =>
  Object.entries(scores)
    .map(([name, score]) => `${name} ${score}`)
    .join(", ");

/** JSON has no Infinity: an infinite ratio is reported as null (and explained). */
const finiteOrNull = (value: number): number | null => (Number.isFinite(value) ? value : null);

/** What the reported interval means; also stated in every probabilistic response. */
export function intervalMeaning(delta: number): string {
  return (
    `Likelihood-sensitivity interval: the lowest and highest posterior reachable if every likelihood were off by up to ±${delta} ` +
    `(computed exactly at the extreme corners: P(E|H) lowered and P(E|not H) raised for the lower bound, the reverse for the upper). ` +
    "It shows how much the conclusion depends on the likelihood estimates; it is not a sampling confidence interval."
  );
}

async function probabilistic(
  input: EvidenceInput,
  context: ReasoningContext,
  history: SessionHistory,
): Promise<EvidenceResult> {
  const missing = input.evidence.flatMap((item, index) =>
    item.likelihood_if_true === undefined || item.likelihood_if_false === undefined ? [index] : [],
  );
  let answer: LikelihoodAnswer | undefined;
  if (input.prior === undefined || missing.length > 0) {
    const needs = {
      hypothesis: input.hypothesis as string,
      context: input.context,
      prior: input.prior,
      evidence: input.evidence,
      items: missing,
    };
    answer = await runMode(context, createLikelihoodMode(needs), needs, { history: historyMessages(history) });
  }
  const estimates = new Map((answer?.items ?? []).map((item) => [item.index, item]));
  const prior = input.prior ?? (answer?.prior?.value as number);
  const likelihoods = input.evidence.map((item, index) => ({
    likelihood_if_true: item.likelihood_if_true ?? (estimates.get(index)?.likelihood_if_true as number),
    likelihood_if_false: item.likelihood_if_false ?? (estimates.get(index)?.likelihood_if_false as number),
  }));
  const result = bayesianUpdate({ prior, evidence: likelihoods, sensitivity_delta: input.sensitivity_delta });

  const steps = result.trace.map((step) => {
    const item = input.evidence[step.index] as EvidenceInput["evidence"][number];
    const estimate = estimates.get(step.index);
    return {
      index: step.index,
      content: item.content,
      likelihood_if_true: (likelihoods[step.index] as { likelihood_if_true: number }).likelihood_if_true,
      likelihood_if_false: (likelihoods[step.index] as { likelihood_if_false: number }).likelihood_if_false,
      likelihood_ratio: finiteOrNull(step.likelihood_ratio),
      prior: step.prior,
      posterior: step.posterior,
      estimated: estimate !== undefined,
      ...(estimate !== undefined ? { rationale: estimate.rationale } : {}),
    };
  });
  const estimatedCount = steps.filter((step) => step.estimated).length;
  const assumptions = [conditionalIndependenceAssumption];
  if (estimatedCount > 0)
    assumptions.push(
      `${estimatedCount} item${estimatedCount === 1 ? "'s" : "s'"} likelihoods were estimated by the model (marked estimated: true); supply them to remove that judgement.`,
    );
  if (input.prior === undefined)
    assumptions.push(
      `The prior ${format(prior)} was estimated by the model as a base rate: ${answer?.prior?.rationale ?? ""}`.trim(),
    );
  const interval = result.sensitivity_interval;
  const ratio = result.likelihood_ratio;
  const ratioText = Number.isFinite(ratio)
    ? `combined likelihood ratio ${format(ratio)} (the evidence is ${format(ratio)} times as likely if H is true as if it is false)`
    : "an infinite combined likelihood ratio (some evidence is impossible if H is false)";
  return {
    type: "probabilistic",
    prior,
    prior_estimated: input.prior === undefined,
    posterior: result.posterior,
    likelihood_ratio: finiteOrNull(ratio),
    log10_likelihood_ratio: finiteOrNull(result.log10_likelihood_ratio),
    entropy: result.entropy,
    confidence_interval: {
      lower: interval.lower,
      upper: interval.upper,
      delta: interval.delta,
      meaning: intervalMeaning(interval.delta),
    },
    steps,
    assumptions,
    synthesis:
      `Starting from P(H) = ${format(prior)}${input.prior === undefined ? " (estimated)" : ""}, ${steps.length} evidence item${steps.length === 1 ? "" : "s"} with ${ratioText} ` +
      `move the belief to P(H | evidence) = ${format(result.posterior)} (entropy ${format(result.entropy)} bits). ` +
      `With every likelihood off by up to ±${interval.delta}, the posterior would lie between ${format(interval.lower)} and ${format(interval.upper)}.`,
  };
}

async function assess(
  input: EvidenceInput,
  context: ReasoningContext,
  history: SessionHistory,
): Promise<EvidenceResult> {
  const missing = input.evidence.flatMap((item, index) =>
    item.source_type === undefined || item.corroborated_by === undefined || item.chain_of_custody === undefined
      ? [index]
      : [],
  );
  let answer: AssessmentAnswer | undefined;
  if (missing.length > 0) {
    const needs = { claim: input.claim as string, context: input.context, evidence: input.evidence, items: missing };
    answer = await runMode(context, createAssessmentMode(needs), needs, { history: historyMessages(history) });
  }
  const judged = new Map((answer?.items ?? []).map((item) => [item.index, item]));
  const estimated = input.evidence.map((item, index) => {
    const judgement = judged.get(index);
    const fields: Array<"source_type" | "corroborated_by" | "chain_of_custody"> = [];
    if (judgement === undefined) return { fields, judgement };
    if (item.source_type === undefined) fields.push("source_type");
    if (item.corroborated_by === undefined) fields.push("corroborated_by");
    if (item.chain_of_custody === undefined) fields.push("chain_of_custody");
    return { fields, judgement };
  });
  const evidence: CredibilityEvidence[] = input.evidence.map((item, index) => {
    const judgement = judged.get(index);
    return {
      source_type: item.source_type ?? (judgement?.source_type as CredibilityEvidence["source_type"]),
      ...(item.source !== undefined ? { source: item.source } : {}),
      corroborated_by: item.corroborated_by ?? judgement?.corroborated_by ?? [],
      chain_of_custody: item.chain_of_custody ?? judgement?.chain_of_custody ?? "unknown",
    };
  });
  const result = assessCredibility({
    evidence,
    ...(input.credibility_weights !== undefined ? { weights: input.credibility_weights } : {}),
  });
  const weights = result.weights;
  const formula =
    `credibility = ${format(weights.source)}·source tier + ${format(weights.corroboration)}·corroboration + ${format(weights.custody)}·chain of custody; ` +
    `source tier: ${listScores(sourceTierScores)}; corroboration = 1 − 0.5^k for k independent corroborating sources; ` +
    `custody: ${listScores(chainOfCustodyScores)} (or the fraction given); overall = mean of the items.`;
  const assessments = result.evidence_assessments.map((assessment) => {
    const item = estimated[assessment.index] as (typeof estimated)[number];
    return {
      index: assessment.index,
      content: (input.evidence[assessment.index] as EvidenceInput["evidence"][number]).content,
      credibility_score: assessment.credibility_score,
      source_tier: assessment.source_tier,
      corroborated_by: assessment.corroborated_by,
      source_score: assessment.source_score,
      corroboration_count: assessment.corroboration_count,
      corroboration_score: assessment.corroboration_score,
      chain_of_custody: assessment.chain_of_custody,
      custody_score: assessment.custody_score,
      estimated: item.fields,
      ...(item.fields.length > 0 && item.judgement !== undefined ? { rationale: item.judgement.rationale } : {}),
    };
  });
  const ordered = [...assessments].sort(
    (left, right) => right.credibility_score - left.credibility_score || left.index - right.index,
  );
  const strongest = ordered[0] as (typeof assessments)[number];
  const weakest = ordered.at(-1) as (typeof assessments)[number];
  const estimatedItems = assessments.filter((assessment) => assessment.estimated.length > 0).length;
  return {
    type: "assess",
    overall_credibility: result.overall_credibility,
    evidence_assessments: assessments,
    credibility_formula: formula,
    credibility_weights: weights,
    synthesis:
      `Overall credibility of the evidence for "${input.claim}": ${format(result.overall_credibility)} (mean of ${assessments.length} item${assessments.length === 1 ? "" : "s"}). ` +
      (assessments.length > 1
        ? `Strongest: item ${strongest.index} (${strongest.source_tier}, ${format(strongest.credibility_score)}); weakest: item ${weakest.index} (${weakest.source_tier}, ${format(weakest.credibility_score)}). `
        : "") +
      (estimatedItems > 0
        ? `${estimatedItems} item${estimatedItems === 1 ? " has" : "s have"} inputs judged by the model (see estimated).`
        : "Every input was given by the caller."),
  };
}

export const evidenceHandler = defineHandler(evidenceTool, async (input, context) => {
  const history = await loadSessionHistory(context, input.session_id);
  const result =
    input.type === "probabilistic"
      ? await probabilistic(input, context, history)
      : await assess(input, context, history);
  const thoughtId = await recordAnalysis(context, history, {
    mode: "evidence",
    content: result.synthesis,
    metadata: { input: { claim: input.claim, hypothesis: input.hypothesis, context: input.context }, ...result },
  });
  return { session_id: history.sessionId, thought_id: thoughtId, ...result };
});
