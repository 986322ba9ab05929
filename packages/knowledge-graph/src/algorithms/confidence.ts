import type { ConfidenceMethod, EpistemicStatus } from "@deliberate/contracts";

/** What graph support counts over an answer's distinct cited facts. */
export interface SupportCounts {
  /** Cited facts the graph believes. */
  supporting: number;
  /** Their sum of `citationWeight`s (at most `supporting`); by default `supporting` (all asserted or derived). */
  supportingWeight?: number;
  /** Cited facts the graph contradicts (their negation or a rival is believed, or they were retracted or are contested). */
  contradicting: number;
  /** Cited facts the graph does not have at all (unknown, e.g. made up). */
  unsupported: number;
}

/** How much a supporting citation counts, by the status of the cited fact: a hypothesis counts half. */
export const citationWeight: Record<EpistemicStatus, number> = {
  asserted: 1,
  derived: 1,
  hypothetical: 0.5,
  derived_from_hypothesis: 0.5,
};

/**
 * Graph support of an answer: (s + 1) / (n + c + 2), with n the distinct cited
 * facts, s the status-weighted count of those the graph believes, and c those
 * it contradicts (so a contradicted citation counts against twice: it is not
 * support and it is evidence against). No citations gives 0.5 (no evidence
 * either way); every citation unknown or contradicted drives it toward 0.
 */
export function graphSupport(counts: SupportCounts): number {
  const cited = counts.supporting + counts.contradicting + counts.unsupported;
  const weight = Math.min(counts.supporting, Math.max(0, counts.supportingWeight ?? counts.supporting));
  return (weight + 1) / (cited + counts.contradicting + 2);
}

/**
 * The share of an answer's citations that are not held against it: 1 - (c +
 * u/2) / n over its n distinct citations (c contradicted, u unknown); 1 when it
 * cites nothing. What the reasoning steps established (the basis) counts only
 * this far: a proof does not vouch for an answer that cites made-up or
 * contradicted facts.
 */
export function credibleShare(counts: SupportCounts): number {
  const cited = counts.supporting + counts.contradicting + counts.unsupported;
  if (cited === 0) return 1;
  return Math.max(0, 1 - (counts.contradicting + counts.unsupported / 2) / cited);
}

/** Weights of the components of the combined confidence. */
export const confidenceWeights = {
  /** The model's own word: at most this share of the score, whatever it says. */
  verbalizedConfidence: 0.2,
  /** The rest is evidence code checked, a weighted mean of: */
  graphSupport: 0.4,
  basis: 0.4,
  consistency: 0.2,
} as const;

/** The basis of an answer when no reasoning step established anything about it (neither for nor against). */
export const neutralBasis = 0.5;

/** The documented formula, as reported with every score. */
export const confidenceFormula =
  "confidence = 0.2 x verbalizedConfidence + 0.8 x checked, where checked = weighted mean of graphSupport (0.4), basis (0.4) and consistency (0.2, only when answers were sampled); " +
  "graphSupport = (s + 1) / (n + c + 2) over the answer's n distinct cited facts, s = those the graph believes (asserted or derived 1, resting on a hypothesis 0.5), c = those it contradicts; " +
  "basis = credible share x what the reasoning steps established in code, counted only when the answer cites a fact the graph believes (else 0.5), credible share = 1 - (c + u/2) / n (u = cited facts the graph does not have; 1 when nothing is cited), established = 1 for a proof from asserted facts, 0.5 for a conclusion derived from a hypothesis, 0.6 x score for a selected consistent abductive hypothesis, 0.5 x support for an induced pattern, 0.3 when the query does not follow, 0.1 when no consistent hypothesis was found, 0.5 when no step bore on the answer; " +
  "consistency = share of self-consistency samples in the largest agreeing cluster";

export interface ConfidenceComponents {
  /** The model's own confidence in its answer, 0..1. */
  verbalizedConfidence: number;
  /** Self-consistency agreement, when several samples were drawn. */
  consistency?: number | null | undefined;
  /** Graph support of the cited facts (`graphSupport`). */
  graphSupport: number;
  /** What the reasoning steps established, 0..1 (`neutralBasis` when nothing). */
  basis: number;
}

export interface CombinedConfidence {
  score: number;
  method: ConfidenceMethod;
}

function clamp(value: number): number {
  return Math.min(1, Math.max(0, Number.isFinite(value) ? value : 0));
}

/**
 * Combines the components: the model's self-report is one bounded term (at
 * most `confidenceWeights.verbalizedConfidence` of the score); the rest is the
 * weighted mean of what code checked (graph support, basis, and consistency
 * when sampled). The score is in [0, 1] and never decreases when a component
 * increases. The method is always `combined`.
 */
export function combineConfidence(components: ConfidenceComponents): CombinedConfidence {
  const checked: Array<{ value: number; weight: number }> = [
    { value: clamp(components.graphSupport), weight: confidenceWeights.graphSupport },
    { value: clamp(components.basis), weight: confidenceWeights.basis },
  ];
  if (components.consistency != null)
    checked.push({ value: clamp(components.consistency), weight: confidenceWeights.consistency });
  const totalWeight = checked.reduce((sum, part) => sum + part.weight, 0);
  const evidence = checked.reduce((sum, part) => sum + part.value * part.weight, 0) / totalWeight;
  const self = confidenceWeights.verbalizedConfidence;
  return { score: clamp(self * clamp(components.verbalizedConfidence) + (1 - self) * evidence), method: "combined" };
}
