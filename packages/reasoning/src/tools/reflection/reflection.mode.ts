import { z } from "zod";
import { defineMode, type ModeDeclaration } from "@deliberate/engine";
import { lazySchema } from "@deliberate/contracts";

/** The `reflection` mode and its default model settings, declared on every `reflection` definition (the engine layers configuration and runtime overrides on top). */
export const reflectionModeDeclaration: ModeDeclaration = {
  mode: "reflection",
  settings: { temperature: 0.6, maxTokens: 2500, thinkingBudget: 8192, stream: true },
};

/**
 * The rubric every draft is critiqued against: each criterion is scored 0..1
 * by the critique call; the draft's quality is their weighted mean, computed
 * in code (`rubricQuality`), never asked of the model.
 */
export const reflectionRubric = [
  {
    name: "logic",
    weight: 0.35,
    question: "Does each step follow from the previous ones, with no gaps, contradictions or fallacies?",
  },
  {
    name: "evidence",
    weight: 0.25,
    question: "Are claims supported by evidence, data or explicit reasoning, with uncertainty stated?",
  },
  {
    name: "completeness",
    weight: 0.2,
    question: "Does it address the whole question, including alternatives, risks and edge cases?",
  },
  {
    name: "clarity",
    weight: 0.2,
    question: "Is it precise, well ordered and free of padding, so a reader can act on it?",
  },
] as const;

export type RubricCriterion = (typeof reflectionRubric)[number]["name"];

/** The weighted mean of the rubric scores (weights sum to 1). */
export function rubricQuality(scores: Readonly<Record<RubricCriterion, number>>): number {
  const total = reflectionRubric.reduce((sum, criterion) => sum + criterion.weight * scores[criterion.name], 0);
  return Number(total.toFixed(6));
}

const criterionScore = (question: string) =>
  z.number().min(0).max(1).describe(`${question} 0..1 (0.5 ordinary, 0.8 sound with minor gaps)`);

export const critiqueAnswerSchema = lazySchema(() =>
  z.object({
    scores: z.object(
      Object.fromEntries(
        reflectionRubric.map((criterion) => [criterion.name, criterionScore(criterion.question)]),
      ) as Record<RubricCriterion, z.ZodNumber>,
    ),
    strengths: z.array(z.string().min(1)).describe("What the draft does well, concretely"),
    weaknesses: z.array(z.string().min(1)).describe("What is wrong or missing, concretely, worst first"),
    recommendations: z.array(z.string().min(1)).describe("How to fix each weakness"),
  }),
);
export type CritiqueAnswer = z.infer<typeof critiqueAnswerSchema>;

/** Critique of one draft against the rubric; it does not rewrite the draft. */
export const critiqueMode = defineMode({
  ...reflectionModeDeclaration,
  name: "reflection_critique",
  description: "Rubric scores, strengths, weaknesses and recommendations for one draft of reasoning.",
  system: [
    "You critique reasoning written by another AI agent, as a demanding but fair reviewer. You do not rewrite it.",
    "Score the draft on each criterion of the rubric from 0 to 1:",
    ...reflectionRubric.map((criterion) => `- ${criterion.name}: ${criterion.question}`),
    "Then name its concrete strengths and weaknesses (worst first) and a recommendation that fixes each weakness.",
    "Judge the draft as it stands, not how it came about. Do not inflate scores: 0.8 means sound with minor gaps; the overall quality is computed from your scores.",
  ].join("\n"),
  prompt: (input: { draft: string }) => `Draft to critique:\n${input.draft}`,
  output: critiqueAnswerSchema,
});

export const revisionAnswerSchema = lazySchema(() =>
  z.object({
    refined_content: z
      .string()
      .min(1)
      .describe("The whole draft rewritten so that every weakness named in the critique is fixed"),
    changes: z.array(z.string().min(1)).describe("What was changed, one entry per weakness addressed"),
  }),
);

/** Renders a critique for the revision prompt. */
export function formatCritique(critique: CritiqueAnswer): string {
  const list = (items: readonly string[]) =>
    items.length === 0 ? "- (none)" : items.map((item) => `- ${item}`).join("\n");
  return [
    `Rubric scores: ${reflectionRubric.map((criterion) => `${criterion.name} ${critique.scores[criterion.name]}`).join(", ")} (quality ${rubricQuality(critique.scores)}).`,
    `Strengths:\n${list(critique.strengths)}`,
    `Weaknesses:\n${list(critique.weaknesses)}`,
    `Recommendations:\n${list(critique.recommendations)}`,
  ].join("\n");
}

/** A revision of a draft that sees its critique. */
export const revisionMode = defineMode({
  ...reflectionModeDeclaration,
  name: "reflection_revision",
  description: "A draft of reasoning rewritten to fix the weaknesses its critique names.",
  system: [
    "You revise reasoning written by another AI agent, using a reviewer's critique of it.",
    "Rewrite the whole draft so that every weakness is fixed and every recommendation is applied, keeping what the critique names as strengths. Do not add padding or meta-commentary: the result replaces the draft.",
  ].join("\n"),
  prompt: (input: { draft: string; critique: CritiqueAnswer }) =>
    `Draft:\n${input.draft}\n\nCritique of this draft:\n${formatCritique(input.critique)}`,
  output: revisionAnswerSchema,
});

export const evaluationAnswerSchema = lazySchema(() =>
  z.object({
    quality_score: z.number().min(0).max(1).describe("Overall quality of the session's reasoning, 0..1"),
    coherence_score: z.number().min(0).max(1).describe("How well the steps hang together, 0..1"),
    strengths: z.array(z.string()),
    weaknesses: z.array(z.string()),
    recommendations: z.array(z.string()),
  }),
);

export const evaluationMode = defineMode({
  ...reflectionModeDeclaration,
  name: "reflection_session_evaluation",
  description: "An assessment of a whole session's reasoning quality and coherence.",
  system: [
    "You assess a whole session of reasoning by another AI agent.",
    "Judge overall quality and coherence (do the steps follow from each other, is the thread kept, are conclusions supported) from 0 to 1, and give specific strengths, weaknesses and recommendations that refer to numbered steps.",
  ].join("\n"),
  prompt: (input: { transcript: string; thoughtCount: number }) =>
    `The session has ${input.thoughtCount} steps:\n${input.transcript}`,
  output: evaluationAnswerSchema,
});
