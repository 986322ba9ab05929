import type { AgentConfig, DialogGradedBy } from "@deliberate/contracts";
import { gradedByClient } from "../grading.ts";
import { z } from "zod";
import type { DialogPreset, RubricCriterion } from "../presets/dialog-preset.ts";
import { type DialogModeDefinition, text } from "./dialog-mode.ts";
import {
  renderDocuments,
  renderSessionSections,
  rubricLines,
  sessionRole,
  type TurnPromptInput,
} from "./prompt-sections.ts";
import type { ModeDeclaration } from "@deliberate/engine";

/** The `dialog_reviewer` mode and its default model settings, declared on its definitions (the engine layers configuration and runtime overrides on top). */
export const reviewerModeDeclaration = {
  mode: "dialog_reviewer",
  settings: { temperature: 0.3, maxTokens: 1500 },
} as const satisfies ModeDeclaration;

export const maxDirectiveCharacters = 400;

/**
 * The review answer for a rubric: one score per listed criterion (an object keyed by
 * criterion, so none can be skipped or invented) and 2 or 3 directives, each tied to a
 * listed criterion. The JSON schema a model gets carries every one of these constraints.
 */
export function reviewAnswerSchema(criteria: readonly RubricCriterion[]) {
  let schema = reviewSchemas.get(criteria);
  if (schema === undefined) {
    schema = buildReviewAnswerSchema(criteria);
    reviewSchemas.set(criteria, schema);
  }
  return schema;
}

// A rubric's review schema is built once (zod schemas are costly to build and rubrics are fixed data).
const reviewSchemas = new WeakMap<readonly RubricCriterion[], ReturnType<typeof buildReviewAnswerSchema>>();

function buildReviewAnswerSchema(criteria: readonly RubricCriterion[]) {
  const names = criteria.map((criterion) => criterion.name) as [string, ...string[]];
  const criterionScore = z.object({
    score: z.number().min(0).max(1).describe("0..1 as the document stands now"),
    rationale: text(300).describe("One sentence: why this score"),
  });
  return z.object({
    scores: z.object(
      Object.fromEntries(criteria.map((criterion) => [criterion.name, criterionScore.describe(criterion.description)])),
    ),
    directives: z
      .array(
        z.object({
          criterion: z.enum(names).describe("The criterion this directive improves"),
          directive: text(maxDirectiveCharacters).describe(
            "A specific, actionable instruction: what to add, clarify or expand (not a question)",
          ),
        }),
      )
      .min(2)
      .max(3)
      .describe("Exactly 2 or 3 directives, the most valuable first"),
  });
}
export interface ReviewAnswer {
  scores: Record<string, { score: number; rationale: string }>;
  directives: Array<{ criterion: string; directive: string }>;
}

/**
 * How to score. A separate server-side reviewer is told its scores decide when the session
 * stops. A client that answers every agent's prompt (host-executed, sampling) also wrote the
 * document, so it is asked to judge as an independent reviewer would and told what is true:
 * the result marks its scores as graded by the client, not by an independent reviewer.
 */
function scoreAnchors(gradedBy: DialogGradedBy): string {
  const stakes = gradedByClient(gradedBy)
    ? `Judge as an independent reviewer would, not as the document's author. This session's turns are all answered by the calling client, so its result reports these scores as graded by the client (graded_by: ${gradedBy}), not by an independent reviewer.`
    : "Your scores decide when the session stops.";
  return [
    "Score each criterion from 0 to 1 as the document stands now, not for its potential:",
    "0.0-0.2 missing or wrong; 0.3-0.5 present with major gaps; 0.6-0.7 solid with clear gaps; 0.8-0.9 strong, only minor gaps; 1.0 nothing material to add.",
    `Do not reward length. ${stakes}`,
  ].join("\n");
}

/** The reviewer's turn: rubric scores of the document and 2-3 directives for the next version; `gradedBy` says who answers it. */
export function createReviewerMode(
  agent: AgentConfig,
  preset: DialogPreset,
  gradedBy: DialogGradedBy = "server_model",
): DialogModeDefinition<TurnPromptInput, ReviewAnswer> {
  return {
    ...reviewerModeDeclaration,
    name: "dialog_review",
    description: "Rubric scores of the document under review and 2-3 directives for its next version.",
    system: [
      agent.systemPrompt,
      "---",
      sessionRole(agent),
      `In this turn you review the document. ${scoreAnchors(gradedBy)}`,
      `Rubric:\n${rubricLines(preset.criteria)}`,
      `Then give exactly 2 or 3 directives: specific, actionable instructions for the next version (what to add, clarify or expand), never questions, each at most ${maxDirectiveCharacters} characters and tied to the criterion it improves. Address the weakest criteria first.`,
    ].join("\n\n"),
    prompt: (input) =>
      [
        renderSessionSections(input),
        renderDocuments(input.documents, "Document to review"),
        `# Your task (iteration ${input.iteration})\nReview the document above: score every criterion, then give 2 or 3 directives.\n${preset.instructions.review}`,
      ].join("\n\n"),
    output: reviewAnswerSchema(preset.criteria) as unknown as z.ZodType<ReviewAnswer>,
  };
}
