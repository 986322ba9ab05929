import { describe, expect, it } from "vitest";
import { z } from "zod";
import { counterfactualInputSchema } from "./counterfactual.ts";
import { decisionInputSchema } from "./decision.ts";
import { detectInputSchema } from "./detect.ts";
import { evidenceInputSchema } from "./evidence.ts";
import { reasoningTools } from "./index.ts";

const analysisToolDefinitions = [
  reasoningTools.reasoning_detect,
  reasoningTools.reasoning_decision,
  reasoningTools.reasoning_evidence,
  reasoningTools.reasoning_counterfactual,
];

describe("analysis tool definitions", () => {
  it("have short descriptions and input/output schemas that convert to JSON schema objects", () => {
    expect(analysisToolDefinitions.map((definition) => definition.name)).toEqual([
      "reasoning_detect",
      "reasoning_decision",
      "reasoning_evidence",
      "reasoning_counterfactual",
    ]);
    for (const definition of analysisToolDefinitions) {
      expect(definition.description.length).toBeLessThanOrEqual(1024);
      expect(z.toJSONSchema(definition.inputSchema, { io: "input", unrepresentable: "any" })).toMatchObject({
        type: "object",
      });
      expect(z.toJSONSchema(definition.outputSchema, { io: "output", unrepresentable: "any" })).toMatchObject({
        type: "object",
      });
      // They record a thought per call, so the design doc's read-only / idempotent hints would be false claims.
      expect(definition.annotations).toMatchObject({ readOnlyHint: false, idempotentHint: false });
    }
  });

  it("accept what MCP clients send: numbers as strings, type names in any spelling", () => {
    expect(
      detectInputSchema.parse({
        type: "biases",
        content: "x",
        check_types: ["Sunk-cost fallacy", "confirmation bias"],
        check_formal: "false",
      }),
    ).toMatchObject({
      check_types: ["sunk_cost_fallacy", "confirmation_bias"],
      check_formal: false,
    });
    expect(
      decisionInputSchema.parse({
        options: ["a", "b"],
        criteria: [{ name: "c", weight: "0.5" }],
        scores: [["1"], [2]],
      }),
    ).toMatchObject({
      type: "weighted",
      criteria: [{ name: "c", weight: 0.5 }],
      scores: [[1], [2]],
    });
    expect(
      evidenceInputSchema.parse({
        type: "probabilistic",
        hypothesis: "h",
        prior: "0.2",
        evidence: [{ content: "e", corroborated_by: ["1"] }, { content: "f" }],
      }),
    ).toMatchObject({
      prior: 0.2,
      sensitivity_delta: 0.05,
      evidence: [{ content: "e", corroborated_by: [1] }, { content: "f" }],
    });
    expect(
      counterfactualInputSchema.parse({
        scenario: "s",
        causal_model: { variables: ["a"], relationships: [] },
        intervention_target: { variable: "a", change: "2" },
      }),
    ).toMatchObject({
      analysis_depth: "counterfactual",
      intervention_target: { variable: "a", change: 2 },
    });
  });

  it("name the field and the fix for type-specific requirements", () => {
    const issues = (schema: z.ZodType, value: unknown) =>
      (schema.safeParse(value).error?.issues ?? []).map((issue) => [issue.path.join("."), issue.message]);
    expect(issues(decisionInputSchema, { type: "perspectives" })).toEqual([
      ["topic", "topic is required for type 'perspectives'"],
    ]);
    expect(issues(evidenceInputSchema, { type: "assess", evidence: [{ content: "e" }] })).toEqual([
      ["claim", "claim is required for type 'assess'"],
    ]);
    expect(
      issues(detectInputSchema, { type: "biases", content: "x", check_types: ["anchoring", "ad_hominem"] }),
    ).toEqual([
      [
        "check_types.1",
        expect.stringMatching(
          /^unknown bias 'ad_hominem' \('ad_hominem' is a fallacy, but type is 'biases'\); valid biases: confirmation_bias, /,
        ),
      ],
    ]);
    expect(
      issues(counterfactualInputSchema, {
        scenario: "s",
        causal_model: { variables: ["a"], relationships: [] },
        intervention_target: { variable: "a" },
      }),
    ).toEqual([["intervention_target", "give exactly one of change (a shift) or value (a new level)"]]);
  });
});
