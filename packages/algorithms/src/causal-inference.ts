import {
  type CausalEdge,
  type CausalGraph,
  type CausalModel,
  type CausalPath,
  defaultMaxCausalPaths,
  enumerateCausalPaths,
  validateCausalModel,
} from "./causal-dag.ts";
import { describeValue, IssueList } from "./invalid-input.ts";

/** Assumptions shared by every rung computed here, worded for inclusion in a response. */
export const linearCausalModelAssumptions: readonly string[] = [
  "Linear structural causal model: each variable equals the sum of strength x cause over its listed causes plus an independent exogenous term (additive, no interactions, no thresholds).",
  "The model is complete: every common cause of two modelled variables is itself modelled (no hidden confounding).",
  "Relationships are acyclic: no feedback loops within one step.",
];

/** Extra assumption of {@link computeAssociation}. */
export const associationAssumption =
  "Association is the best linear prediction E[Y | X] with uncorrelated exogenous terms of the given variances (default 1); it mixes causal paths with confounded and reverse (non-causal) ones.";

/** Extra assumption of {@link computeIntervention}. */
export const interventionAssumption =
  "do(X) (Pearl's do-operator) sets X from outside: every relationship into X is cut, so only X's descendants change, by the sum over directed paths of the product of strengths.";

/** Extra assumption of {@link computeCounterfactual}. */
export const counterfactualAssumption =
  "Every variable is observed in the actual world, so its exogenous term is recovered exactly (abduction); those terms are held fixed while X is set (action) and its descendants are recomputed (prediction).";

/** A change applied to (or observed in) one variable. */
export interface VariableChange {
  variable: string;
  change: number;
}

/** One directed path from the intervened variable and the change it carries. */
export interface CausalPathContribution extends CausalPath {
  /** `product · change of the intervened variable`. */
  contribution: number;
}

/** One relationship along which the change flows; maps onto `causal_chain` of spec 3.13. */
export interface CausalChainLink {
  /** 1-based, in topological order of the cause, then relationship input order. */
  step: number;
  cause: string;
  effect: string;
  strength: number;
  /** Change transmitted along this link: `strength · change(cause)`. */
  contribution: number;
}

/** Effect of an intervention on one variable. */
export interface InterventionEffect extends VariableChange {
  /** Whether the variable is the intervened one or one of its descendants. */
  reachable: boolean;
}

/** Input of {@link computeIntervention}. */
export interface InterventionInput {
  causal_model: CausalModel;
  /** do(variable := its value + change). */
  intervention: VariableChange;
  /** Cap on enumerated paths, 1..100,000; default 1,000. */
  max_paths?: number;
}

/** Result of {@link computeIntervention}. */
export interface InterventionResult {
  intervention: VariableChange;
  /** Every variable, in `variables` order; variables that are not descendants change by 0. */
  effects: InterventionEffect[];
  /** Directed paths from the intervened variable to each descendant, depth-first in relationship order. */
  paths: CausalPathContribution[];
  /** True when `max_paths` cut the enumeration short (effects are still exact). */
  paths_truncated: boolean;
  causal_chain: CausalChainLink[];
  assumptions: string[];
}

/**
 * Rung 2 of Pearl's ladder, intervention, on a linear structural model:
 * `do(X := x + δ)`. Relationships into X are cut (X is set from outside);
 * then in topological order each other variable changes by
 * `Δ_v = Σ_{u → v} strength_uv · Δ_u`, with `Δ_X = δ`. Equivalently
 * `Δ_Y = δ · Σ_{paths X ⇝ Y} Π strengths` (path tracing), which the listed
 * path contributions show (they sum to `Δ_Y` unless truncated). Exact in
 * O(V log V + E) plus the capped path enumeration.
 *
 * Throws INVALID_INPUT naming the field for an invalid or cyclic model (the
 * cycle is named), an unknown intervention variable, a non-finite change
 * or a bad `max_paths`.
 */
export function computeIntervention(input: InterventionInput): InterventionResult {
  const maxPaths = checkMaxPaths(input.max_paths);
  const graph = validateCausalModel(input.causal_model);
  const issues = new IssueList();
  const variable = checkVariable(issues, graph, input.intervention?.variable, "intervention.variable");
  issues.finite(input.intervention?.change, "intervention.change");
  issues.throwIfAny("intervention names one of causal_model.variables and the finite change applied to it.");
  return interventionOn(graph, variable as number, input.intervention.change, maxPaths, [
    ...linearCausalModelAssumptions,
    interventionAssumption,
  ]);
}

/** Input of {@link computeAssociation}. */
export interface AssociationInput {
  causal_model: CausalModel;
  /** X is observed to be higher by `change` than expected. */
  observation: VariableChange;
  /** Variance of each variable's exogenous term, > 0; default 1 for every variable. */
  noise_variances?: Readonly<Record<string, number>>;
}

/**
 * How a variable relates to the observed one X: X itself, a descendant of X
 * (causally downstream, possibly also confounded), an ancestor of X
 * (reverse association), confounded (neither, but sharing a cause), or
 * independent (no association).
 */
export type AssociationRelation = "intervened" | "descendant" | "ancestor" | "confounded" | "independent";

/** Association of one variable with the observed one. */
export interface AssociationEffect extends VariableChange {
  relation: AssociationRelation;
  /** `Cov(X, Y) / Var(X)`: expected change of Y per unit observed change of X. */
  regression_coefficient: number;
  /** `Cov(X, Y) / sqrt(Var(X)·Var(Y))`, in [−1, 1]. */
  correlation: number;
  /** The causal part: Y's change under do(X := x + change) (0 unless Y descends from X). */
  causal_change: number;
}

/** Result of {@link computeAssociation}. */
export interface AssociationResult {
  observation: VariableChange;
  /** Every variable, in `variables` order. */
  effects: AssociationEffect[];
  assumptions: string[];
}

/**
 * Rung 1 of Pearl's ladder, association: how much each variable is expected
 * to differ when X is *observed* (not set) to differ by δ, in a linear
 * structural model `V = Bᵀ·V + U` with uncorrelated exogenous terms U of
 * variance σ² (default 1 each).
 *
 * With `T[u][v]` = total effect of u on v (sum over directed paths of the
 * product of strengths, `T[v][v] = 1`):
 * `Cov(a, b) = Σ_u σ²_u · T[u][a] · T[u][b]`, and the expected change of Y is
 * `δ · Cov(X, Y) / Var(X)` (the regression of Y on X). Unlike
 * {@link computeIntervention} this includes confounding through shared
 * causes and reverse association with X's causes; `causal_change` shows the
 * causal share. O(V·(V + E)).
 *
 * Throws INVALID_INPUT naming the field for an invalid or cyclic model, an
 * unknown variable, a non-finite change, or a noise variance that is not a
 * positive finite number or names an unknown variable.
 */
export function computeAssociation(input: AssociationInput): AssociationResult {
  const graph = validateCausalModel(input.causal_model);
  const issues = new IssueList();
  const observed = checkVariable(issues, graph, input.observation?.variable, "observation.variable");
  issues.finite(input.observation?.change, "observation.change");
  const variances = graph.variables.map(() => 1);
  if (input.noise_variances !== undefined) {
    if (input.noise_variances === null || typeof input.noise_variances !== "object") {
      issues.add(
        "noise_variances",
        `must be an object of variable name -> variance, got ${describeValue(input.noise_variances)}`,
      );
    } else {
      for (const [name, variance] of Object.entries(input.noise_variances)) {
        const index = graph.indexOf.get(name);
        if (index === undefined) issues.add(`noise_variances.${name}`, "is not one of causal_model.variables");
        else if (issues.finite(variance, `noise_variances.${name}`) && variance <= 0)
          issues.add(`noise_variances.${name}`, `must be positive, got ${variance}`);
        else variances[index] = variance;
      }
    }
  }
  issues.throwIfAny("observation names one of causal_model.variables and the finite change observed in it.");
  const x = observed as number;
  const delta = input.observation.change;
  const count = graph.variables.length;
  const covariance = new Float64Array(count);
  const variance = new Float64Array(count);
  // Only causes of X (and X itself) load on X, so only their exogenous terms contribute to Cov(X, ·).
  for (const source of ancestorsOrSelf(graph, x)) {
    const total = totalEffects(graph, source, -1);
    const sigma = variances[source] as number;
    const loading = total[x] as number;
    for (let v = 0; v < count; v += 1)
      covariance[v] = (covariance[v] as number) + sigma * loading * (total[v] as number);
  }
  for (let source = 0; source < count; source += 1) {
    const total = totalEffects(graph, source, -1);
    const sigma = variances[source] as number;
    for (let v = 0; v < count; v += 1) variance[v] = (variance[v] as number) + sigma * (total[v] as number) ** 2;
  }
  const causal = totalEffects(graph, x, x);
  const descendant = descendantsOf(graph, x);
  const ancestor = new Set(ancestorsOrSelf(graph, x));
  const varianceOfX = variance[x] as number;
  const effects = graph.variables.map((variable, v): AssociationEffect => {
    const coefficient = (covariance[v] as number) / varianceOfX;
    const correlation = (covariance[v] as number) / Math.sqrt(varianceOfX * (variance[v] as number));
    let relation: AssociationRelation = "independent";
    if (v === x) relation = "intervened";
    else if (descendant[v] === 1) relation = "descendant";
    else if (ancestor.has(v)) relation = "ancestor";
    else if (covariance[v] !== 0) relation = "confounded";
    return {
      variable,
      relation,
      change: delta * coefficient,
      regression_coefficient: coefficient,
      correlation: Math.max(-1, Math.min(1, correlation)),
      causal_change: delta * (causal[v] as number),
    };
  });
  return {
    observation: { variable: graph.variables[x] as string, change: delta },
    effects,
    assumptions: [...linearCausalModelAssumptions, associationAssumption],
  };
}

/** Input of {@link computeCounterfactual}. */
export interface CounterfactualInput {
  causal_model: CausalModel;
  /** The actual world: a finite value for every variable. */
  observed: Readonly<Record<string, number>>;
  /** "Had X been `value`": do(variable := value). */
  intervention: { variable: string; value: number };
  /** Cap on enumerated paths, 1..100,000; default 1,000. */
  max_paths?: number;
}

/** One variable in the actual and the counterfactual world. */
export interface CounterfactualValue {
  variable: string;
  observed: number;
  counterfactual: number;
  /** `counterfactual − observed`. */
  change: number;
}

/** Result of {@link computeCounterfactual}. */
export interface CounterfactualResult {
  intervention: { variable: string; value: number; change: number };
  /** Recovered exogenous term per variable, in `variables` order. */
  exogenous: { variable: string; noise: number }[];
  /** Every variable, in `variables` order. */
  values: CounterfactualValue[];
  paths: CausalPathContribution[];
  paths_truncated: boolean;
  causal_chain: CausalChainLink[];
  assumptions: string[];
}

/**
 * Rung 3 of Pearl's ladder, counterfactual, on a linear structural model
 * `v = Σ_{u → v} strength_uv · u + U_v`, by abduction–action–prediction:
 * 1. Abduction: `U_v = observed_v − Σ_{u → v} strength_uv · observed_u`
 *    (exact, because every variable is observed).
 * 2. Action: do(X := value) — cut the relationships into X.
 * 3. Prediction: in topological order, `v' = Σ_{u → v} strength_uv · u' + U_v`
 *    for v ≠ X, `X' = value`.
 * In a linear model this equals the observed world plus the intervention
 * effect of `value − observed_X` (non-descendants of X keep their observed
 * values); paths and the causal chain are reported for that change.
 *
 * Throws INVALID_INPUT naming the field for an invalid or cyclic model, an
 * unknown intervention variable, a non-finite value, an observed value that
 * is missing, non-finite or names an unknown variable (`observed.<name>`),
 * or a bad `max_paths`.
 */
export function computeCounterfactual(input: CounterfactualInput): CounterfactualResult {
  const maxPaths = checkMaxPaths(input.max_paths);
  const graph = validateCausalModel(input.causal_model);
  const issues = new IssueList();
  const target = checkVariable(issues, graph, input.intervention?.variable, "intervention.variable");
  issues.finite(input.intervention?.value, "intervention.value");
  const observed = input.observed;
  if (observed === null || typeof observed !== "object") {
    issues.add("observed", `must be an object of variable name -> observed value, got ${describeValue(observed)}`);
  } else {
    const missing = graph.variables.filter((variable) => !Object.hasOwn(observed, variable));
    if (missing.length > 0) {
      issues.add(
        "observed",
        `is missing ${missing.map((name) => JSON.stringify(name)).join(", ")}; a counterfactual needs the observed value of every variable`,
      );
    }
    for (const [name, value] of Object.entries(observed)) {
      if (!graph.indexOf.has(name)) issues.add(`observed.${name}`, "is not one of causal_model.variables");
      else issues.finite(value, `observed.${name}`);
    }
  }
  issues.throwIfAny("Give observed values for every variable of the model, and intervention {variable, value}.");
  const x = target as number;
  const actual = graph.variables.map((variable) => observed[variable] as number);
  const noise = actual.map((value, v) => value - weightedParents(graph.parents[v] as readonly CausalEdge[], actual));
  const counterfactual = actual.slice();
  counterfactual[x] = input.intervention.value;
  for (const v of graph.order) {
    if (v === x) continue;
    counterfactual[v] =
      weightedParents(graph.parents[v] as readonly CausalEdge[], counterfactual) + (noise[v] as number);
  }
  const change = input.intervention.value - (actual[x] as number);
  const intervention = interventionOn(graph, x, change, maxPaths, []);
  return {
    intervention: { variable: graph.variables[x] as string, value: input.intervention.value, change },
    exogenous: graph.variables.map((variable, v) => ({ variable, noise: noise[v] as number })),
    values: graph.variables.map((variable, v) => ({
      variable,
      observed: actual[v] as number,
      counterfactual: counterfactual[v] as number,
      change: (counterfactual[v] as number) - (actual[v] as number),
    })),
    paths: intervention.paths,
    paths_truncated: intervention.paths_truncated,
    causal_chain: intervention.causal_chain,
    assumptions: [...linearCausalModelAssumptions, counterfactualAssumption],
  };
}

function interventionOn(
  graph: CausalGraph,
  x: number,
  delta: number,
  maxPaths: number,
  assumptions: string[],
): InterventionResult {
  const change = totalEffects(graph, x, x).map((effect) => effect * delta);
  const reachable = new Uint8Array(graph.variables.length);
  reachable[x] = 1;
  const chain: CausalChainLink[] = [];
  for (const v of graph.order) {
    if (reachable[v] !== 1) continue;
    for (const edge of graph.children[v] as readonly CausalEdge[]) {
      reachable[edge.effect] = 1;
      chain.push({
        step: chain.length + 1,
        cause: graph.variables[edge.cause] as string,
        effect: graph.variables[edge.effect] as string,
        strength: edge.strength,
        contribution: edge.strength * (change[edge.cause] as number),
      });
    }
  }
  const { paths, truncated } = enumerateCausalPaths(graph, { from: x, maxPaths });
  return {
    intervention: { variable: graph.variables[x] as string, change: delta },
    effects: graph.variables.map((variable, v) => ({
      variable,
      change: change[v] as number,
      reachable: reachable[v] === 1,
    })),
    paths: paths.map((path) => ({ ...path, contribution: path.product * delta })),
    paths_truncated: truncated,
    causal_chain: chain,
    assumptions,
  };
}

/**
 * Total effect of a unit change in `source` on every variable, propagated in
 * topological order. When `cut` is a variable index, relationships into it
 * are ignored (do-operator); pass −1 to keep them all.
 */
function totalEffects(graph: CausalGraph, source: number, cut: number): number[] {
  const effect = new Array<number>(graph.variables.length).fill(0);
  effect[source] = 1;
  for (const v of graph.order) {
    if (v === source || v === cut) continue;
    let total = 0;
    for (const edge of graph.parents[v] as readonly CausalEdge[])
      total += edge.strength * (effect[edge.cause] as number);
    effect[v] = total;
  }
  return effect;
}

function descendantsOf(graph: CausalGraph, source: number): Uint8Array {
  const seen = new Uint8Array(graph.variables.length);
  const stack = [source];
  while (stack.length > 0) {
    const v = stack.pop() as number;
    for (const edge of graph.children[v] as readonly CausalEdge[]) {
      if (seen[edge.effect] !== 1) {
        seen[edge.effect] = 1;
        stack.push(edge.effect);
      }
    }
  }
  return seen;
}

function ancestorsOrSelf(graph: CausalGraph, target: number): number[] {
  const seen = new Uint8Array(graph.variables.length);
  seen[target] = 1;
  const stack = [target];
  const result: number[] = [];
  while (stack.length > 0) {
    const v = stack.pop() as number;
    result.push(v);
    for (const edge of graph.parents[v] as readonly CausalEdge[]) {
      if (seen[edge.cause] !== 1) {
        seen[edge.cause] = 1;
        stack.push(edge.cause);
      }
    }
  }
  return result.sort((left, right) => left - right);
}

function weightedParents(parents: readonly CausalEdge[], values: readonly number[]): number {
  let total = 0;
  for (const edge of parents) total += edge.strength * (values[edge.cause] as number);
  return total;
}

function checkVariable(issues: IssueList, graph: CausalGraph, name: unknown, field: string): number | undefined {
  const index = typeof name === "string" ? graph.indexOf.get(name) : undefined;
  if (index === undefined) issues.add(field, `must be one of causal_model.variables, got ${describeValue(name)}`);
  return index;
}

function checkMaxPaths(value: number | undefined): number {
  const maxPaths = value ?? defaultMaxCausalPaths;
  const issues = new IssueList();
  issues.integer(maxPaths, "max_paths", 1, 100_000);
  issues.throwIfAny();
  return maxPaths;
}
