import type { ReasoningType } from "@deliberate/contracts";
import { explicitRequestPatterns } from "./explicit-requests.ts";
import type { WeightedPattern } from "./weighted-pattern.ts";

export type { WeightedPattern };

/**
 * Every threshold, weight, keyword list and mapping the coordinator decides
 * with. All of it is data: hosts override any part (`createReasoningCoordinator({ policy })`),
 * and the decisions are table-tested against these defaults.
 */
export interface CoordinatorPolicy {
  thresholds: {
    /** Score at or above which a query goes straight to reasoning (a strong signal). Default 0.65. */
    direct: number;
    /**
     * Score at or above which the standard approach goes first and a weak answer (refusal, empty, low
     * confidence, known failure) escalates to reasoning; below it, the standard approach only. Default 0:
     * every query but small talk ("standard first, escalate on refusal" is the spec's default, §1.3.1).
     */
    escalate: number;
    /** A standard answer below this confidence escalates. Default 0.5. */
    standardLowConfidence: number;
    /** A reasoning answer below this confidence is the low-confidence row of the fallback matrix. Default 0.5. */
    lowConfidence: number;
  };
  /** Confidence bands for presentation: at or above `high`, `moderate`, `low`; below `low` is "insufficient". */
  bands: { high: number; moderate: number; low: number };
  /**
   * Explicit requests for reasoning (why / how come, deduce / infer / prove, plan / strategy, compare / versus,
   * decide / choose between, hypothesize / diagnose / root cause, consequences, patterns). Matches add their
   * weights up to `explicitRequestWeight` in all (0.65 by default, the direct threshold: such a query goes to
   * reasoning without a standard attempt).
   */
  explicitRequests: WeightedPattern[];
  explicitRequestWeight: number;
  /** Phrases that ask for deep reasoning; each match adds its weight (at most `strongKeywordCap` in all). */
  strongKeywords: WeightedPattern[];
  strongKeywordCap: number;
  /** Weaker cues; each adds its weight (at most `weakKeywordCap` in all). */
  weakKeywords: WeightedPattern[];
  weakKeywordCap: number;
  /** Question-structure signals: several questions, counterfactuals, dependent sub-questions, requests for depth. */
  structure: {
    multipleQuestions: number;
    counterfactual: WeightedPattern;
    dependentSubQuestions: WeightedPattern;
    deepExplanation: WeightedPattern;
  };
  /** Entity density: distinct named things (capitalised words past the first, numbers, quoted phrases) per word. */
  entities: { minimum: number; density: number; weight: number; many: number; manyWeight: number };
  /** A long query (at least `words` words) adds `weight`. */
  length: { words: number; weight: number };
  /** Host intent classes that favour reasoning; a match adds `intentWeight`. */
  complexIntents: string[];
  intentWeight: number;
  /** Task types that always go to reasoning (score 1) when the gates pass. */
  alwaysReasonTaskTypes: string[];
  /** A follow-up to a turn that used reasoning adds `followUpWeight` (session coherence). */
  followUpWeight: number;
  followUpPattern: RegExp;
  followUpMaxWords: number;
  /** Queries that are only small talk score 0 whatever else matches. */
  smallTalk: RegExp;
  /** Type selection step 1: patterns suggesting each reasoning type (most matches wins; a tie suggests none). */
  keywordTypes: Record<ReasoningType, RegExp[]>;
  /** Type selection step 2: host intent classes and the type each suggests. */
  intentTypes: Record<string, ReasoningType>;
  /** The most flexible type, chosen when nothing specific is suggested or the suggestion is unsupported. */
  defaultType: ReasoningType;
  /** Standard answers that are refusals (escalation criterion). */
  refusalPatterns: RegExp[];
  /** Known failure patterns of the standard approach (escalation criterion). */
  knownFailurePatterns: RegExp[];
  /** Whether strong signals may skip the standard attempt (§1.3.1 "direct to advanced reasoning"). Default true. */
  allowDirect: boolean;
  /** Whether queries between `escalate` and `direct` try the standard approach first (tiered, the default) or go direct. */
  tiered: boolean;
  /** Low-confidence row: also run the standard approach, for comparison. Default false. */
  compareLowConfidenceWithStandard: boolean;
}

const word = (text: string) => new RegExp(`\\b${text}\\b`, "i");

/** The documented defaults (README, "How the coordinator decides"). */
export const defaultPolicy: CoordinatorPolicy = {
  thresholds: { direct: 0.65, escalate: 0, standardLowConfidence: 0.5, lowConfidence: 0.5 },
  bands: { high: 0.8, moderate: 0.5, low: 0.25 },
  explicitRequests: explicitRequestPatterns,
  explicitRequestWeight: 0.65,
  strongKeywords: [
    { name: "hypothesize", pattern: /\bhypothes[ie][sz]/i, weight: 0.3 },
    { name: "deduce", pattern: /\b(?:deduce|deduction|derive)\b/i, weight: 0.3 },
    { name: "plan a solution", pattern: /\bplan (?:a|an|the|out|for)\b/i, weight: 0.3 },
    { name: "underlying pattern", pattern: /\b(?:underlying|common) pattern/i, weight: 0.3 },
    { name: "causal chain", pattern: /\bcausal (?:chain|link|mechanism)|\bchain of (?:events|causes)/i, weight: 0.3 },
    { name: "root cause", pattern: /\broot cause/i, weight: 0.3 },
    { name: "consequences", pattern: /\b(?:consequences|implications) of\b/i, weight: 0.3 },
    { name: "generalize", pattern: /\bgenerali[sz]/i, weight: 0.3 },
    {
      name: "best explanation",
      pattern: /\b(?:best|most likely|most plausible) (?:explanation|cause|reason)/i,
      weight: 0.3,
    },
    { name: "trade-offs", pattern: /\btrade-?offs?\b/i, weight: 0.3 },
    { name: "prove", pattern: /\bprove\b|\blogically follows?\b/i, weight: 0.3 },
    { name: "diagnose", pattern: /\bdiagnos/i, weight: 0.3 },
  ],
  strongKeywordCap: 0.6,
  weakKeywords: [
    { name: "why", pattern: word("why"), weight: 0.1 },
    { name: "explain", pattern: /\bexplain/i, weight: 0.1 },
    { name: "cause", pattern: /\bcaus(?:e|es|ed|ing)\b/i, weight: 0.1 },
    { name: "compare", pattern: /\bcompar(?:e|ing|ison)\b/i, weight: 0.1 },
    { name: "strategy", pattern: /\bstrateg(?:y|ies|ic)\b/i, weight: 0.1 },
    { name: "analyze", pattern: /\banaly[sz](?:e|is|ing)\b/i, weight: 0.1 },
    { name: "should we", pattern: /\bshould (?:i|we)\b/i, weight: 0.1 },
    { name: "pattern", pattern: word("pattern"), weight: 0.1 },
  ],
  weakKeywordCap: 0.2,
  structure: {
    multipleQuestions: 0.15,
    counterfactual: {
      name: "counterfactual",
      pattern:
        /\bwhat (?:if|would happen)\b|\bwould (?:have|it have)\b|\bhad (?:not|never)\b|\bsuppose\b|\bimagine (?:if|that)\b|\bcounterfactual/i,
      weight: 0.2,
    },
    dependentSubQuestions: {
      name: "dependent sub-questions",
      pattern:
        /\b(?:and then|after that|given that|based on (?:that|this|those)|which (?:means|implies)|as a result|in turn)\b/i,
      weight: 0.15,
    },
    deepExplanation: {
      name: "deep explanation",
      pattern: /\b(?:in (?:depth|detail)|thoroughly|walk me through|step[- ]by[- ]step|justify)\b/i,
      weight: 0.1,
    },
  },
  entities: { minimum: 3, density: 0.15, weight: 0.15, many: 6, manyWeight: 0.25 },
  length: { words: 40, weight: 0.05 },
  complexIntents: [
    "deep_problem_solving",
    "strategic_planning",
    "comparative_analysis",
    "causal_explanation",
    "logical_inference",
    "pattern_discovery",
    "problem_solving_unknown_cause",
  ],
  intentWeight: 0.5,
  alwaysReasonTaskTypes: [],
  followUpWeight: 0.3,
  followUpPattern:
    /^(?:and|but|so|also|then|what about|how about|why|what if)\b|\b(?:it|that|this|those|them|these)\b/i,
  followUpMaxWords: 15,
  smallTalk:
    /^\s*(?:(?:hi|hello|hey)(?: there)?|thanks(?: a lot| so much)?|thank you(?: so much| very much)?|thx|ok|okay|bye|goodbye|good (?:morning|afternoon|evening|night)|cheers|yes|no|sure|got it|sounds good|great|cool|nice|how are you(?: doing)?(?: today)?)\b[\s!.?,]*$/i,
  keywordTypes: {
    abductive: [
      /\bwhy (?:did|does|do|is|was|are|were|has|have)\b/i,
      /\bwhat (?:could|might|would) (?:be )?(?:the )?(?:cause|reason|explain)/i,
      /\bhypothes[ie]/i,
      /\b(?:best|most likely|most plausible) (?:explanation|cause|reason)/i,
      /\bexplain why\b/i,
      /\bdiagnos/i,
      /\broot cause/i,
      /\bwhat (?:caused|causes|is causing|went wrong)\b/i,
      /\b(?:work|figure|find) out (?:why|what (?:caused|went wrong))\b/i,
      /\bcausal (?:chain|link|mechanism)\b/i,
    ],
    deductive: [
      /\bdeduc/i,
      /\b(?:conclude|infer)\b/i,
      /\b(?:does|would) (?:it|that|this) (?:follow|imply)\b/i,
      /\brules?\b/i,
      /\bif\b[^?.!]*\bthen\b/i,
      /\bgiven (?:that|the|these|this)\b/i,
      /\bmust (?:be|follow)\b/i,
      /\btherefore\b/i,
      /\bfollows? from\b/i,
      /\bprove\b/i,
      /\bnecessarily\b/i,
    ],
    inductive: [
      /\bpattern/i,
      /\bgenerali[sz]/i,
      /\btrends?\b/i,
      /\bin common\b/i,
      /\bfrom (?:these|the) examples\b/i,
      /\bpredict the next\b/i,
    ],
    planAndExecuteCoT: [
      /\bplan\b/i,
      /\bsteps? (?:to|for)\b/i,
      /\bhow (?:do|can|should|would) (?:i|we)\b/i,
      /\bstrateg/i,
      /\bachieve\b/i,
      /\bsolve\b/i,
      /\broadmap\b/i,
      /\bshould (?:i|we)\b/i,
    ],
  },
  intentTypes: {
    causal_explanation: "abductive",
    problem_solving_unknown_cause: "abductive",
    logical_inference: "deductive",
    pattern_discovery: "inductive",
    strategic_planning: "planAndExecuteCoT",
    deep_problem_solving: "planAndExecuteCoT",
    comparative_analysis: "planAndExecuteCoT",
  },
  defaultType: "planAndExecuteCoT",
  refusalPatterns: [
    /\bI(?: can(?:'|no)?t| cannot| am unable to|'m unable to| am not able to|'m not able to) (?:answer|help|determine|say|tell|do that)/i,
    /\bI (?:don't|do not) (?:know|have enough information)\b/i,
    /\bas an AI\b[^.]*\b(?:cannot|can't|unable)\b/i,
  ],
  knownFailurePatterns: [],
  allowDirect: true,
  tiered: true,
  compareLowConfidenceWithStandard: false,
};

/** Overrides of the policy: any field, thresholds and bands merged key by key. */
export type CoordinatorPolicyOverrides = Partial<Omit<CoordinatorPolicy, "thresholds" | "bands">> & {
  thresholds?: Partial<CoordinatorPolicy["thresholds"]>;
  bands?: Partial<CoordinatorPolicy["bands"]>;
};

/** The default policy with `overrides` applied. */
export function resolvePolicy(overrides: CoordinatorPolicyOverrides = {}): CoordinatorPolicy {
  return {
    ...defaultPolicy,
    ...overrides,
    thresholds: { ...defaultPolicy.thresholds, ...overrides.thresholds },
    bands: { ...defaultPolicy.bands, ...overrides.bands },
  };
}
