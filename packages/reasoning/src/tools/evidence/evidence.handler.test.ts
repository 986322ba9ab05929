import { evidenceOutputSchema } from "@deliberate/contracts";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bayesianUpdate, binaryEntropy, conditionalIndependenceAssumption } from "@deliberate/algorithms";
import { answerJsonSchema } from "@deliberate/engine";
import type { z } from "zod";
import { bySchemaName, errorOf, type TestEngine, useTestEngines } from "../../test-support.ts";

const { setup } = useTestEngines();

const noModel = () => {
  throw new Error("the model must not be called");
};

async function evidence(engine: TestEngine["engine"], input: Record<string, unknown>) {
  return evidenceOutputSchema.parse(await engine.invoke("reasoning_evidence", input));
}

describe("reasoning_evidence: probabilistic", () => {
  it("updates exactly from supplied prior and likelihoods (hand-worked) without a model call", async () => {
    const { engine, model, store } = await setup(noModel);
    const output = await evidence(engine, {
      type: "probabilistic",
      hypothesis: "The outage was caused by the deploy",
      prior: 0.3,
      evidence: [
        { content: "Errors began 2 minutes after the deploy", likelihood_if_true: 0.8, likelihood_if_false: 0.2 },
        { content: "Rollback reduced errors", likelihood_if_true: "0.6", likelihood_if_false: 0.3 },
      ],
    });
    // Prior odds 3/7 × LR (4 × 2 = 8) = 24/7, so the posterior is 24/31.
    expect(output.posterior).toBeCloseTo(24 / 31, 14);
    expect(output.likelihood_ratio).toBeCloseTo(8, 14);
    expect(output.log10_likelihood_ratio).toBeCloseTo(Math.log10(8), 14);
    expect(output.entropy).toBeCloseTo(binaryEntropy(24 / 31), 14);
    expect(output.steps?.map((step) => [step.prior, step.posterior, step.likelihood_ratio, step.estimated])).toEqual([
      [0.3, expect.closeTo(0.24 / 0.38, 14), 4, false],
      [expect.closeTo(0.24 / 0.38, 14), expect.closeTo(24 / 31, 14), 2, false],
    ]);
    expect(output.prior_estimated).toBe(false);
    expect(output.assumptions).toEqual([conditionalIndependenceAssumption]);
    const interval = output.confidence_interval;
    expect(interval?.delta).toBe(0.05);
    expect(interval?.lower).toBeLessThan(output.posterior as number);
    expect(interval?.upper).toBeGreaterThan(output.posterior as number);
    expect(interval?.meaning).toMatch(/^Likelihood-sensitivity interval: .*±0.05.*not a sampling confidence interval/);
    const expected = bayesianUpdate({
      prior: 0.3,
      evidence: [
        { likelihood_if_true: 0.8, likelihood_if_false: 0.2 },
        { likelihood_if_true: 0.6, likelihood_if_false: 0.3 },
      ],
    });
    expect([interval?.lower, interval?.upper]).toEqual([
      expected.sensitivity_interval.lower,
      expected.sensitivity_interval.upper,
    ]);
    expect(output.synthesis).toContain("P(H | evidence) = 0.774");
    expect(model.calls).toHaveLength(0);

    const [thought] = await store.thoughts.listBySession(output.session_id);
    expect(thought?.mode).toBe("evidence");
    expect(thought?.metadata).toMatchObject({
      type: "probabilistic",
      posterior: output.posterior,
      likelihood_ratio: output.likelihood_ratio,
      steps: output.steps,
    });
  });

  it("honours sensitivity_delta and reports an infinite likelihood ratio as null", async () => {
    const { engine } = await setup(noModel);
    const output = await evidence(engine, {
      type: "probabilistic",
      hypothesis: "H",
      prior: 0.5,
      sensitivity_delta: 0.1,
      evidence: [{ content: "Only possible under H", likelihood_if_true: 0.4, likelihood_if_false: 0 }],
    });
    expect(output.posterior).toBe(1);
    expect(output.likelihood_ratio).toBeNull();
    expect(output.log10_likelihood_ratio).toBeNull();
    expect(output.steps?.[0]?.likelihood_ratio).toBeNull();
    expect(output.entropy).toBe(0);
    expect(output.confidence_interval?.delta).toBe(0.1);
    expect(output.synthesis).toContain("infinite combined likelihood ratio");
  });

  it("carries the algorithm's posterior, monotone in the likelihood ratio (property)", async () => {
    const { engine, model } = await setup(noModel);
    const probability = fc.double({ min: 0.01, max: 0.99, noNaN: true });
    await fc.assert(
      fc.asyncProperty(
        probability,
        probability,
        probability,
        probability,
        async (prior, likelihoodIfFalse, lowTrue, highTrue) => {
          const [weaker, stronger] = lowTrue <= highTrue ? [lowTrue, highTrue] : [highTrue, lowTrue];
          const run = (likelihoodIfTrue: number) =>
            evidence(engine, {
              type: "probabilistic",
              hypothesis: "H",
              prior,
              evidence: [
                { content: "E", likelihood_if_true: likelihoodIfTrue, likelihood_if_false: likelihoodIfFalse },
              ],
            });
          const low = await run(weaker);
          const high = await run(stronger);
          expect(low.posterior).toBe(
            bayesianUpdate({
              prior,
              evidence: [{ likelihood_if_true: weaker, likelihood_if_false: likelihoodIfFalse }],
            }).posterior,
          );
          expect(high.posterior as number).toBeGreaterThanOrEqual(low.posterior as number);
          expect((high.likelihood_ratio as number) >= (low.likelihood_ratio as number)).toBe(true);
        },
      ),
      { numRuns: 40 },
    );
    expect(model.calls).toHaveLength(0);
  });

  it("asks the model only for the missing prior and likelihoods, and marks them estimated", async () => {
    const answer = {
      prior: { value: 0.1, rationale: "Most outages are not deploy-related" },
      items: {
        "1": { likelihood_if_true: 0.5, likelihood_if_false: 0.5, rationale: "uninformative" },
        "2": { likelihood_if_true: 0.9, likelihood_if_false: 0.4, rationale: "half given" },
      },
    };
    const { engine, model } = await setup(bySchemaName({ evidence_likelihoods: answer }));
    const output = await evidence(engine, {
      type: "probabilistic",
      hypothesis: "The deploy caused it",
      evidence: [
        { content: "a", likelihood_if_true: 0.8, likelihood_if_false: 0.2 },
        { content: "b" },
        { content: "c", likelihood_if_false: 0.25 },
      ],
    });
    expect(output.prior).toBe(0.1);
    expect(output.prior_estimated).toBe(true);
    expect(output.steps?.map((step) => [step.likelihood_if_true, step.likelihood_if_false, step.estimated])).toEqual([
      [0.8, 0.2, false],
      [0.5, 0.5, true],
      [0.9, 0.25, true],
    ]);
    expect(output.steps?.[1]?.rationale).toBe("uninformative");
    const expected = bayesianUpdate({
      prior: 0.1,
      evidence: [
        { likelihood_if_true: 0.8, likelihood_if_false: 0.2 },
        { likelihood_if_true: 0.5, likelihood_if_false: 0.5 },
        { likelihood_if_true: 0.9, likelihood_if_false: 0.25 },
      ],
    });
    expect(output.posterior).toBe(expected.posterior);
    expect(output.assumptions).toHaveLength(3);
    expect(output.assumptions?.[2]).toContain("Most outages are not deploy-related");
    const prompt = model.calls[0]?.messages[0]?.content ?? "";
    expect(prompt).toContain("Estimate the prior");
    expect(prompt).toContain("P(E|not H) = 0.25 (given, keep it)");
    expect(prompt).toContain("Estimate both likelihoods for items: 1, 2.");
    // The model may not claim certainty: 0 and 1 are outside the schema.
    expect(
      model.calls[0]?.schema?.safeParse({
        ...answer,
        items: { ...answer.items, "1": { ...answer.items["1"], likelihood_if_true: 1 } },
      }).success,
    ).toBe(false);
    // One entry per item asked for, keyed by index, in the schema the model sees.
    const published = answerJsonSchema(model.calls[0]?.schema as z.ZodType) as {
      properties: { items: { required: string[] } };
    };
    expect(published.properties.items.required).toEqual(["1", "2"]);
  });

  it("sends an answer that skips an item back to the model", async () => {
    const partial = { items: {} };
    const complete = { items: { "0": { likelihood_if_true: 0.7, likelihood_if_false: 0.3, rationale: "" } } };
    const { engine, model } = await setup([partial, complete]);
    const output = await evidence(engine, {
      type: "probabilistic",
      hypothesis: "H",
      prior: 0.5,
      evidence: [{ content: "e" }],
    });
    expect(model.calls.map((call) => call.repair)).toEqual([false, true]);
    expect(output.posterior).toBeCloseTo(0.7, 14);
  });

  it("refuses evidence that is impossible under the prior, naming the item", async () => {
    const { engine, store } = await setup(noModel);
    const error = await errorOf(
      engine.invoke("reasoning_evidence", {
        type: "probabilistic",
        hypothesis: "H",
        prior: 1,
        evidence: [{ content: "e", likelihood_if_true: 0, likelihood_if_false: 0.5 }],
      }),
    );
    expect(error.code).toBe("INVALID_INPUT");
    expect(error.issues[0]?.field).toBe("evidence.0");
    expect(await store.sessions.list({ limit: 10 })).toHaveLength(0);
  });
});

describe("reasoning_evidence: assess", () => {
  it("scores credibility by the documented formula from supplied inputs (hand-worked) without a model call", async () => {
    const { engine, model } = await setup(noModel);
    const output = await evidence(engine, {
      claim: "The bridge is unsafe",
      evidence: [
        {
          content: "Inspection report",
          source: "lab",
          source_type: "primary",
          corroborated_by: [1],
          chain_of_custody: "intact",
        },
        {
          content: "News article",
          source: "news",
          source_type: "secondary",
          corroborated_by: [0],
          chain_of_custody: "partial",
        },
        { content: "A neighbour said so", source_type: "anecdotal", corroborated_by: [], chain_of_custody: "broken" },
      ],
    });
    // 0.5·1 + 0.25·(1 − 0.5) + 0.25·1 = 0.875; 0.5·0.6 + 0.125 + 0.125 = 0.55; 0.5·0.15 = 0.075; mean 0.5.
    expect(output.evidence_assessments?.map((assessment) => assessment.credibility_score)).toEqual([
      0.875,
      0.55,
      expect.closeTo(0.075, 14),
    ]);
    expect(output.overall_credibility).toBeCloseTo(0.5, 14);
    expect(output.evidence_assessments?.map((assessment) => assessment.estimated)).toEqual([[], [], []]);
    expect(output.credibility_weights).toEqual({ source: 0.5, corroboration: 0.25, custody: 0.25 });
    expect(output.credibility_formula).toContain(
      "primary 1, expert 0.75, secondary 0.6, tertiary 0.35, anecdotal 0.15",
    );
    expect(output.synthesis).toContain("Strongest: item 0 (primary, 0.875); weakest: item 2 (anecdotal, 0.075)");
    expect(model.calls).toHaveLength(0);
  });

  it("uses caller weights and a custody fraction", async () => {
    const { engine } = await setup(noModel);
    const output = await evidence(engine, {
      claim: "c",
      credibility_weights: { source: 1, corroboration: 0, custody: 1 },
      evidence: [{ content: "x", source_type: "expert", corroborated_by: [], chain_of_custody: 0.25 }],
    });
    expect(output.credibility_weights).toEqual({ source: 0.5, corroboration: 0, custody: 0.5 });
    expect(output.overall_credibility).toBe(0.5 * 0.75 + 0.5 * 0.25);
    expect(output.evidence_assessments?.[0]?.chain_of_custody).toBe("fraction");
  });

  it("asks the model only for what the caller left out and keeps what was given", async () => {
    const answer = {
      items: {
        "0": { source_type: "tertiary", corroborated_by: [1], chain_of_custody: "unknown", rationale: "encyclopedia" },
        "1": { source_type: "primary", corroborated_by: [], chain_of_custody: "intact", rationale: "the log itself" },
      },
    };
    const { engine, model } = await setup(bySchemaName({ evidence_assessment: answer }));
    const output = await evidence(engine, {
      type: "assess",
      claim: "The server rebooted at 03:00",
      evidence: [
        { content: "Wiki page says so", source_type: "secondary" },
        { content: "Syslog line", source: "syslog", corroborated_by: [0] },
        { content: "Monitoring graph", source_type: "primary", corroborated_by: [1], chain_of_custody: "intact" },
      ],
    });
    const [first, second, third] = output.evidence_assessments ?? [];
    expect(first).toMatchObject({
      source_tier: "secondary",
      corroborated_by: [1],
      chain_of_custody: "unknown",
      estimated: ["corroborated_by", "chain_of_custody"],
      rationale: "encyclopedia",
    });
    expect(second).toMatchObject({
      source_tier: "primary",
      corroborated_by: [0],
      chain_of_custody: "intact",
      estimated: ["source_type", "chain_of_custody"],
    });
    expect(third).toMatchObject({ estimated: [] });
    expect(third?.rationale).toBeUndefined();
    expect(model.calls[0]?.messages[0]?.content).toContain(
      "Give source_type, corroborated_by and chain_of_custody for items: 0, 1",
    );
    // Each item may name only the other items as corroboration.
    const published = answerJsonSchema(model.calls[0]?.schema as z.ZodType) as {
      properties: {
        items: {
          required: string[];
          properties: Record<string, { properties: { corroborated_by: { items: { enum: number[] } } } }>;
        };
      };
    };
    expect(published.properties.items.required).toEqual(["0", "1"]);
    expect(published.properties.items.properties["0"]?.properties.corroborated_by.items.enum).toEqual([1, 2]);
    expect(published.properties.items.properties["1"]?.properties.corroborated_by.items.enum).toEqual([0, 2]);
  });

  it("rejects bad input naming the field, before any model call or write", async () => {
    const { engine, model, store } = await setup(noModel);
    const cases: Array<[Record<string, unknown>, string, RegExp]> = [
      [{ evidence: [{ content: "x" }] }, "claim", /claim is required for type 'assess'/],
      [
        { type: "probabilistic", evidence: [{ content: "x" }] },
        "hypothesis",
        /hypothesis is required for type 'probabilistic'/,
      ],
      [{ claim: "c", evidence: [] }, "evidence", /at least 1 evidence item/],
      [
        { claim: "c", evidence: [{ content: "x", corroborated_by: [3] }] },
        "evidence.0.corroborated_by.0",
        /index of another item \(0\.\.0\)/,
      ],
      [
        { claim: "c", evidence: [{ content: "x" }, { content: "y", corroborated_by: [1] }] },
        "evidence.1.corroborated_by.0",
        /cannot corroborate itself/,
      ],
      [
        {
          type: "probabilistic",
          hypothesis: "h",
          evidence: [{ content: "x", likelihood_if_true: 0, likelihood_if_false: 0 }],
        },
        "evidence.0.likelihood_if_false",
        /both 0/,
      ],
      [{ type: "probabilistic", hypothesis: "h", prior: 1.5, evidence: [{ content: "x" }] }, "prior", /./],
      [{ claim: "c", evidence: [{ content: "x", source_type: "rumour" }] }, "evidence.0.source_type", /./],
      [
        { claim: "c", credibility_weights: { source: 0, corroboration: 0, custody: 0 }, evidence: [{ content: "x" }] },
        "credibility_weights",
        /every weight is 0/,
      ],
    ];
    for (const [input, field, message] of cases) {
      const error = await errorOf(engine.invoke("reasoning_evidence", input));
      expect(error.code, JSON.stringify(input)).toBe("INVALID_INPUT");
      const issue = error.issues.find((candidate) => candidate.field === field);
      expect(issue?.message, `${field} in ${JSON.stringify(error.issues)}`).toMatch(message);
    }
    expect(model.calls).toHaveLength(0);
    expect(await store.sessions.list({ limit: 10 })).toHaveLength(0);
  });
});
