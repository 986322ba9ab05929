import { DeliberateError } from "@deliberate/base";
import { IssueList, requireFiniteResult } from "./invalid-input.ts";

/**
 * The assumption every update here rests on, worded for inclusion in a
 * response (e.g. in `reasoning_evidence` output) so a reader can judge it.
 */
export const conditionalIndependenceAssumption =
  "Evidence items are assumed conditionally independent given the hypothesis (and given its negation): " +
  "each likelihood is applied as if no other item had been observed. Correlated or duplicated evidence " +
  "makes the posterior overconfident.";

/** Default ± perturbation of every likelihood in the {@link bayesianUpdate} sensitivity interval. */
export const defaultSensitivityDelta = 0.05;

/**
 * A perturbed likelihood never drops below `min(original, 0.001)`: a
 * sensitivity analysis should not invent certainty (a likelihood of exactly 0
 * rules the hypothesis out), while a likelihood the caller gave as 0 stays 0.
 */
export const sensitivityLikelihoodFloor = 0.001;

/** One evidence item, named as in `reasoning_evidence.evidence` (spec 3.10). */
export interface BayesEvidence {
  /** P(E | H), in [0, 1]. */
  likelihood_if_true: number;
  /** P(E | ¬H), in [0, 1]. Not both 0. */
  likelihood_if_false: number;
}

/** Input of {@link bayesianUpdate}. */
export interface BayesianUpdateInput {
  /** P(H) before any evidence, in [0, 1]. */
  prior: number;
  /** Applied in order; at least one. */
  evidence: readonly BayesEvidence[];
  /** ± change applied to every likelihood for the sensitivity interval, in [0, 1]. Default 0.05. */
  sensitivity_delta?: number;
}

/** The belief after one evidence item. */
export interface BayesianStep {
  /** Index of the evidence item in the input. */
  index: number;
  /** P(H) before this item. */
  prior: number;
  /** P(H) after this item. */
  posterior: number;
  /** `P(E|H) / P(E|¬H)`; Infinity when P(E|¬H) = 0. */
  likelihood_ratio: number;
  /** P(E) under the current belief: `prior·P(E|H) + (1 − prior)·P(E|¬H)`. */
  marginal_likelihood: number;
}

/** Range of the posterior when every likelihood is off by up to ±delta. */
export interface SensitivityInterval {
  lower: number;
  upper: number;
  delta: number;
}

/** Result of {@link bayesianUpdate}. */
export interface BayesianUpdateResult {
  prior: number;
  /** P(H | all evidence). */
  posterior: number;
  /** Combined likelihood ratio `Π_k P(E_k|H) / P(E_k|¬H)`; Infinity if some P(E|¬H) = 0, 0 if some P(E|H) = 0. */
  likelihood_ratio: number;
  /** `Σ_k log10(P(E_k|H) / P(E_k|¬H))` (±Infinity as above): the weight of evidence in bans. */
  log10_likelihood_ratio: number;
  /** `prior / (1 − prior)`; Infinity when prior = 1. */
  prior_odds: number;
  /** `prior_odds · likelihood_ratio`; Infinity when the posterior is 1. */
  posterior_odds: number;
  /** Binary entropy of the posterior in bits, in [0, 1]; 0 = certain, 1 = 50/50. */
  entropy: number;
  /** Binary entropy of the prior in bits. */
  prior_entropy: number;
  /** Belief after each item, in input order. */
  trace: BayesianStep[];
  /** Likelihood-sensitivity interval (not a frequentist confidence interval); see {@link bayesianUpdate}. */
  sensitivity_interval: SensitivityInterval;
  /** {@link conditionalIndependenceAssumption}. */
  assumption: string;
}

/**
 * Exact sequential Bayesian updating of a binary hypothesis H (the
 * `probabilistic` type of `reasoning_evidence`).
 *
 * For each item k in order, with p the current P(H):
 * `p ← p·a_k / (p·a_k + (1 − p)·b_k)` where `a_k = P(E_k|H)`, `b_k = P(E_k|¬H)`.
 * Equivalently posterior odds = prior odds × Π_k a_k / b_k (evidence assumed
 * conditionally independent given H and given ¬H — see
 * {@link conditionalIndependenceAssumption}).
 *
 * Entropy: `H(p) = −p·log2 p − (1 − p)·log2(1 − p)` bits (0·log 0 = 0).
 *
 * Sensitivity interval: the posterior is increasing in every `a_k` and
 * decreasing in every `b_k`, so its extremes over the box "each likelihood
 * within ±delta of its value" are attained at corners, computed exactly:
 * upper = posterior with every `a_k + δ` and `b_k − δ`; lower = with `a_k − δ`
 * and `b_k + δ`. Perturbed values are clamped to `[min(v, 0.001), 1]`
 * ({@link sensitivityLikelihoodFloor}). It answers "how far could the answer
 * move if the likelihood estimates were off by δ", not a sampling interval.
 *
 * Throws INVALID_INPUT naming the field for a prior or likelihood outside
 * [0, 1] or non-finite, an item with both likelihoods 0, and an item that is
 * impossible under the current belief (P(E) = 0, e.g. P(E|H) = 0 when the
 * belief is already certain of H).
 */
export function bayesianUpdate(input: BayesianUpdateInput): BayesianUpdateResult {
  const issues = new IssueList();
  const delta = input.sensitivity_delta ?? defaultSensitivityDelta;
  issues.inRange(input.prior, "prior", 0, 1);
  issues.inRange(delta, "sensitivity_delta", 0, 1);
  if (issues.array(input.evidence, "evidence", 1)) {
    input.evidence.forEach((item, index) => {
      const trueOk = issues.inRange(item?.likelihood_if_true, `evidence.${index}.likelihood_if_true`, 0, 1);
      const falseOk = issues.inRange(item?.likelihood_if_false, `evidence.${index}.likelihood_if_false`, 0, 1);
      if (trueOk && falseOk && item.likelihood_if_true === 0 && item.likelihood_if_false === 0) {
        issues.add(
          `evidence.${index}`,
          "likelihood_if_true and likelihood_if_false are both 0: the evidence could not have been observed; give at least one a positive probability",
        );
      }
    });
  }
  issues.throwIfAny(
    "Probabilities are numbers in [0, 1]: prior = P(H), likelihood_if_true = P(E|H), likelihood_if_false = P(E|¬H).",
  );

  const likelihoods = input.evidence.map((item) => [item.likelihood_if_true, item.likelihood_if_false] as const);
  const trace = sequentialUpdate(input.prior, likelihoods);
  const posterior = trace.length > 0 ? (trace[trace.length - 1] as BayesianStep).posterior : input.prior;
  const likelihoodRatio = trace.reduce((product, step) => product * step.likelihood_ratio, 1);
  const log10LikelihoodRatio = likelihoods.reduce((total, [a, b]) => total + Math.log10(a) - Math.log10(b), 0);
  const priorOdds = input.prior === 1 ? Infinity : input.prior / (1 - input.prior);
  const posteriorOdds = input.prior === 0 ? 0 : priorOdds * likelihoodRatio;

  const perturb = (value: number, direction: 1 | -1): number =>
    direction === 1 ? Math.min(1, value + delta) : Math.max(Math.min(value, sensitivityLikelihoodFloor), value - delta);
  const upper = finalPosterior(
    input.prior,
    likelihoods.map(([a, b]) => [perturb(a, 1), perturb(b, -1)] as const),
  );
  const lower = finalPosterior(
    input.prior,
    likelihoods.map(([a, b]) => [perturb(a, -1), perturb(b, 1)] as const),
  );

  return {
    prior: input.prior,
    posterior,
    likelihood_ratio: likelihoodRatio,
    log10_likelihood_ratio: log10LikelihoodRatio,
    prior_odds: priorOdds,
    posterior_odds: posteriorOdds,
    entropy: binaryEntropy(posterior),
    prior_entropy: binaryEntropy(input.prior),
    trace,
    sensitivity_interval: { lower: Math.min(lower, posterior), upper: Math.max(upper, posterior), delta },
    assumption: conditionalIndependenceAssumption,
  };
}

/** Binary (Bernoulli) entropy in bits: `−p·log2 p − (1 − p)·log2(1 − p)`, with 0·log 0 = 0. */
export function binaryEntropy(probability: number): number {
  return shannonEntropy([probability, 1 - probability]);
}

/** Shannon entropy in bits of a probability vector: `−Σ p_i·log2 p_i`, with 0·log 0 = 0. */
export function shannonEntropy(probabilities: readonly number[]): number {
  let entropy = 0;
  for (const probability of probabilities) if (probability > 0) entropy -= probability * Math.log2(probability);
  return Math.max(0, entropy);
}

function sequentialUpdate(prior: number, likelihoods: readonly (readonly [number, number])[]): BayesianStep[] {
  const trace: BayesianStep[] = [];
  let belief = prior;
  likelihoods.forEach(([a, b], index) => {
    const marginal = belief * a + (1 - belief) * b;
    if (marginal === 0) {
      throw new DeliberateError({
        code: "INVALID_INPUT",
        message: `Invalid input: evidence.${index} is impossible under the belief reached before it (P(H) = ${belief}).`,
        issues: [
          {
            field: `evidence.${index}`,
            message: `has probability 0 given the current belief P(H) = ${belief} (P(E|H) = ${a}, P(E|¬H) = ${b}); earlier evidence or the prior made it impossible`,
          },
        ],
        hint: "A likelihood of exactly 0 (or a prior of 0 or 1) is certainty; use a small positive probability instead.",
      });
    }
    const posterior = (belief * a) / marginal;
    trace.push({ index, prior: belief, posterior, likelihood_ratio: a / b, marginal_likelihood: marginal });
    belief = posterior;
  });
  return trace;
}

function finalPosterior(prior: number, likelihoods: readonly (readonly [number, number])[]): number {
  const trace = sequentialUpdate(prior, likelihoods);
  return trace.length > 0 ? (trace[trace.length - 1] as BayesianStep).posterior : prior;
}

/** Input of {@link multiHypothesisUpdate}. */
export interface MultiHypothesisInput {
  /** Names of mutually exclusive, exhaustive hypotheses (at least 2). */
  hypotheses: readonly string[];
  /** One prior per hypothesis, 0 or more; normalised to sum 1. */
  priors: readonly number[];
  /** Applied in order; `likelihoods[h]` = P(E | hypothesis h), in [0, 1]. */
  evidence: readonly { likelihoods: readonly number[] }[];
}

/** Result of {@link multiHypothesisUpdate}. */
export interface MultiHypothesisResult {
  /** Priors normalised to sum 1. */
  priors: number[];
  /** P(h | all evidence) per hypothesis, summing to 1. */
  posteriors: number[];
  /** `trace[k]` = posteriors after evidence item k. */
  trace: number[][];
  /** Shannon entropy of the posteriors in bits (0 = certain, log2(n) = uniform). */
  entropy: number;
  /** Shannon entropy of the normalised priors in bits. */
  prior_entropy: number;
  /** The hypothesis with the highest posterior; ties go to the earliest in input order. */
  most_probable: { hypothesis: string; index: number; probability: number };
  /** {@link conditionalIndependenceAssumption}. */
  assumption: string;
}

/**
 * Exact sequential Bayesian updating over n mutually exclusive hypotheses:
 * after item k, `p_h ← p_h · L_kh / Σ_g p_g · L_kg`.
 *
 * Throws INVALID_INPUT naming the field for fewer than 2 or duplicate
 * hypotheses, negative / non-finite / all-zero priors, a likelihood row whose
 * length is not the number of hypotheses, likelihoods outside [0, 1], and an
 * item with probability 0 under the current belief.
 */
export function multiHypothesisUpdate(input: MultiHypothesisInput): MultiHypothesisResult {
  const issues = new IssueList();
  const hypothesesOk = issues.array(input.hypotheses, "hypotheses", 2);
  if (hypothesesOk) issues.uniqueNames(input.hypotheses, (index) => `hypotheses.${index}`);
  const count = hypothesesOk ? input.hypotheses.length : -1;
  if (issues.array(input.priors, "priors") && count >= 0) {
    if (input.priors.length !== count)
      issues.add("priors", `needs one prior per hypothesis (${count}), got ${input.priors.length}`);
    input.priors.forEach((prior, index) => {
      if (issues.finite(prior, `priors.${index}`) && prior < 0)
        issues.add(`priors.${index}`, `must be 0 or more, got ${prior}`);
    });
  }
  if (issues.array(input.evidence, "evidence", 1) && count >= 0) {
    input.evidence.forEach((item, index) => {
      const field = `evidence.${index}.likelihoods`;
      if (!issues.array(item?.likelihoods, field)) return;
      if (item.likelihoods.length !== count) {
        issues.add(field, `needs one likelihood per hypothesis (${count}), got ${item.likelihoods.length}`);
        return;
      }
      item.likelihoods.forEach((likelihood, hypothesis) => issues.inRange(likelihood, `${field}.${hypothesis}`, 0, 1));
    });
  }
  issues.throwIfAny(
    "Give one prior per hypothesis and, per evidence item, one likelihood P(E | hypothesis) per hypothesis.",
  );
  const priorTotal = input.priors.reduce((total, prior) => total + prior, 0);
  requireFiniteResult(
    priorTotal,
    "priors",
    "the sum of the priors",
    "Priors are relative weights: scale them down (e.g. to sum 1).",
  );
  if (priorTotal === 0) {
    issues.add("priors", "every prior is 0; give at least one hypothesis a positive prior");
    issues.throwIfAny();
  }
  const priors = input.priors.map((prior) => prior / priorTotal);
  let belief = priors;
  const trace: number[][] = [];
  input.evidence.forEach((item, index) => {
    const joint = belief.map((probability, hypothesis) => probability * (item.likelihoods[hypothesis] as number));
    const marginal = joint.reduce((total, value) => total + value, 0);
    if (marginal === 0) {
      issues.add(
        `evidence.${index}.likelihoods`,
        "give this item probability 0 under every hypothesis that is still possible; at least one must be positive",
      );
      issues.throwIfAny("A likelihood of exactly 0 rules a hypothesis out; use a small positive probability instead.");
    }
    belief = joint.map((value) => value / marginal);
    trace.push(belief);
  });
  let best = 0;
  belief.forEach((probability, index) => {
    if (probability > (belief[best] as number)) best = index;
  });
  return {
    priors,
    posteriors: belief,
    trace,
    entropy: shannonEntropy(belief),
    prior_entropy: shannonEntropy(priors),
    most_probable: { hypothesis: input.hypotheses[best] as string, index: best, probability: belief[best] as number },
    assumption: conditionalIndependenceAssumption,
  };
}
