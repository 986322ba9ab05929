import { describeValue, IssueList } from "./invalid-input.ts";

/** Source tiers of `reasoning_evidence.evidence[].source_type` (spec 3.10). */
export type SourceType = "primary" | "secondary" | "tertiary" | "expert" | "anecdotal";

/**
 * Base reliability of each source tier, in [0, 1]: first-hand records
 * (primary) above expert testimony, above reports of primary sources
 * (secondary), above compilations of those (tertiary), above anecdote.
 */
export const sourceTierScores: Readonly<Record<SourceType, number>> = {
  primary: 1,
  expert: 0.75,
  secondary: 0.6,
  tertiary: 0.35,
  anecdotal: 0.15,
};

/** State of an item's chain of custody (how its provenance from origin to claim is documented). */
export type ChainOfCustody = "intact" | "partial" | "broken" | "unknown";

/**
 * Score of each custody state, in [0, 1]. `unknown` (also used when the
 * field is omitted) sits at 0.5 and is reported as such, never hidden.
 */
export const chainOfCustodyScores: Readonly<Record<ChainOfCustody, number>> = {
  intact: 1,
  partial: 0.5,
  unknown: 0.5,
  broken: 0,
};

/** Relative weights of the three credibility components; normalised to sum 1. */
export interface CredibilityWeights {
  source: number;
  corroboration: number;
  custody: number;
}

/** Default component weights: source tier counts as much as corroboration and custody together. */
export const defaultCredibilityWeights: Readonly<CredibilityWeights> = {
  source: 0.5,
  corroboration: 0.25,
  custody: 0.25,
};

/** One evidence item to assess; names follow `reasoning_evidence.evidence` (spec 3.10). */
export interface CredibilityEvidence {
  source_type: SourceType;
  /** Who or what the item comes from; items from the same source do not corroborate each other. */
  source?: string;
  /** Indexes (into the same `evidence` array) of the items that corroborate this one. */
  corroborated_by?: readonly number[];
  /** A state, or a completeness fraction in [0, 1]. Omitted = `unknown`. */
  chain_of_custody?: ChainOfCustody | number;
}

/** Input of {@link assessCredibility}. */
export interface CredibilityInput {
  evidence: readonly CredibilityEvidence[];
  /** Defaults to {@link defaultCredibilityWeights}. */
  weights?: CredibilityWeights;
}

/** One item's assessment; the first four fields match `evidence_assessments` of spec 3.10. */
export interface EvidenceAssessment {
  index: number;
  /** Combined credibility in [0, 1]. */
  credibility_score: number;
  /** The item's `source_type`. */
  source_tier: SourceType;
  /** Valid corroborating item indexes, ascending, without duplicates. */
  corroborated_by: number[];
  /** {@link sourceTierScores} of the tier. */
  source_score: number;
  /** Independent corroborations counted (distinct sources other than the item's own). */
  corroboration_count: number;
  /** `1 − 0.5^corroboration_count`. */
  corroboration_score: number;
  /** The custody state, or `"fraction"` when given as a number. */
  chain_of_custody: ChainOfCustody | "fraction";
  custody_score: number;
}

/** Result of {@link assessCredibility}. */
export interface CredibilityAssessment {
  /** Mean of the item scores, in [0, 1]. */
  overall_credibility: number;
  evidence_assessments: EvidenceAssessment[];
  /** The component weights used, normalised to sum 1. */
  weights: CredibilityWeights;
}

const custodyStates = Object.keys(chainOfCustodyScores) as ChainOfCustody[];
const sourceTypes = Object.keys(sourceTierScores) as SourceType[];

/**
 * Evidence credibility for the `assess` type of `reasoning_evidence`.
 *
 * Per item i: `credibility_i = w_s·T_i + w_c·C_i + w_k·K_i` where (weights
 * normalised to sum 1, default 0.5 / 0.25 / 0.25)
 * - `T_i` = {@link sourceTierScores}[source_type];
 * - `C_i = 1 − 0.5^k_i`: diminishing returns — the first independent
 *   corroboration adds half the remaining room, each further one half again.
 *   `k_i` counts the distinct sources among `corroborated_by`, excluding the
 *   item itself and items from its own `source`; an item without `source`
 *   counts as a source of its own;
 * - `K_i` = {@link chainOfCustodyScores}[chain_of_custody], or the fraction
 *   given.
 *
 * `overall_credibility` = arithmetic mean of the item scores (every item
 * counts equally; 1 item → its own score). All values lie in [0, 1].
 *
 * Throws INVALID_INPUT naming the field for an empty list, an unknown
 * source type or custody state, a custody fraction outside [0, 1], a
 * corroborating index that is not another item's index, and negative /
 * non-finite / all-zero weights.
 */
export function assessCredibility(input: CredibilityInput): CredibilityAssessment {
  const issues = new IssueList();
  const weights = input.weights ?? defaultCredibilityWeights;
  for (const key of ["source", "corroboration", "custody"] as const) {
    const weight = weights?.[key];
    if (issues.finite(weight, `weights.${key}`) && weight < 0)
      issues.add(`weights.${key}`, `must be 0 or more, got ${weight}`);
  }
  const evidenceOk = issues.array(input.evidence, "evidence", 1);
  if (evidenceOk) {
    input.evidence.forEach((item, index) => {
      const field = `evidence.${index}`;
      const sourceType = item?.source_type;
      if (!sourceTypes.includes(sourceType))
        issues.add(
          `${field}.source_type`,
          `must be one of ${sourceTypes.join(", ")}, got ${describeValue(sourceType)}`,
        );
      if (item?.source !== undefined && typeof item.source !== "string")
        issues.add(`${field}.source`, `must be a string, got ${describeValue(item.source)}`);
      const custody = item?.chain_of_custody;
      if (typeof custody === "number") issues.inRange(custody, `${field}.chain_of_custody`, 0, 1);
      else if (custody !== undefined && !custodyStates.includes(custody)) {
        issues.add(
          `${field}.chain_of_custody`,
          `must be one of ${custodyStates.join(", ")} or a number in [0, 1], got ${describeValue(custody)}`,
        );
      }
      const corroboratedBy = item?.corroborated_by;
      if (corroboratedBy !== undefined && issues.array(corroboratedBy, `${field}.corroborated_by`)) {
        corroboratedBy.forEach((other, position) => {
          const otherField = `${field}.corroborated_by.${position}`;
          if (!issues.integer(other, otherField, 0, input.evidence.length - 1)) return;
          if (other === index) issues.add(otherField, "is the item itself; an item cannot corroborate itself");
        });
      }
    });
  }
  issues.throwIfAny(
    "Each evidence item needs a source_type; corroborated_by lists the indexes of other items that support it.",
  );
  const weightTotal = weights.source + weights.corroboration + weights.custody;
  if (weightTotal === 0) {
    issues.add("weights", "every weight is 0; give at least one component a positive weight");
    issues.throwIfAny();
  }
  const used: CredibilityWeights = {
    source: weights.source / weightTotal,
    corroboration: weights.corroboration / weightTotal,
    custody: weights.custody / weightTotal,
  };
  const assessments = input.evidence.map((item, index): EvidenceAssessment => {
    const corroboratedBy = [...new Set(item.corroborated_by ?? [])].sort((left, right) => left - right);
    const sources = new Set<string>();
    for (const other of corroboratedBy) {
      const otherSource = input.evidence[other]?.source;
      if (otherSource === undefined) sources.add(`#item:${other}`);
      else if (otherSource !== item.source) sources.add(`#source:${otherSource}`);
    }
    const corroborationCount = sources.size;
    const corroborationScore = 1 - 0.5 ** corroborationCount;
    const custody = item.chain_of_custody ?? "unknown";
    const custodyScore = typeof custody === "number" ? custody : chainOfCustodyScores[custody];
    const sourceScore = sourceTierScores[item.source_type];
    const score = used.source * sourceScore + used.corroboration * corroborationScore + used.custody * custodyScore;
    return {
      index,
      credibility_score: clamp01(score),
      source_tier: item.source_type,
      corroborated_by: corroboratedBy,
      source_score: sourceScore,
      corroboration_count: corroborationCount,
      corroboration_score: corroborationScore,
      chain_of_custody: typeof custody === "number" ? "fraction" : custody,
      custody_score: custodyScore,
    };
  });
  const overall =
    assessments.reduce((total, assessment) => total + assessment.credibility_score, 0) / assessments.length;
  return { overall_credibility: clamp01(overall), evidence_assessments: assessments, weights: used };
}

/** Guards [0, 1] against floating-point rounding of a convex combination. */
function clamp01(value: number): number {
  return Math.min(1, Math.max(0, value));
}
