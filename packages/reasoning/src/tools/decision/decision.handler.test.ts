import { decisionOutputSchema } from "@deliberate/contracts";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { analyzePairwiseMatrix, topsis, weightedSum } from "@deliberate/algorithms";
import { bySchemaName, errorOf, type TestEngine, useTestEngines } from "../../test-support.ts";
import { answerJsonSchema } from "@deliberate/engine";
import type { z } from "zod";

const { setup } = useTestEngines();

/** A scripted model that fails the test if it is ever asked. */
const noModel = () => {
  throw new Error("the model must not be called");
};

async function decide(engine: TestEngine["engine"], input: Record<string, unknown>) {
  return decisionOutputSchema.parse(await engine.invoke("reasoning_decision", input));
}

describe("reasoning_decision: weighted", () => {
  it("computes the hand-worked weighted sum from supplied scores, weights and directions without a model call", async () => {
    const { engine, model, store } = await setup(noModel);
    const output = await decide(engine, {
      type: "weighted",
      question: "Which vendor?",
      options: ["A", "B", "C"],
      criteria: [
        { name: "price", weight: 2, direction: "cost" },
        { name: "quality", weight: "3" },
      ],
      scores: [
        [100, 6],
        [200, 9],
        [150, 3],
      ],
    });
    // Weights 0.4 / 0.6. Price (cost) min-max: A 1, B 0, C 0.5. Quality: A 0.5, B 1, C 0.
    expect(output.rankings).toEqual([
      { option: "A", score: 0.7, rank: 1, tied: false },
      { option: "B", score: 0.6, rank: 2, tied: false },
      { option: "C", score: expect.closeTo(0.2, 12), rank: 3, tied: false },
    ]);
    expect(output.normalized_scores).toEqual([
      [1, 0.5],
      [0, 1],
      [0.5, 0],
    ]);
    expect(output.criteria).toEqual([
      { name: "price", weight: 0.4, direction: "cost", weight_source: "caller", direction_source: "caller" },
      { name: "quality", weight: 0.6, direction: "benefit", weight_source: "caller", direction_source: "default" },
    ]);
    expect(output.scores_source).toBe("caller");
    expect(output.recommendation).toBe('Choose "A" (weighted total 0.7; next: "B" at 0.6).');
    expect(output.warnings).toEqual([]);
    expect(model.calls).toHaveLength(0);

    const [thought] = await store.thoughts.listBySession(output.session_id);
    expect(thought).toMatchObject({ id: output.thought_id, mode: "decision", content: output.recommendation });
    expect(thought?.metadata).toMatchObject({
      type: "weighted",
      rankings: output.rankings,
      criteria: output.criteria,
      input: { question: "Which vendor?" },
    });
    const [invocation] = await store.invocations.list({ tool: "reasoning_decision" });
    expect(invocation).toMatchObject({ success: true, model_calls: 0 });
  });

  it("asks the model only for criteria, importance, directions and 0-10 levels, and computes the rest", async () => {
    const answer = {
      criteria: {
        cost: { importance: 3, direction: "cost", scores: { Postgres: 4, SQLite: 1 } },
        scalability: { importance: 6, direction: "benefit", scores: { Postgres: 9, SQLite: 3 } },
      },
      notes: "Postgres scales; SQLite is free to run.",
    };
    const { engine, model } = await setup(bySchemaName({ decision_scores: answer }));
    const output = await decide(engine, { question: "Which database?", options: ["Postgres", "SQLite"] });
    const expected = weightedSum({
      options: ["Postgres", "SQLite"],
      criteria: [
        { name: "cost", weight: 3, direction: "cost" },
        { name: "scalability", weight: 6, direction: "benefit" },
      ],
      scores: [
        [4, 9],
        [1, 3],
      ],
    });
    expect(output.rankings?.map((ranked) => ranked.score)).toEqual(expected.rankings.map((ranked) => ranked.score));
    expect(output.rankings?.map((ranked) => ranked.option)).toEqual(["Postgres", "SQLite"]);
    expect(
      output.criteria?.map((criterion) => [criterion.weight, criterion.weight_source, criterion.direction_source]),
    ).toEqual([
      [1 / 3, "model", "model"],
      [2 / 3, "model", "model"],
    ]);
    expect(output.scores).toEqual([
      [4, 9],
      [1, 3],
    ]);
    expect(output.scores_source).toBe("model");
    expect(output.rationale).toContain("Postgres scales");
    expect(model.calls).toHaveLength(1);
  });

  it("takes proposed criteria that differ only in case or surrounding spaces as one (the first), without a repair round", async () => {
    const answer = {
      criteria: {
        Cost: { importance: 3, direction: "cost", scores: { Postgres: 4, SQLite: 1 } },
        " cost ": { importance: 9, direction: "benefit", scores: { Postgres: 0, SQLite: 10 } },
        scalability: { importance: 6, direction: "benefit", scores: { Postgres: 9, SQLite: 3 } },
      },
      notes: "n",
    };
    const { engine, model } = await setup(bySchemaName({ decision_scores: answer }));
    const output = await decide(engine, { question: "Which database?", options: ["Postgres", "SQLite"] });
    expect(output.criteria?.map((criterion) => [criterion.name, criterion.weight, criterion.direction])).toEqual([
      ["Cost", 1 / 3, "cost"],
      ["scalability", 2 / 3, "benefit"],
    ]);
    expect(output.scores).toEqual([
      [4, 9],
      [1, 3],
    ]);
    expect(model.calls.map((call) => call.repair)).toEqual([false]);
  });

  it("with caller criteria and weights, asks only for scores and the missing directions", async () => {
    const answer = {
      criteria: {
        speed: { scores: { X: 8, Y: 5 } },
        risk: { direction: "cost", scores: { X: 7, Y: 2 } },
      },
      notes: "",
    };
    const { engine, model } = await setup([answer]);
    const output = await decide(engine, {
      type: "topsis",
      options: ["X", "Y"],
      criteria: [
        { name: "speed", weight: 0.5, direction: "benefit" },
        { name: "risk", weight: 0.5 },
      ],
    });
    const schema = model.calls[0]?.schema;
    // Importance is not asked for: the caller gave weights.
    expect(
      schema?.safeParse({
        ...answer,
        criteria: { speed: { ...answer.criteria.speed, importance: 5 }, risk: answer.criteria.risk },
      }).success,
    ).toBe(true);
    // The direction is required exactly for the criterion the caller left it out of.
    expect(
      schema?.safeParse({
        ...answer,
        criteria: { speed: answer.criteria.speed, risk: { scores: answer.criteria.risk.scores } },
      }).success,
    ).toBe(false);
    const published = answerJsonSchema(schema as z.ZodType) as {
      properties: { criteria: { required: string[]; properties: Record<string, { required: string[] }> } };
    };
    expect(published.properties.criteria.required).toEqual(["speed", "risk"]);
    expect(published.properties.criteria.properties["risk"]?.required).toEqual(["direction", "scores"]);
    expect(published.properties.criteria.properties["speed"]?.required).toEqual(["scores"]);
    expect(output.criteria?.map((criterion) => [criterion.direction, criterion.direction_source])).toEqual([
      ["benefit", "caller"],
      ["cost", "model"],
    ]);
    const expected = topsis({
      options: ["X", "Y"],
      criteria: [
        { name: "speed", weight: 0.5 },
        { name: "risk", weight: 0.5, direction: "cost" },
      ],
      scores: [
        [8, 7],
        [5, 2],
      ],
    });
    expect(output.rankings?.map((ranked) => ranked.score)).toEqual(expected.rankings.map((ranked) => ranked.score));
  });

  it("repairs a scoring answer that leaves an option unscored", async () => {
    const incomplete = {
      criteria: {
        fit: { importance: 5, direction: "benefit", scores: { A: 5 } },
        cost: { importance: 5, direction: "cost", scores: { A: 1, B: 2 } },
      },
      notes: "",
    };
    const complete = {
      criteria: {
        fit: { importance: 5, direction: "benefit", scores: { A: 5, B: 7 } },
        cost: incomplete.criteria.cost,
      },
      notes: "",
    };
    const { engine, model } = await setup([incomplete, complete]);
    const output = await decide(engine, { options: ["A", "B"] });
    expect(model.calls.map((call) => call.repair)).toEqual([false, true]);
    expect(model.calls[1]?.messages.at(-1)?.content).toContain("criteria.fit.scores.B");
    expect(output.scores).toEqual([
      [5, 1],
      [7, 2],
    ]);
  });

  it("breaks ties by input order, marks them, and says there is no single winner", async () => {
    const { engine } = await setup(noModel);
    const output = await decide(engine, {
      options: ["first", "second", "third"],
      criteria: [{ name: "value", weight: 1 }],
      scores: [[5], [5], [1]],
    });
    expect(output.rankings?.map((ranked) => [ranked.option, ranked.rank, ranked.tied])).toEqual([
      ["first", 1, true],
      ["second", 2, true],
      ["third", 3, false],
    ]);
    expect(output.recommendation).toMatch(/^No single winner: "first" and "second" tie/);
    expect(output.warnings).toEqual([
      '"first", "second" tie on total 1; they are ranked 1-2 by input order, not by merit.',
    ]);
  });
});

describe("reasoning_decision: topsis", () => {
  it("computes the hand-worked closeness honouring a cost criterion, without a model call", async () => {
    const { engine, model } = await setup(noModel);
    const output = await decide(engine, {
      type: "topsis",
      options: ["X", "Y"],
      criteria: [
        { name: "gain", weight: 1, direction: "benefit" },
        { name: "pain", weight: 1, direction: "cost" },
      ],
      scores: [
        [3, 4],
        [4, 3],
      ],
    });
    // Vector norms are 5; weighted: X (0.3, 0.4), Y (0.4, 0.3). Y is the ideal (max gain, min pain), X the anti-ideal.
    expect(output.rankings).toEqual([
      { option: "Y", score: 1, rank: 1, tied: false },
      { option: "X", score: 0, rank: 2, tied: false },
    ]);
    expect(output.topsis?.ideal).toEqual([expect.closeTo(0.4, 12), expect.closeTo(0.3, 12)]);
    expect(output.topsis?.anti_ideal).toEqual([expect.closeTo(0.3, 12), expect.closeTo(0.4, 12)]);
    expect(output.topsis?.distance_to_ideal[0]).toBeCloseTo(Math.SQRT2 / 10, 12);
    expect(model.calls).toHaveLength(0);
  });

  it("carries exactly the algorithm's numbers: closeness in [0,1], a dominating option first (property)", async () => {
    const { engine, model } = await setup(noModel);
    const matrices = fc
      .record({ options: fc.integer({ min: 2, max: 5 }), criteria: fc.integer({ min: 1, max: 4 }) })
      .chain(({ options, criteria }) =>
        fc.record({
          scores: fc.array(fc.array(fc.integer({ min: 0, max: 100 }), { minLength: criteria, maxLength: criteria }), {
            minLength: options,
            maxLength: options,
          }),
          weights: fc.array(fc.integer({ min: 1, max: 10 }), { minLength: criteria, maxLength: criteria }),
          costs: fc.array(fc.boolean(), { minLength: criteria, maxLength: criteria }),
        }),
      );
    await fc.assert(
      fc.asyncProperty(matrices, async ({ scores, weights, costs }) => {
        const options = scores.map((_, index) => `option ${index}`);
        const criteria = weights.map(
          (weight, index) => ({ name: `c${index}`, weight, direction: costs[index] ? "cost" : "benefit" }) as const,
        );
        // Option "dominant": at least as good as every option on every criterion, strictly better on the first.
        const best = criteria.map((criterion, column) => {
          const values = scores.map((row) => row[column] as number);
          return criterion.direction === "cost"
            ? Math.min(...values) - (column === 0 ? 1 : 0)
            : Math.max(...values) + (column === 0 ? 1 : 0);
        });
        const allOptions = [...options, "dominant"];
        const allScores = [...scores, best];
        const output = await decide(engine, { type: "topsis", options: allOptions, criteria, scores: allScores });
        const expected = topsis({ options: allOptions, criteria, scores: allScores });
        expect(output.rankings?.map(({ option, score }) => ({ option, score }))).toEqual(
          expected.rankings.map(({ option, score }) => ({ option, score })),
        );
        for (const ranked of output.rankings ?? []) {
          expect(ranked.score).toBeGreaterThanOrEqual(0);
          expect(ranked.score).toBeLessThanOrEqual(1);
        }
        expect(output.rankings?.[0]?.option).toBe("dominant");
        expect(output.rankings?.[0]?.score).toBe(1);
      }),
      { numRuns: 40 },
    );
    expect(model.calls).toHaveLength(0);
  });
});

describe("reasoning_decision: pairwise", () => {
  it("gives exact priorities and CR = 0 for a consistent supplied matrix, without a model call", async () => {
    const { engine, model } = await setup(noModel);
    const output = await decide(engine, {
      type: "pairwise",
      options: ["A", "B", "C"],
      pairwise_matrix: [
        [1, 2, 4],
        [0.5, 1, 2],
        [0.25, 0.5, 1],
      ],
    });
    expect(output.rankings?.map((ranked) => ranked.option)).toEqual(["A", "B", "C"]);
    expect(output.pairwise?.priorities[0]).toBeCloseTo(4 / 7, 12);
    expect(output.pairwise?.priorities[1]).toBeCloseTo(2 / 7, 12);
    expect(output.pairwise?.priorities[2]).toBeCloseTo(1 / 7, 12);
    expect(output.pairwise?.lambda_max).toBeCloseTo(3, 12);
    expect(output.pairwise?.consistency_ratio).toBeCloseTo(0, 12);
    expect(output.pairwise).toMatchObject({ consistent: true, random_index: 0.58, matrix_source: "caller" });
    expect(output.warnings).toEqual([]);
    expect(model.calls).toHaveLength(0);
  });

  it("reports CR = 0 and priorities proportional to the weights for any consistent matrix (property)", async () => {
    const { engine } = await setup(noModel);
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 1, max: 3 }), { minLength: 2, maxLength: 7 }), async (weights) => {
        const options = weights.map((_, index) => `o${index}`);
        const matrix = weights.map((a) => weights.map((b) => a / b));
        const output = await decide(engine, { type: "pairwise", options, pairwise_matrix: matrix });
        const expected = analyzePairwiseMatrix({ matrix });
        expect(output.pairwise?.priorities).toEqual(expected.priorities);
        expect(output.pairwise?.consistency_ratio).toBe(expected.consistency_ratio);
        expect(Math.abs(output.pairwise?.consistency_ratio ?? 1)).toBeLessThan(1e-9);
        const total = weights.reduce((sum, weight) => sum + weight, 0);
        output.pairwise?.priorities.forEach((priority, index) =>
          expect(priority).toBeCloseTo((weights[index] as number) / total, 9),
        );
        expect(output.warnings.some((warning) => warning.includes("Consistency ratio"))).toBe(false);
      }),
      { numRuns: 40 },
    );
  });

  it("warns when CR > 0.1 and names the judgement to revisit", async () => {
    const { engine } = await setup(noModel);
    const output = await decide(engine, {
      type: "pairwise",
      options: ["rock", "paper", "scissors"],
      pairwise_matrix: [
        [1, 1 / 9, 9],
        [9, 1, 1 / 9],
        [1 / 9, 9, 1],
      ],
    });
    expect(output.pairwise?.consistent).toBe(false);
    expect(output.pairwise?.consistency_ratio).toBeGreaterThan(0.1);
    expect(output.warnings[0]).toMatch(
      /^Consistency ratio \d\.\d{3} exceeds 0\.1: .*Revisit "(rock|paper|scissors)" vs "(rock|paper|scissors)"/,
    );
  });

  it("builds the reciprocal matrix from the model's Saaty judgements", async () => {
    const answer = {
      judgements: {
        "1": { preferred: "B", intensity: 3 },
        "2": { preferred: "A", intensity: 1 },
        "3": { preferred: "B", intensity: 3 },
      },
      notes: "B is clearly better.",
    };
    const { engine, model } = await setup(bySchemaName({ decision_pairwise: answer }));
    const output = await decide(engine, {
      type: "pairwise",
      question: "Pick one",
      options: ["A", "B", "C"],
      criteria: [{ name: "speed", weight: 1 }],
    });
    expect(output.pairwise?.matrix).toEqual([
      [1, 1 / 3, 1],
      [3, 1, 3],
      [1, 1 / 3, 1],
    ]);
    expect(output.pairwise?.matrix_source).toBe("model");
    expect(output.pairwise?.priorities).toEqual([
      expect.closeTo(0.2, 12),
      expect.closeTo(0.6, 12),
      expect.closeTo(0.2, 12),
    ]);
    expect(output.rankings?.map((ranked) => [ranked.option, ranked.tied])).toEqual([
      ["B", false],
      ["A", true],
      ["C", true],
    ]);
    const prompt = model.calls[0]?.messages[0]?.content ?? "";
    expect(prompt).toContain('1. "A" vs "B"');
    expect(prompt).toContain('3. "B" vs "C"');
    expect(prompt).toContain("speed (weight 1)");
  });

  it("sends a judgement outside its pair back to the model", async () => {
    const wrong = {
      judgements: {
        "1": { preferred: "C", intensity: 5 },
        "2": { preferred: "A", intensity: 2 },
        "3": { preferred: "B", intensity: 2 },
      },
      notes: "",
    };
    const right = {
      judgements: {
        "1": { preferred: "A", intensity: 5 },
        "2": { preferred: "A", intensity: 2 },
        "3": { preferred: "B", intensity: 2 },
      },
      notes: "",
    };
    const { engine, model } = await setup([wrong, right]);
    const output = await decide(engine, { type: "pairwise", options: ["A", "B", "C"] });
    // Each pair's preferred option is an enum of its two options, in the schema the model sees.
    expect(model.calls[1]?.messages.at(-1)?.content).toContain("judgements.1.preferred");
    const published = answerJsonSchema(model.calls[0]?.schema as z.ZodType) as {
      properties: { judgements: { properties: Record<string, { properties: { preferred: { enum: string[] } } }> } };
    };
    expect(published.properties.judgements.properties["1"]?.properties.preferred.enum).toEqual(["A", "B"]);
    expect(published.properties.judgements.properties["3"]?.properties.preferred.enum).toEqual(["B", "C"]);
    expect(output.pairwise?.matrix[0]?.[1]).toBe(5);
  });
});

describe("reasoning_decision: perspectives", () => {
  it("computes quadrants from the levels, asking the model only for missing levels, conflicts and alignments", async () => {
    const answer = {
      levels: { Regulator: { power_level: 0.9, interest_level: 0.2 } },
      conflicts: ["Engineering vs Finance on budget"],
      alignments: ["Customers and Engineering want reliability"],
    };
    const { engine, model } = await setup(bySchemaName({ decision_stakeholders: answer }));
    const output = await decide(engine, {
      type: "perspectives",
      topic: "Migrating to the cloud",
      stakeholders: [
        { name: "Engineering", power_level: 0.8, interest_level: 0.9 },
        { name: "Finance", power_level: "0.5", interest_level: 0.5 },
        { name: "Customers", power_level: 0.2, interest_level: 0.7 },
        { name: "Interns", power_level: 0.1, interest_level: 0.1 },
        { name: "Regulator", role: "oversight", power_level: 0.95 },
      ],
    });
    // 0.5 is on the line and counts as high; Regulator keeps the caller's power and takes the model's interest.
    expect(output.stakeholder_map).toEqual({
      key_players: ["Engineering", "Finance"],
      keep_satisfied: ["Regulator"],
      keep_informed: ["Customers"],
      minimal_effort: ["Interns"],
    });
    expect(output.stakeholders?.find((stakeholder) => stakeholder.name === "Regulator")).toEqual({
      name: "Regulator",
      role: "oversight",
      power_level: 0.95,
      interest_level: 0.2,
      quadrant: "keep_satisfied",
      source: "model",
    });
    expect(output.conflicts).toEqual(answer.conflicts);
    expect(output.alignments).toEqual(answer.alignments);
    expect(output.recommendation).toBe(
      "Manage Engineering, Finance closely (key players); keep Regulator satisfied; keep Customers informed.",
    );
    expect(model.calls).toHaveLength(1);
    expect(model.calls[0]?.messages[0]?.content).toContain(
      "Give power_level and interest_level (both) for: Regulator.",
    );
  });

  it("lets the model identify stakeholders when none are given", async () => {
    const answer = {
      stakeholders: {
        Board: { role: "owners", power_level: 0.9, interest_level: 0.9 },
        Staff: { role: "employees", power_level: 0.3, interest_level: 0.9 },
        Press: { role: "media", power_level: 0.4, interest_level: 0.2 },
      },
      conflicts: [],
      alignments: ["Board and Staff want the company to survive"],
    };
    const { engine } = await setup(bySchemaName({ decision_stakeholders: answer }));
    const output = await decide(engine, { type: "perspectives", topic: "Layoffs" });
    expect(output.stakeholder_map).toEqual({
      key_players: ["Board"],
      keep_satisfied: [],
      keep_informed: ["Staff"],
      minimal_effort: ["Press"],
    });
    expect(output.stakeholders?.every((stakeholder) => stakeholder.source === "model")).toBe(true);
  });
});

describe("reasoning_decision: proposed stakeholders", () => {
  it("takes names that differ only in case or surrounding spaces as one stakeholder (the first), without a repair round", async () => {
    const answer = {
      stakeholders: {
        Board: { role: "owners", power_level: 0.9, interest_level: 0.9 },
        "board ": { role: "directors", power_level: 0.1, interest_level: 0.1 },
        Staff: { role: "employees", power_level: 0.3, interest_level: 0.9 },
        Press: { role: "media", power_level: 0.4, interest_level: 0.2 },
      },
      conflicts: [],
      alignments: [],
    };
    const { engine, model } = await setup(bySchemaName({ decision_stakeholders: answer }));
    const output = await decide(engine, { type: "perspectives", topic: "Layoffs" });
    expect(output.stakeholders?.map((stakeholder) => stakeholder.name)).toEqual(["Board", "Staff", "Press"]);
    expect(output.stakeholder_map?.key_players).toEqual(["Board"]);
    expect(model.calls.map((call) => call.repair)).toEqual([false]);
  });
});

describe("reasoning_decision: input errors", () => {
  it("rejects bad input naming the field, before any model call or write", async () => {
    const { engine, model, store } = await setup(noModel);
    const cases: Array<[Record<string, unknown>, string, RegExp]> = [
      [{ type: "weighted" }, "options", /options is required for type 'weighted'/],
      [{ type: "perspectives" }, "topic", /required/],
      [{ options: ["A", "a"] }, "options.1", /duplicates options.0/],
      [
        { options: ["A", "B"], criteria: [{ name: "x", weight: 1 }, { name: "y" }] },
        "criteria.1.weight",
        /every criterion a weight, or none/,
      ],
      [{ options: ["A", "B"], criteria: [{ name: "x", weight: 0 }] }, "criteria", /every weight is 0/],
      [
        { options: ["A", "B"], criteria: [{ name: "x", weight: 1 }], scores: [[1], [2, 3]] },
        "scores.1",
        /one score per criterion \(1\), got 2/,
      ],
      [
        { options: ["A", "B"], criteria: [{ name: "x", weight: 1 }], scores: [[1]] },
        "scores",
        /one row per option \(2\), got 1/,
      ],
      [{ options: ["A", "B"], scores: [[1], [2]] }, "scores", /scores needs criteria/],
      [
        { type: "pairwise", options: ["A", "B"], scores: [[1], [2]] },
        "scores",
        /used by types 'weighted' and 'topsis'/,
      ],
      [
        {
          type: "pairwise",
          options: ["A", "B"],
          pairwise_matrix: [
            [1, 3],
            [3, 1],
          ],
        },
        "pairwise_matrix.1.0",
        /reciprocal of pairwise_matrix.0.1/,
      ],
      [
        {
          type: "pairwise",
          options: ["A", "B"],
          pairwise_matrix: [
            [1, 12],
            [1 / 12, 1],
          ],
        },
        "pairwise_matrix.0.1",
        /Saaty's scale/,
      ],
      [
        {
          type: "pairwise",
          options: ["A", "B"],
          pairwise_matrix: [
            [2, 1],
            [1, 1],
          ],
        },
        "pairwise_matrix.0.0",
        /diagonal/,
      ],
      [
        {
          type: "pairwise",
          options: ["A", "B", "C"],
          pairwise_matrix: [
            [1, 1],
            [1, 1],
          ],
        },
        "pairwise_matrix",
        /3 x 3/,
      ],
      [
        {
          type: "weighted",
          options: ["A", "B"],
          pairwise_matrix: [
            [1, 1],
            [1, 1],
          ],
        },
        "pairwise_matrix",
        /used by type 'pairwise'/,
      ],
      [
        { type: "perspectives", topic: "t", stakeholders: [{ name: "X", power_level: 2 }] },
        "stakeholders.0.power_level",
        /./,
      ],
      [
        { type: "weighted", options: ["A", "B"], stakeholders: [{ name: "X" }] },
        "stakeholders",
        /used by type 'perspectives'/,
      ],
      [
        { type: "pairwise", options: Array.from({ length: 16 }, (_, index) => `o${index}`) },
        "options",
        /at most 15 options/,
      ],
    ];
    for (const [input, field, message] of cases) {
      const error = await errorOf(engine.invoke("reasoning_decision", input));
      expect(error.code, JSON.stringify(input)).toBe("INVALID_INPUT");
      const issue = error.issues.find((candidate) => candidate.field === field);
      expect(issue?.message, `${field} in ${JSON.stringify(error.issues)}`).toMatch(message);
    }
    expect(model.calls).toHaveLength(0);
    expect(await store.sessions.list({ limit: 10 })).toHaveLength(0);
    expect(await store.invocations.list()).toHaveLength(0);
  });
});
