import { Ajv2020 } from "ajv/dist/2020.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { builtinPresets, codeReviewPreset, debatePreset } from "../presets/builtin-presets.ts";
import { documentAnswerSchema, createMergerMode, createProducerMode } from "./document.mode.ts";
import type { TurnPromptInput } from "./prompt-sections.ts";
import { createReviewerMode, reviewAnswerSchema } from "./review.mode.ts";
import { createSummaryMode, summaryCharacterLimit } from "./summary.mode.ts";

const ajv = new Ajv2020({ strict: false });
const jsonSchemaOf = (schema: z.ZodType) =>
  z.toJSONSchema(schema, { unrepresentable: "any" }) as Record<string, unknown>;

/** Answers near the valid ones: every field possibly blank, too long, out of range, missing, extra or misnamed. */
function reviewCandidates(criteria: readonly string[]) {
  const textish = fc.oneof(
    fc.constant(""),
    fc.constant("   "),
    fc.string({ maxLength: 20 }),
    fc.string({ minLength: 395, maxLength: 410 }),
  );
  const score = fc.oneof(fc.double({ min: -0.5, max: 1.5, noNaN: true }), fc.constant("0.5"), fc.constant(null));
  const names = fc.constantFrom(...criteria, "made_up");
  return fc.record(
    {
      scores: fc.dictionary(names, fc.record({ score, rationale: textish }, { requiredKeys: ["score"] }), {
        minKeys: 0,
        maxKeys: criteria.length + 1,
      }),
      directives: fc.array(fc.record({ criterion: names, directive: textish }), { minLength: 0, maxLength: 4 }),
      note: fc.string(),
    },
    { requiredKeys: ["scores", "directives"] },
  );
}

describe("dialog modes", () => {
  it("the review schema a model gets is at least as strict as its validator, for every preset's rubric", () => {
    for (const preset of builtinPresets) {
      const names = preset.criteria.map((criterion) => criterion.name);
      const schema = reviewAnswerSchema(preset.criteria);
      const validate = ajv.compile(jsonSchemaOf(schema));
      fc.assert(
        fc.property(reviewCandidates(names), (candidate) => {
          // Anything a schema-constrained model can produce, the validator accepts.
          if (validate(candidate)) expect(schema.safeParse(candidate).success).toBe(true);
        }),
        { numRuns: 300 },
      );
    }
  });

  it("the review schema lists every criterion as required, 2-3 directives, criteria as an enum, scores in 0..1", () => {
    const json = jsonSchemaOf(reviewAnswerSchema(debatePreset.criteria)) as {
      properties: {
        scores: {
          required: string[];
          additionalProperties: boolean;
          properties: Record<string, { properties: { score: Record<string, number> } }>;
        };
        directives: Record<string, unknown>;
      };
    };
    expect(json.properties.scores.required).toEqual(debatePreset.criteria.map((criterion) => criterion.name));
    expect(json.properties.scores.additionalProperties).toBe(false);
    expect(json.properties.scores.properties["evidence"]?.properties.score).toMatchObject({ minimum: 0, maximum: 1 });
    expect(json.properties.directives).toMatchObject({
      minItems: 2,
      maxItems: 3,
      items: { properties: { criterion: { enum: debatePreset.criteria.map((criterion) => criterion.name) } } },
    });
  });

  it("the document and summary schemas a model gets are at least as strict as their validators", () => {
    const textish = fc.oneof(fc.constant(""), fc.constant(" \n "), fc.string({ maxLength: 30 }));
    const summary = createSummaryMode(400).output;
    const validateDocument = ajv.compile(jsonSchemaOf(documentAnswerSchema));
    const validateSummary = ajv.compile(jsonSchemaOf(summary));
    fc.assert(
      fc.property(
        fc.record(
          {
            document: textish,
            self_assessment: fc.record({ score: fc.double({ min: -1, max: 2, noNaN: true }), rationale: textish }),
          },
          { requiredKeys: [] },
        ),
        fc.record({ summary: fc.oneof(textish, fc.string({ minLength: 395, maxLength: 405 })) }, { requiredKeys: [] }),
        (document, candidateSummary) => {
          if (validateDocument(document)) expect(documentAnswerSchema.safeParse(document).success).toBe(true);
          if (validateSummary(candidateSummary)) expect(summary.safeParse(candidateSummary).success).toBe(true);
        },
      ),
    );
    expect(
      documentAnswerSchema.safeParse({ document: "  ", self_assessment: { score: 0.5, rationale: "r" } }).error
        ?.issues[0]?.message,
    ).toBe("must not be blank");
  });

  it("prompts carry the persona, the rubric and the turn's material, and nothing that changes between replays", () => {
    const agent = debatePreset.agents[0] as (typeof debatePreset.agents)[number];
    const input: TurnPromptInput = {
      topic: "Adopt microservices?",
      context: "Team of 6",
      iteration: 2,
      earlier: { summary: { throughIteration: 0, content: "Iteration 0 argued for a monolith." }, turns: [] },
      documents: [{ author: "dialog", iteration: 1, content: "# Position\nMonolith first." }],
      directives: [{ agent: "critic", criterion: "evidence", directive: "Cite deployment data." }],
    };
    const producer = createProducerMode(agent, debatePreset);
    expect(producer.system.startsWith(agent.systemPrompt)).toBe(true);
    expect(producer.system).toContain("- objection_handling (35%)");
    const prompt = producer.prompt(input);
    for (const part of [
      "# Topic\nAdopt microservices?",
      "# Context\nTeam of 6",
      "## Summary of iterations 0-0",
      "Monolith first.",
      "1. [evidence] Cite deployment data. (from critic)",
      "# Your task (iteration 2)",
      "incorporating ALL the directives",
    ]) {
      expect(prompt).toContain(part);
    }
    expect(producer.prompt(input)).toBe(prompt);
    expect(prompt).not.toMatch(/\d{4}-\d{2}-\d{2}T|ses_|dx_/);
    const review = createReviewerMode(agent, debatePreset).prompt(input);
    expect(review).toContain("# Document to review (iteration 1, by dialog)");
    expect(review).not.toContain("Cite deployment data.");
    const merge = createMergerMode(agent, codeReviewPreset).prompt({
      ...input,
      documents: [...input.documents, { author: "critic", iteration: 2, content: "other" }],
    });
    expect(merge).toContain("Merge the 2 documents above into one complete document.");
  });

  it("sizes summaries to the context budget", () => {
    expect(summaryCharacterLimit(500)).toBe(400);
    expect(summaryCharacterLimit(3_000)).toBe(2_000);
    expect(summaryCharacterLimit(1_000_000)).toBe(6_000);
  });
});
