import { chainOfCustodySchema, type EvidenceChainOfCustody, type EvidenceSourceType, sourceTypeSchema } from "@deliberate/contracts";
import { z } from "zod";
import { defineMode, type ModeDefinition } from "@deliberate/engine";

/**
 * Bounds of a model-estimated probability: an estimate is never certainty
 * (0 or 1 would make later evidence impossible or irrelevant).
 */
export const estimatedProbabilityBounds = { min: 0.001, max: 0.999 } as const;

function addIssue(context: z.RefinementCtx, path: Array<string | number>, message: string): void {
  context.addIssue({ code: "custom", path, message });
}

/** Requires exactly one entry per wanted index. */
function checkCoverage(indexes: readonly number[], wanted: readonly number[], field: string, context: z.RefinementCtx): void {
  for (const index of wanted) {
    const count = indexes.filter((value) => value === index).length;
    if (count === 0) addIssue(context, [field], `item ${index} is missing; give one entry per listed item`);
    if (count > 1) addIssue(context, [field], `item ${index} is listed ${count} times; give it once`);
  }
  for (const index of indexes) {
    if (!wanted.includes(index)) addIssue(context, [field], `item ${index} was not asked for; give only the listed items`);
  }
}

interface EvidenceItemView {
  content: string;
  source?: string | undefined;
  source_type?: EvidenceSourceType | undefined;
  likelihood_if_true?: number | undefined;
  likelihood_if_false?: number | undefined;
  corroborated_by?: readonly number[] | undefined;
  chain_of_custody?: EvidenceChainOfCustody | number | undefined;
}

export interface LikelihoodNeeds {
  hypothesis: string;
  context: string | undefined;
  history: string;
  prior: number | undefined;
  evidence: readonly EvidenceItemView[];
  /** Indexes of items missing at least one likelihood. */
  items: readonly number[];
}

export interface LikelihoodAnswer {
  prior?: { value: number; rationale: string } | undefined;
  items: Array<{ index: number; likelihood_if_true: number; likelihood_if_false: number; rationale: string }>;
}

const probability = () => z.number().min(estimatedProbabilityBounds.min).max(estimatedProbabilityBounds.max);

/** Estimates the prior (when not given) and the missing likelihoods; the update itself is computed in code. */
export function createLikelihoodMode(needs: LikelihoodNeeds): ModeDefinition<LikelihoodNeeds, LikelihoodAnswer> {
  const output = z
    .object({
      ...(needs.prior === undefined
        ? { prior: z.object({ value: probability().describe("P(H) before any of the evidence: the base rate"), rationale: z.string() }) }
        : {}),
      items: z.array(
        z.object({
          index: z.number().int().describe("The item's index from the list"),
          likelihood_if_true: probability().describe("P(this evidence | hypothesis true)"),
          likelihood_if_false: probability().describe("P(this evidence | hypothesis false)"),
          rationale: z.string(),
        }),
      ),
    })
    .superRefine((answer, context) => {
      checkCoverage(
        answer.items.map((item) => item.index),
        needs.items,
        "items",
        context,
      );
    });
  return defineMode({
    mode: "evidence",
    name: "evidence_likelihoods",
    description: "Estimated prior and likelihoods P(E|H), P(E|not H) for a Bayesian update.",
    system: [
      "You estimate probabilities for a Bayesian update run in code for another AI agent.",
      "For each evidence item asked for, estimate how likely it would be to observe that evidence if the hypothesis were true, and if it were false. The ratio of the two is what moves the belief; equal values mean the evidence is irrelevant.",
      `Never use certainty: keep every estimate between ${estimatedProbabilityBounds.min} and ${estimatedProbabilityBounds.max}. Judge each item on its own (the update assumes the items are conditionally independent given the hypothesis). Do not compute the posterior.`,
    ].join("\n"),
    prompt: (input: LikelihoodNeeds) =>
      [
        input.history,
        `Hypothesis H: ${input.hypothesis}`,
        input.context ? `Context: ${input.context}` : "",
        input.prior === undefined ? "Estimate the prior P(H) (the base rate before this evidence)." : `Prior P(H) = ${input.prior} (given).`,
        "Evidence:",
        ...input.evidence.map((item, index) => {
          const given = [
            item.likelihood_if_true !== undefined ? `P(E|H) = ${item.likelihood_if_true} (given, keep it)` : "",
            item.likelihood_if_false !== undefined ? `P(E|not H) = ${item.likelihood_if_false} (given, keep it)` : "",
          ].filter((text) => text !== "");
          return `[${index}] ${item.content}${item.source ? ` (source: ${item.source})` : ""}${given.length > 0 ? ` — ${given.join(", ")}` : ""}`;
        }),
        `Estimate both likelihoods for items: ${input.items.join(", ")}.`,
      ]
        .filter((line) => line !== "")
        .join("\n"),
    output,
  }) as ModeDefinition<LikelihoodNeeds, LikelihoodAnswer>;
}

export interface AssessmentNeeds {
  claim: string;
  context: string | undefined;
  history: string;
  evidence: readonly EvidenceItemView[];
  /** Indexes of items missing a source type, corroboration or chain of custody. */
  items: readonly number[];
}

export interface AssessmentAnswer {
  items: Array<{
    index: number;
    source_type: EvidenceSourceType;
    corroborated_by: number[];
    chain_of_custody: EvidenceChainOfCustody;
    rationale: string;
  }>;
}

/** Classifies sources, finds corroboration and judges custody where the caller did not; credibility is computed in code. */
export function createAssessmentMode(needs: AssessmentNeeds): ModeDefinition<AssessmentNeeds, AssessmentAnswer> {
  const count = needs.evidence.length;
  const output = z
    .object({
      items: z.array(
        z.object({
          index: z.number().int().describe("The item's index from the list"),
          source_type: sourceTypeSchema.describe("primary = first-hand record; expert = testimony of a relevant expert; secondary = report of primary sources; tertiary = compilation; anecdotal = hearsay or single personal account"),
          corroborated_by: z.array(z.number().int()).describe("Indexes of OTHER items that independently support this one (empty if none)"),
          chain_of_custody: chainOfCustodySchema.describe("How well the provenance from origin to here is documented"),
          rationale: z.string(),
        }),
      ),
    })
    .superRefine((answer, context) => {
      checkCoverage(
        answer.items.map((item) => item.index),
        needs.items,
        "items",
        context,
      );
      answer.items.forEach((item, position) => {
        item.corroborated_by.forEach((other, at) => {
          if (other < 0 || other >= count) addIssue(context, ["items", position, "corroborated_by", at], `must be an item index 0..${count - 1}, got ${other}`);
          else if (other === item.index) addIssue(context, ["items", position, "corroborated_by", at], "an item cannot corroborate itself");
        });
      });
    });
  return defineMode({
    mode: "evidence",
    name: "evidence_assessment",
    description: "Source tier, corroboration and chain of custody of evidence items.",
    system: [
      "You classify evidence for a credibility assessment computed in code for another AI agent.",
      "For each item asked for, give its source tier, which other items independently corroborate it (same source does not count), and the state of its chain of custody (intact, partial, broken, or unknown when nothing is said about provenance).",
      "Judge only what the text supports; prefer 'unknown' to guessing. Do not compute scores.",
    ].join("\n"),
    prompt: (input: AssessmentNeeds) =>
      [
        input.history,
        `Claim: ${input.claim}`,
        input.context ? `Context: ${input.context}` : "",
        "Evidence:",
        ...input.evidence.map((item, index) => {
          const given = [
            item.source_type !== undefined ? `source type ${item.source_type}` : "",
            item.corroborated_by !== undefined ? `corroborated by [${item.corroborated_by.join(", ")}]` : "",
            item.chain_of_custody !== undefined ? `custody ${item.chain_of_custody}` : "",
          ].filter((text) => text !== "");
          return `[${index}] ${item.content}${item.source ? ` (source: ${item.source})` : ""}${given.length > 0 ? ` — given: ${given.join(", ")}` : ""}`;
        }),
        `Give source_type, corroborated_by and chain_of_custody for items: ${input.items.join(", ")} (values given above are kept as given).`,
      ]
        .filter((line) => line !== "")
        .join("\n"),
    output,
  }) as ModeDefinition<AssessmentNeeds, AssessmentAnswer>;
}
