import type { CoordinatorPolicy, WeightedPattern } from "./policy.ts";

/** One reason the score moved: which signal, what it saw, how much it added. */
export interface ScoreReason {
  signal:
    | "explicit_request"
    | "keyword"
    | "weak_keyword"
    | "multiple_questions"
    | "counterfactual"
    | "dependent_sub_questions"
    | "deep_explanation"
    | "entity_density"
    | "length"
    | "intent"
    | "task_type"
    | "follow_up"
    | "small_talk";
  detail: string;
  weight: number;
}

/** What the heuristics make of a query: a score in [0, 1] and every reason for it. */
export interface QueryAnalysis {
  score: number;
  reasons: ScoreReason[];
  /** Words in the query. */
  words: number;
  /** The distinct entity-like tokens counted for density. */
  entities: string[];
  /** Whether a host task type forced reasoning. */
  forced: boolean;
  /** Whether the query is only small talk (or empty): handled by the standard approach, never escalated. */
  smallTalk: boolean;
}

/** What the host knows about the query besides its text. */
export interface QueryContext {
  /** The host's intent class, if it classifies intents (e.g. `causal_explanation`). */
  intent?: string | undefined;
  /** The host's task type when the agent runs a multi-step task. */
  taskType?: string | undefined;
  /** Whether the previous turn of this conversation used reasoning (session coherence). */
  previousTurnUsedReasoning?: boolean | undefined;
}

const round = (value: number) => Math.round(value * 1000) / 1000;

/**
 * Entity-like tokens: capitalised words that do not start a sentence,
 * numbers, and quoted phrases; distinct, case-insensitive. Deterministic
 * and cheap (no model): a proxy for "many things to relate".
 */
export function entityTokens(query: string): string[] {
  const found = new Map<string, string>();
  const add = (token: string) => {
    const key = token.toLowerCase();
    if (!found.has(key)) found.set(key, token);
  };
  // Quotes open after a space (or the start) and close before a space or punctuation, so "Bob's" is no quote.
  const quoted = /(?<=^|[\s(])(?:"([^"]{2,60})"|'([^']{2,60})')(?=$|[\s.,;:!?)])/g;
  for (const match of query.matchAll(quoted)) add((match[1] ?? match[2]) as string);
  const withoutQuotes = query.replace(quoted, " ");
  for (const sentence of withoutQuotes.split(/[.!?\n]+/)) {
    const tokens = sentence
      .trim()
      .split(/\s+/)
      .filter((token) => token !== "");
    tokens.forEach((raw, index) => {
      const token = raw.replace(/['\u2019]s\b/giu, "").replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, "");
      if (token === "") return;
      if (/^\p{N}[\p{N}.,%]*$/u.test(token)) add(token);
      else if (index > 0 && /^\p{Lu}/u.test(token) && !/^I$/.test(token)) add(token);
    });
  }
  return [...found.values()];
}

function sumCapped(
  patterns: readonly WeightedPattern[],
  query: string,
  cap: number,
  signal: ScoreReason["signal"],
): ScoreReason[] {
  const reasons: ScoreReason[] = [];
  let total = 0;
  for (const candidate of patterns) {
    if (!candidate.pattern.test(query)) continue;
    const weight = Math.min(candidate.weight, cap - total);
    if (weight <= 0) break;
    total += weight;
    reasons.push({ signal, detail: `matched "${candidate.name}"`, weight: round(weight) });
  }
  return reasons;
}

/**
 * Scores how much a query needs advanced reasoning (§1.3.1 heuristics), in
 * code, deterministically: explicit requests for reasoning (why, deduce, plan,
 * compare, decide, ...: enough alone for the direct threshold), keywords (strong and weak, each capped),
 * question structure (several questions, counterfactuals, dependent
 * sub-questions, requests for depth), entity density, length, the host's
 * intent class, a follow-up to a reasoning turn. A task type the host always
 * routes to reasoning forces 1; small talk forces 0. The score is the sum,
 * clamped to [0, 1]; every addition is a reason.
 */
export function analyzeQuery(query: string, context: QueryContext, policy: CoordinatorPolicy): QueryAnalysis {
  const text = query.trim();
  const words = text === "" ? 0 : text.split(/\s+/).length;
  const entities = entityTokens(text);
  if (context.taskType !== undefined && policy.alwaysReasonTaskTypes.includes(context.taskType)) {
    return {
      score: 1,
      reasons: [{ signal: "task_type", detail: `task type "${context.taskType}" always uses reasoning`, weight: 1 }],
      words,
      entities,
      forced: true,
      smallTalk: false,
    };
  }
  if (text === "" || policy.smallTalk.test(text)) {
    return {
      score: 0,
      reasons: [{ signal: "small_talk", detail: text === "" ? "empty query" : "small talk only", weight: 0 }],
      words,
      entities,
      forced: false,
      smallTalk: true,
    };
  }
  const reasons: ScoreReason[] = [
    ...sumCapped(policy.explicitRequests, text, policy.explicitRequestWeight, "explicit_request"),
    ...sumCapped(policy.strongKeywords, text, policy.strongKeywordCap, "keyword"),
    ...sumCapped(policy.weakKeywords, text, policy.weakKeywordCap, "weak_keyword"),
  ];
  const questions = (text.match(/\?/g) ?? []).length;
  if (questions >= 2)
    reasons.push({
      signal: "multiple_questions",
      detail: `${questions} questions`,
      weight: policy.structure.multipleQuestions,
    });
  for (const [signal, candidate] of [
    ["counterfactual", policy.structure.counterfactual],
    ["dependent_sub_questions", policy.structure.dependentSubQuestions],
    ["deep_explanation", policy.structure.deepExplanation],
  ] as const) {
    if (candidate.pattern.test(text))
      reasons.push({ signal, detail: `matched "${candidate.name}"`, weight: candidate.weight });
  }
  const density = words === 0 ? 0 : entities.length / words;
  if (entities.length >= policy.entities.many && density >= policy.entities.density) {
    reasons.push({
      signal: "entity_density",
      detail: `${entities.length} entities in ${words} words`,
      weight: policy.entities.manyWeight,
    });
  } else if (entities.length >= policy.entities.minimum && density >= policy.entities.density) {
    reasons.push({
      signal: "entity_density",
      detail: `${entities.length} entities in ${words} words`,
      weight: policy.entities.weight,
    });
  }
  if (words >= policy.length.words)
    reasons.push({ signal: "length", detail: `${words} words`, weight: policy.length.weight });
  if (context.intent !== undefined && policy.complexIntents.includes(context.intent)) {
    reasons.push({
      signal: "intent",
      detail: `intent "${context.intent}" favours reasoning`,
      weight: policy.intentWeight,
    });
  }
  if (context.previousTurnUsedReasoning && words <= policy.followUpMaxWords && policy.followUpPattern.test(text)) {
    reasons.push({
      signal: "follow_up",
      detail: "a follow-up to a turn that used reasoning",
      weight: policy.followUpWeight,
    });
  }
  const score = round(
    Math.min(
      1,
      reasons.reduce((sum, reason) => sum + reason.weight, 0),
    ),
  );
  return { score, reasons, words, entities, forced: false, smallTalk: false };
}
