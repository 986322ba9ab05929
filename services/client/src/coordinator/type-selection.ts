import { type ReasoningType, reasoningTypeSchema } from "@deliberate/contracts";
import type { CoordinatorPolicy } from "./policy.ts";

/** Which rule of §1.3.2 chose the type. */
export type SelectionRule = "keyword" | "intent" | "complexity" | "default" | "first_supported" | "none";

export interface TypeSelection {
  /** The type to request, or null: do not call the reasoning server. */
  type: ReasoningType | null;
  rule: SelectionRule;
  /** What each step found, in order. */
  reasons: string[];
  /** The type steps 1-2 suggested before the capability check (null when none). */
  suggested: ReasoningType | null;
}

export interface TypeSelectionInput {
  query: string;
  /** The host's intent class, if any. */
  intent?: string | undefined;
  /** The heuristic score (a high score with no clear type favours the default type). */
  score: number;
  /** The server's `supportedReasoningTypes`, in its order. */
  supported: readonly string[];
}

/** Matches per reasoning type, for step 1. */
export function keywordMatches(query: string, policy: CoordinatorPolicy): Record<ReasoningType, number> {
  const counts = {} as Record<ReasoningType, number>;
  for (const type of reasoningTypeSchema.options)
    counts[type] = (policy.keywordTypes[type] ?? []).filter((pattern) => pattern.test(query)).length;
  return counts;
}

/**
 * Chooses the `reasoningType` to request (§1.3.2), in this order:
 * 1. keyword mapping: the type with the most pattern matches (a tie suggests none);
 * 2. intent refinement: the host's intent class suggests a type when keywords
 *    did not, and overrides a keyword suggestion resting on a single match;
 *    a score at or above the direct threshold with no suggestion favours the default type;
 * 3. capability check: the suggestion is used if the server supports it;
 * 4. else the default type (`planAndExecuteCoT`) if supported;
 * 5. else the first type the server supports;
 * 6. else none: the reasoning server is not called.
 */
export function selectReasoningType(input: TypeSelectionInput, policy: CoordinatorPolicy): TypeSelection {
  const reasons: string[] = [];
  const supported = input.supported.filter(
    (type): type is ReasoningType => reasoningTypeSchema.safeParse(type).success,
  );
  const counts = keywordMatches(input.query, policy);
  const best = Math.max(...Object.values(counts));
  const leaders = (Object.keys(counts) as ReasoningType[]).filter((type) => counts[type] === best && best > 0);
  let suggested: ReasoningType | null = null;
  let rule: SelectionRule = "none";
  if (leaders.length === 1) {
    suggested = leaders[0] as ReasoningType;
    rule = "keyword";
    reasons.push(`keywords suggest ${suggested} (${best} match${best === 1 ? "" : "es"})`);
  } else if (leaders.length > 1) {
    reasons.push(`keywords are ambiguous between ${leaders.join(" and ")}`);
  } else {
    reasons.push("no keyword suggests a type");
  }

  const intentType = input.intent !== undefined ? policy.intentTypes[input.intent] : undefined;
  if (intentType !== undefined) {
    if (suggested === null) {
      suggested = intentType;
      rule = "intent";
      reasons.push(`intent "${input.intent}" suggests ${intentType}`);
    } else if (suggested === intentType) {
      reasons.push(`intent "${input.intent}" confirms ${intentType}`);
    } else if (best === 1) {
      reasons.push(`intent "${input.intent}" refines ${suggested} (one keyword) to ${intentType}`);
      suggested = intentType;
      rule = "intent";
    } else {
      reasons.push(`intent "${input.intent}" suggests ${intentType}, but ${best} keywords suggest ${suggested}`);
    }
  }
  if (suggested === null && input.score >= policy.thresholds.direct) {
    suggested = policy.defaultType;
    rule = "complexity";
    reasons.push(`high complexity (${input.score}) with no single type favours ${policy.defaultType}`);
  }

  if (suggested !== null && supported.includes(suggested)) {
    reasons.push(`the server supports ${suggested}`);
    return { type: suggested, rule, reasons, suggested };
  }
  if (suggested !== null) reasons.push(`the server does not support ${suggested}`);
  if (supported.includes(policy.defaultType)) {
    reasons.push(`defaulting to ${policy.defaultType}`);
    return { type: policy.defaultType, rule: "default", reasons, suggested };
  }
  const first = supported[0];
  if (first !== undefined) {
    reasons.push(`${policy.defaultType} is not supported; using the first supported type, ${first}`);
    return { type: first, rule: "first_supported", reasons, suggested };
  }
  reasons.push("the server supports no reasoning type this client knows");
  return { type: null, rule: "none", reasons, suggested };
}
