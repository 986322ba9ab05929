import {
  chainOfCustodySchema,
  type EvidenceChainOfCustody,
  type EvidenceSourceType,
  sourceTypeSchema,
} from "@deliberate/contracts";
import { z } from "zod";
import { defineMode, type ModeDefinition, type ModeDeclaration } from "@deliberate/engine";

/** The `evidence` mode and its default model settings, declared on every `evidence` definition (the engine layers configuration and runtime overrides on top). */
export const evidenceModeDeclaration: ModeDeclaration = {
  mode: "evidence",
  settings: { temperature: 0.6, maxTokens: 3000, thinkingBudget: 8192, stream: true },
};

/**
 * Bounds of a model-estimated probability: an estimate is never certainty
 * (0 or 1 would make later evidence impossible or irrelevant).
 */
export const estimatedProbabilityBounds = { min: 0.001, max: 0.999 } as const;

/** One entry per wanted item, keyed by its index: an object with exactly these keys (all required). */
function perItem<T extends z.ZodType>(wanted: readonly number[], value: (index: number) => T) {
  return z.object(Object.fromEntries(wanted.map((index) => [String(index), value(index)])) as Record<string, T>);
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

/**
 * Estimates the prior (when not given) and the missing likelihoods; the
 * update itself is computed in code. `items` is keyed by the index of each
 * item asked for, so the schema itself requires one entry per item.
 */
export function createLikelihoodMode(needs: LikelihoodNeeds): ModeDefinition<LikelihoodNeeds, LikelihoodAnswer> {
  const output = z
    .object({
      ...(needs.prior === undefined
        ? {
            prior: z.object({
              value: probability().describe("P(H) before any of the evidence: the base rate"),
              rationale: z.string(),
            }),
          }
        : {}),
      items: perItem(needs.items, () =>
        z.object({
          likelihood_if_true: probability().describe("P(this evidence | hypothesis true)"),
          likelihood_if_false: probability().describe("P(this evidence | hypothesis false)"),
          rationale: z.string(),
        }),
      ).describe("One entry per item asked for, keyed by the item's index"),
    })
    .transform((answer): LikelihoodAnswer => {
      const items = answer.items as Record<
        string,
        { likelihood_if_true: number; likelihood_if_false: number; rationale: string }
      >;
      return {
        ...(answer.prior !== undefined ? { prior: answer.prior as { value: number; rationale: string } } : {}),
        items: needs.items.map((index) => ({
          index,
          ...(items[String(index)] as { likelihood_if_true: number; likelihood_if_false: number; rationale: string }),
        })),
      };
    });
  return defineMode({
    ...evidenceModeDeclaration,
    name: "evidence_likelihoods",
    description: "Estimated prior and likelihoods P(E|H), P(E|not H) for a Bayesian update.",
    system: [
      "You estimate probabilities for a Bayesian update run in code for another AI agent.",
      "For each evidence item asked for, estimate how likely it would be to observe that evidence if the hypothesis were true, and if it were false. The ratio of the two is what moves the belief; equal values mean the evidence is irrelevant.",
      `Never use certainty: keep every estimate between ${estimatedProbabilityBounds.min} and ${estimatedProbabilityBounds.max}. Judge each item on its own (the update assumes the items are conditionally independent given the hypothesis). Do not compute the posterior.`,
    ].join("\n"),
    prompt: (input: LikelihoodNeeds) =>
      [
        `Hypothesis H: ${input.hypothesis}`,
        input.context ? `Context: ${input.context}` : "",
        input.prior === undefined
          ? "Estimate the prior P(H) (the base rate before this evidence)."
          : `Prior P(H) = ${input.prior} (given).`,
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

/** The indexes another item may name as corroboration: every item but `index`. */
function otherIndexes(count: number, index: number): z.ZodType<number[]> {
  const others = Array.from({ length: count }, (_, other) => other).filter((other) => other !== index);
  if (others.length === 0) return z.array(z.number().int()).max(0).describe("Empty: there is no other item");
  return z
    .array(z.literal(others as [number, ...number[]]))
    .describe("Indexes of OTHER items that independently support this one (empty if none)");
}

/**
 * Classifies sources, finds corroboration and judges custody where the caller
 * did not; credibility is computed in code. `items` is keyed by the index of
 * each item asked for, and each item's `corroborated_by` may name only the
 * other items' indexes, so the schema itself is the whole check.
 */
export function createAssessmentMode(needs: AssessmentNeeds): ModeDefinition<AssessmentNeeds, AssessmentAnswer> {
  const count = needs.evidence.length;
  const output = z
    .object({
      items: perItem(needs.items, (index) =>
        z.object({
          source_type: sourceTypeSchema.describe(
            "primary = first-hand record; expert = testimony of a relevant expert; secondary = report of primary sources; tertiary = compilation; anecdotal = hearsay or single personal account",
          ),
          corroborated_by: otherIndexes(count, index),
          chain_of_custody: chainOfCustodySchema.describe("How well the provenance from origin to here is documented"),
          rationale: z.string(),
        }),
      ).describe("One entry per item asked for, keyed by the item's index"),
    })
    .transform((answer): AssessmentAnswer => {
      const items = answer.items as Record<string, Omit<AssessmentAnswer["items"][number], "index">>;
      return {
        items: needs.items.map((index) => ({
          index,
          ...(items[String(index)] as Omit<AssessmentAnswer["items"][number], "index">),
        })),
      };
    });
  return defineMode({
    ...evidenceModeDeclaration,
    name: "evidence_assessment",
    description: "Source tier, corroboration and chain of custody of evidence items.",
    system: [
      "You classify evidence for a credibility assessment computed in code for another AI agent.",
      "For each item asked for, give its source tier, which other items independently corroborate it (same source does not count), and the state of its chain of custody (intact, partial, broken, or unknown when nothing is said about provenance).",
      "Judge only what the text supports; prefer 'unknown' to guessing. Do not compute scores.",
    ].join("\n"),
    prompt: (input: AssessmentNeeds) =>
      [
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
