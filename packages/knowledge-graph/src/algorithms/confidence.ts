import type { ConfidenceMethod } from "@deliberate/contracts";

/** What graph support counts: cited facts present, contradicted, or absent in the graph. */
export interface SupportCounts {
  supporting: number;
  contradicting: number;
  unsupported: number;
}

/**
 * Graph support of an answer: (s + 1) / (s + c + u/2 + 2), with s the cited
 * facts present in the graph, c those whose negation (or retraction) is, and
 * u those the graph does not have. No citations gives 0.5 (no evidence either way).
 */
export function graphSupport(counts: SupportCounts): number {
  return (counts.supporting + 1) / (counts.supporting + counts.contradicting + counts.unsupported / 2 + 2);
}

/** Weights of the components of the combined confidence. */
export const confidenceWeights = { verbalizedConfidence: 0.4, consistency: 0.3, graphSupport: 0.3 } as const;

/** The documented formula, as reported with every score. */
export const confidenceFormula =
  "confidence = weighted mean of the measured components, weights verbalizedConfidence 0.4, consistency 0.3, graphSupport 0.3 (renormalised over the components measured); " +
  "consistency = share of self-consistency samples in the largest agreeing cluster; graphSupport = (s + 1) / (s + c + u/2 + 2) over the answer's cited facts (s in the graph, c contradicted, u absent)";

export interface ConfidenceComponents {
  /** The model's own confidence in its answer, 0..1. */
  verbalizedConfidence: number;
  /** Self-consistency agreement, when several samples were drawn. */
  consistency?: number | null | undefined;
  /** Graph support of the cited facts, when the answer cited any or the graph was consulted. */
  graphSupport?: number | null | undefined;
}

export interface CombinedConfidence {
  score: number;
  method: ConfidenceMethod;
}

function clamp(value: number): number {
  return Math.min(1, Math.max(0, value));
}

/**
 * Combines the components by `confidenceWeights`, renormalised over those
 * measured. The score is in [0, 1] and never decreases when a component
 * increases. The method is `combined` for two or more components, else the
 * one component's name.
 */
export function combineConfidence(components: ConfidenceComponents): CombinedConfidence {
  const parts: Array<{ name: ConfidenceMethod; value: number; weight: number }> = [
    { name: "verbalizedConfidence", value: clamp(components.verbalizedConfidence), weight: confidenceWeights.verbalizedConfidence },
  ];
  if (components.consistency != null) parts.push({ name: "selfConsistency", value: clamp(components.consistency), weight: confidenceWeights.consistency });
  if (components.graphSupport != null) parts.push({ name: "graphSupport", value: clamp(components.graphSupport), weight: confidenceWeights.graphSupport });
  const totalWeight = parts.reduce((sum, part) => sum + part.weight, 0);
  const score = clamp(parts.reduce((sum, part) => sum + part.value * part.weight, 0) / totalWeight);
  return { score, method: parts.length === 1 ? (parts[0] as { name: ConfidenceMethod }).name : "combined" };
}
