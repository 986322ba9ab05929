import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { expectInvalid } from "./test-support.ts";
import type { CausalModel } from "./causal-dag.ts";
import {
  computeAssociation,
  computeCounterfactual,
  computeIntervention,
  counterfactualAssumption,
  interventionAssumption,
} from "./causal-inference.ts";

/** A -> B (2), B -> C (0.5), A -> C (1): A confounds B and C. */
const model: CausalModel = {
  variables: ["A", "B", "C"],
  relationships: [
    { cause: "A", effect: "B", strength: 2 },
    { cause: "B", effect: "C", strength: 0.5 },
    { cause: "A", effect: "C", strength: 1 },
  ],
};

const changeOf = (effects: readonly { variable: string; change: number }[], variable: string) =>
  effects.find((effect) => effect.variable === variable)?.change;

/** Random DAGs: edges only go from a lower to a higher index. */
const randomDag = fc.integer({ min: 1, max: 7 }).chain((size) =>
  fc
    .array(fc.record({ from: fc.nat(), to: fc.nat(), strength: fc.double({ min: -3, max: 3, noNaN: true }) }), {
      maxLength: size * 2,
    })
    .map((raw): CausalModel => {
      const seen = new Set<string>();
      const relationships = [];
      for (const { from, to, strength } of raw) {
        const cause = from % size;
        const effect = to % size;
        if (cause >= effect || seen.has(`${cause}>${effect}`)) continue;
        seen.add(`${cause}>${effect}`);
        relationships.push({ cause: `v${cause}`, effect: `v${effect}`, strength });
      }
      return { variables: Array.from({ length: size }, (_, index) => `v${index}`), relationships };
    }),
);

describe("computeIntervention", () => {
  it("propagates do(A += 1) along every path (hand-worked)", () => {
    const result = computeIntervention({ causal_model: model, intervention: { variable: "A", change: 1 } });
    // ΔB = 2·1 = 2; ΔC = 0.5·ΔB + 1·ΔA = 2
    expect(result.effects).toEqual([
      { variable: "A", change: 1, reachable: true },
      { variable: "B", change: 2, reachable: true },
      { variable: "C", change: 2, reachable: true },
    ]);
    expect(result.paths).toEqual([
      { variables: ["A", "B"], product: 2, contribution: 2 },
      { variables: ["A", "B", "C"], product: 1, contribution: 1 },
      { variables: ["A", "C"], product: 1, contribution: 1 },
    ]);
    expect(result.causal_chain).toEqual([
      { step: 1, cause: "A", effect: "B", strength: 2, contribution: 2 },
      { step: 2, cause: "A", effect: "C", strength: 1, contribution: 1 },
      { step: 3, cause: "B", effect: "C", strength: 0.5, contribution: 1 },
    ]);
    expect(result.assumptions).toContain(interventionAssumption);
  });

  it("cuts the relationships into the intervened variable", () => {
    const result = computeIntervention({ causal_model: model, intervention: { variable: "B", change: 4 } });
    expect(result.effects).toEqual([
      { variable: "A", change: 0, reachable: false },
      { variable: "B", change: 4, reachable: true },
      { variable: "C", change: 2, reachable: true },
    ]);
    expect(result.causal_chain.map((link) => `${link.cause}>${link.effect}`)).toEqual(["B>C"]);
  });

  it("reports truncation when paths exceed max_paths", () => {
    const result = computeIntervention({
      causal_model: model,
      intervention: { variable: "A", change: 1 },
      max_paths: 1,
    });
    expect(result.paths_truncated).toBe(true);
    expect(result.paths).toHaveLength(1);
    expect(changeOf(result.effects, "C")).toBe(2); // effects stay exact
  });

  it("equals the sum of its path contributions", () => {
    fc.assert(
      fc.property(randomDag, fc.nat(), fc.double({ min: -5, max: 5, noNaN: true }), (dag, pick, change) => {
        const variable = dag.variables[pick % dag.variables.length] as string;
        const result = computeIntervention({ causal_model: dag, intervention: { variable, change } });
        fc.pre(!result.paths_truncated);
        for (const effect of result.effects) {
          if (effect.variable === variable) continue;
          const total = result.paths
            .filter((path) => path.variables[path.variables.length - 1] === effect.variable)
            .reduce((sum, path) => sum + path.contribution, 0);
          expect(effect.change).toBeCloseTo(total, 9);
        }
      }),
    );
  });

  it("rejects bad input naming the field", () => {
    expectInvalid(
      () => computeIntervention({ causal_model: model, intervention: { variable: "Z", change: 1 } }),
      "intervention.variable",
    );
    expectInvalid(
      () => computeIntervention({ causal_model: model, intervention: { variable: "A", change: Number.NaN } }),
      "intervention.change",
    );
    expectInvalid(
      () => computeIntervention({ causal_model: model, intervention: { variable: "A", change: 1 }, max_paths: 0 }),
      "max_paths",
    );
    const cyclic = {
      variables: ["A", "B"],
      relationships: [
        { cause: "A", effect: "B", strength: 1 },
        { cause: "B", effect: "A", strength: 1 },
      ],
    };
    expectInvalid(
      () => computeIntervention({ causal_model: cyclic, intervention: { variable: "A", change: 1 } }),
      "causal_model.relationships",
    );
  });
});

describe("computeCounterfactual", () => {
  const observed = { A: 1, B: 3, C: 4 };

  it("runs abduction, action and prediction (hand-worked)", () => {
    // Abduction: U_A = 1, U_B = 3 − 2·1 = 1, U_C = 4 − (0.5·3 + 1·1) = 1.5.
    // Action do(B = 5); prediction: A' = 1, C' = 0.5·5 + 1·1 + 1.5 = 5.
    const result = computeCounterfactual({ causal_model: model, observed, intervention: { variable: "B", value: 5 } });
    expect(result.exogenous).toEqual([
      { variable: "A", noise: 1 },
      { variable: "B", noise: 1 },
      { variable: "C", noise: 1.5 },
    ]);
    expect(result.values).toEqual([
      { variable: "A", observed: 1, counterfactual: 1, change: 0 },
      { variable: "B", observed: 3, counterfactual: 5, change: 2 },
      { variable: "C", observed: 4, counterfactual: 5, change: 1 },
    ]);
    expect(result.intervention).toEqual({ variable: "B", value: 5, change: 2 });
    expect(result.causal_chain).toEqual([{ step: 1, cause: "B", effect: "C", strength: 0.5, contribution: 1 }]);
    expect(result.assumptions).toContain(counterfactualAssumption);
  });

  it("changes descendants of a root cause along both paths", () => {
    // Had A been 2: B' = 2·2 + 1 = 5, C' = 0.5·5 + 2 + 1.5 = 6.
    const result = computeCounterfactual({ causal_model: model, observed, intervention: { variable: "A", value: 2 } });
    expect(result.values.map((value) => value.counterfactual)).toEqual([2, 5, 6]);
  });

  it("equals the observed world plus the intervention effect in a linear model", () => {
    fc.assert(
      fc.property(
        randomDag,
        fc.nat(),
        fc.double({ min: -10, max: 10, noNaN: true }),
        fc.array(fc.double({ min: -10, max: 10, noNaN: true }), { minLength: 7, maxLength: 7 }),
        (dag, pick, value, levels) => {
          const variable = dag.variables[pick % dag.variables.length] as string;
          const actual = Object.fromEntries(dag.variables.map((name, index) => [name, levels[index] as number]));
          const counterfactual = computeCounterfactual({
            causal_model: dag,
            observed: actual,
            intervention: { variable, value },
          });
          const intervention = computeIntervention({
            causal_model: dag,
            intervention: { variable, change: value - (actual[variable] as number) },
          });
          counterfactual.values.forEach((entry, index) =>
            expect(entry.change).toBeCloseTo(intervention.effects[index]?.change as number, 8),
          );
        },
      ),
    );
  });

  it("rejects bad input naming the field", () => {
    const intervention = { variable: "B", value: 5 };
    const missing = expectInvalid(
      () => computeCounterfactual({ causal_model: model, observed: { A: 1, B: 3 }, intervention }),
      "observed",
    );
    expect(missing.message).toContain('"C"');
    expectInvalid(
      () => computeCounterfactual({ causal_model: model, observed: { ...observed, D: 1 }, intervention }),
      "observed.D",
    );
    expectInvalid(
      () => computeCounterfactual({ causal_model: model, observed: { ...observed, C: Number.NaN }, intervention }),
      "observed.C",
    );
    expectInvalid(
      () =>
        computeCounterfactual({
          causal_model: model,
          observed: null as unknown as Record<string, number>,
          intervention,
        }),
      "observed",
    );
    expectInvalid(
      () => computeCounterfactual({ causal_model: model, observed, intervention: { variable: "Q", value: 1 } }),
      "intervention.variable",
    );
    expectInvalid(
      () => computeCounterfactual({ causal_model: model, observed, intervention: { variable: "B", value: Infinity } }),
      "intervention.value",
    );
    expectInvalid(
      () => computeCounterfactual({ causal_model: model, observed, intervention, max_paths: 1.5 }),
      "max_paths",
    );
  });
});

describe("computeAssociation", () => {
  it("includes confounding through shared causes (hand-worked, unit noise)", () => {
    // Var B = 2² + 1 = 5, Cov(B, C) = T[A][B]·T[A][C] + T[B][B]·T[B][C] = 2·2 + 1·0.5 = 4.5, Cov(B, A) = 2.
    const result = computeAssociation({ causal_model: model, observation: { variable: "B", change: 1 } });
    const [a, b, c] = result.effects;
    expect(result.effects.map((effect) => effect.relation)).toEqual(["ancestor", "intervened", "descendant"]);
    expect(a?.change).toBeCloseTo(0.4, 12); // reverse association: 2 / 5
    expect(a?.causal_change).toBe(0);
    expect(b?.change).toBeCloseTo(1, 12);
    expect(b?.correlation).toBeCloseTo(1, 12);
    expect(c?.change).toBeCloseTo(0.9, 12); // 4.5 / 5, of which 0.5 is causal
    expect(c?.causal_change).toBe(0.5);
    expect(c?.correlation).toBeCloseTo(4.5 / Math.sqrt(5 * 5.25), 12);
  });

  it("finds association without causation between two effects of one cause", () => {
    const fork: CausalModel = {
      variables: ["Z", "X", "Y"],
      relationships: [
        { cause: "Z", effect: "X", strength: 1 },
        { cause: "Z", effect: "Y", strength: 1 },
      ],
    };
    const result = computeAssociation({
      causal_model: fork,
      observation: { variable: "X", change: 2 },
      noise_variances: { X: 1, Z: 3 },
    });
    // Var X = 3 + 1 = 4, Cov(X, Y) = 3: ΔY = 2·3/4 = 1.5, causally 0.
    expect(result.effects[2]).toMatchObject({ variable: "Y", causal_change: 0, relation: "confounded" });
    const isolated = computeAssociation({
      causal_model: { variables: ["X", "W"], relationships: [] },
      observation: { variable: "X", change: 1 },
    });
    expect(isolated.effects[1]).toMatchObject({ relation: "independent", change: 0, correlation: 0 });
    expect(result.effects[2]?.change).toBeCloseTo(1.5, 12);
  });

  it("rejects bad input naming the field", () => {
    const observation = { variable: "B", change: 1 };
    expectInvalid(
      () => computeAssociation({ causal_model: model, observation: { variable: "Q", change: 1 } }),
      "observation.variable",
    );
    expectInvalid(
      () => computeAssociation({ causal_model: model, observation: { variable: "B", change: Number.NaN } }),
      "observation.change",
    );
    expectInvalid(
      () => computeAssociation({ causal_model: model, observation, noise_variances: { A: 0 } }),
      "noise_variances.A",
    );
    expectInvalid(
      () => computeAssociation({ causal_model: model, observation, noise_variances: { Q: 1 } }),
      "noise_variances.Q",
    );
    expectInvalid(
      () =>
        computeAssociation({
          causal_model: model,
          observation,
          noise_variances: 3 as unknown as Record<string, number>,
        }),
      "noise_variances",
    );
  });
});
