import { type AnalysisDepth, counterfactualTool, type ToolInput, type ToolOutput } from "@deliberate/contracts";
import {
  type CausalEdge,
  type CausalGraph,
  type CausalModel,
  computeAssociation,
  computeCounterfactual,
  computeIntervention,
  type InterventionResult,
  validateCausalModel,
} from "@deliberate/algorithms";
import { runMode } from "@deliberate/engine";
import { type ReasoningContext, defineHandler } from "../../define-handler.ts";
import { completeCallerModel, proposeCausalModel } from "./causal-model-completion.ts";
import { narrativeMode, type NarrativeAnswer } from "./counterfactual.mode.ts";
import { recordAnalysis } from "../../record-analysis.ts";
import { historyMessages, loadSessionHistory } from "../../session-history.ts";

type CounterfactualInput = ToolInput<typeof counterfactualTool>;
type CounterfactualOutput = ToolOutput<typeof counterfactualTool>;
type Effect = CounterfactualOutput["effects"][number];
type ChainStep = CounterfactualOutput["causal_chain"][number];

const format = (value: number): string => String(Number(value.toPrecision(4)));
const signed = (value: number): string => (value > 0 ? `+${format(value)}` : format(value));

/** Changes this small relative to the intervention are floating-point noise, reported as no change. */
function isZero(change: number, delta: number): boolean {
  return Math.abs(change) <= 1e-12 * Math.max(1, Math.abs(delta));
}

/** Descendants of x (reachable along relationships), excluding x. */
function reachable(graph: CausalGraph, x: number, along: "children" | "parents"): Set<number> {
  const seen = new Set<number>();
  const stack = [x];
  while (stack.length > 0) {
    const v = stack.pop() as number;
    for (const edge of graph[along][v] as readonly CausalEdge[]) {
      const next = along === "children" ? edge.effect : edge.cause;
      if (!seen.has(next)) {
        seen.add(next);
        stack.push(next);
      }
    }
  }
  return seen;
}

/** Everything computed for one depth, before any narrative. */
interface Computation {
  effects: Effect[];
  causal_chain: ChainStep[];
  paths: CounterfactualOutput["paths"];
  paths_truncated: boolean;
  semantics: string;
  assumptions: string[];
  /** Code-written outcome and differences, used when the model does not narrate. */
  outcome: string;
  differences: string[];
}

function relationOf(v: number, x: number, descendants: Set<number>, ancestors: Set<number>): Effect["relation"] {
  if (v === x) return "intervened";
  if (descendants.has(v)) return "descendant";
  if (ancestors.has(v)) return "ancestor";
  return "confounded";
}

/** Intervened variable first, then the largest changes, then model order. */
function orderEffects(effects: Effect[], variables: readonly string[]): Effect[] {
  const position = new Map(variables.map((name, index) => [name, index]));
  return effects.sort(
    (left, right) =>
      Number(right.relation === "intervened") - Number(left.relation === "intervened") ||
      Math.abs(right.change) - Math.abs(left.change) ||
      (position.get(left.variable) as number) - (position.get(right.variable) as number),
  );
}

function causalChain(intervention: InterventionResult): ChainStep[] {
  return intervention.causal_chain.map((link) => ({ ...link, causal: true }));
}

/** What every rung starts from: the validated graph, the changed variable and the do() effects of the change. */
interface Setup {
  model: CausalModel;
  graph: CausalGraph;
  target: { variable: string; change: number; value?: number | undefined };
  /** The changed variable's index. */
  x: number;
  delta: number;
  descendants: Set<number>;
  ancestors: Set<number>;
  intervention: InterventionResult;
  paths: Computation["paths"];
  /** "X +d", for outcome sentences. */
  shift: string;
}

/** Rung 1: what observing the change goes together with (Cov/Var in the linear model), split into causal and other shares. */
function associationRung(setup: Setup): Computation {
  const { graph, x, delta, descendants, ancestors, intervention, paths, shift, target, model } = setup;
  const association = computeAssociation({
    causal_model: model,
    observation: { variable: target.variable, change: delta },
  });
  const change = association.effects.map((effect) => effect.change);
  const effects = orderEffects(
    association.effects
      .map((effect, v) => ({ effect, v }))
      .filter(({ effect, v }) => v === x || !isZero(effect.change, delta))
      .map(({ effect, v }) => ({
        variable: effect.variable,
        change: effect.change,
        relation: relationOf(v, x, descendants, ancestors),
      })),
    graph.variables,
  );
  const chain: ChainStep[] = [];
  for (const v of graph.order) {
    const causeChange = change[v] as number;
    if (isZero(causeChange, delta)) continue;
    for (const edge of graph.children[v] as readonly CausalEdge[]) {
      chain.push({
        step: chain.length + 1,
        cause: graph.variables[edge.cause] as string,
        effect: graph.variables[edge.effect] as string,
        strength: edge.strength,
        contribution: edge.strength * causeChange,
        causal: (edge.cause === x || descendants.has(edge.cause)) && descendants.has(edge.effect),
      });
    }
  }
  const byVariable = new Map(association.effects.map((effect) => [effect.variable, effect]));
  const differences = effects
    .filter((effect) => effect.relation !== "intervened")
    .map((effect) => {
      const detail = byVariable.get(effect.variable);
      const causal = detail?.causal_change ?? 0;
      return `${effect.variable}: expected ${signed(effect.change)} alongside (${effect.relation}; causal share ${signed(causal)}, correlation ${format(detail?.correlation ?? 0)})`;
    });
  return {
    effects,
    causal_chain: chain,
    paths,
    paths_truncated: intervention.paths_truncated,
    semantics:
      `Rung 1, association: ${target.variable} is observed (not set) to be ${signed(delta)}; each variable's expected difference is ${signed(delta)} × Cov(${target.variable}, Y) / Var(${target.variable}) ` +
      "in the linear model with independent unit-variance exogenous terms. It mixes causal paths with confounded and reverse associations (relation ancestor/confounded), so it is not a causal claim; the causal share of each is the do() effect.",
    assumptions: association.assumptions,
    outcome:
      differences.length === 0
        ? `Observing ${shift} is not associated with a change in any other variable of the model.`
        : `Observing ${shift} goes together with ${effects
            .filter((effect) => effect.relation !== "intervened")
            .map((effect) => `${effect.variable} ${signed(effect.change)}`)
            .join(", ")} (associations, not effects of the change).`,
    differences,
  };
}

/** The variables that moved (and the changed one), in the model's order, with what `extra` adds per variable. */
function effectsFrom(setup: Setup, extra: (variable: string) => Partial<Effect>): Effect[] {
  const { graph, x, delta, descendants, ancestors, intervention } = setup;
  return orderEffects(
    intervention.effects
      .map((effect, v) => ({ effect, v }))
      .filter(({ effect, v }) => v === x || !isZero(effect.change, delta))
      .map(({ effect, v }) => ({
        variable: effect.variable,
        change: effect.change,
        relation: relationOf(v, x, descendants, ancestors),
        ...extra(effect.variable),
      })),
    graph.variables,
  );
}

/** Rung 2: do(X := X + d) — each descendant moves by the change times the summed path products; nothing upstream moves. */
function interventionRung(setup: Setup): Computation {
  const { delta, intervention, paths, shift, target } = setup;
  const effects = effectsFrom(setup, () => ({}));
  const moved = effects.filter((effect) => effect.relation !== "intervened");
  return {
    effects,
    causal_chain: causalChain(intervention),
    paths,
    paths_truncated: intervention.paths_truncated,
    semantics:
      `Rung 2, intervention: do(${target.variable} := ${target.variable} ${signed(delta)}) cuts every relationship into ${target.variable}; ` +
      "each descendant Y changes by the change × Σ over directed paths of the product of strengths (effects multiply along a path and add across paths). Ancestors and unrelated variables do not change.",
    assumptions: intervention.assumptions,
    outcome:
      moved.length === 0
        ? `Setting ${shift} changes nothing else: ${target.variable} has no descendants in the model.`
        : `Setting ${shift} changes ${moved.map((effect) => `${effect.variable} by ${signed(effect.change)}`).join(", ")}; nothing upstream of ${target.variable} moves.`,
    differences: moved.map((effect) => {
      const through = paths.filter((path) => path.variables.at(-1) === effect.variable);
      return `${effect.variable}: ${signed(effect.change)} via ${through.map((path) => `${path.variables.join(" -> ")} (${signed(path.contribution)})`).join(" + ")}`;
    }),
  };
}

/** Rung 3 with every variable observed: the exogenous terms are recovered exactly (abduction, action, prediction). */
function fullCounterfactualRung(setup: Setup, observed: Readonly<Record<string, number>>): Computation {
  const { delta, intervention, paths, target, model } = setup;
  const value = target.value ?? (observed[target.variable] as number) + delta;
  const counterfactual = computeCounterfactual({
    causal_model: model,
    observed,
    intervention: { variable: target.variable, value },
  });
  const values = new Map(counterfactual.values.map((entry) => [entry.variable, entry]));
  const effects = effectsFrom(setup, (variable) => {
    const entry = values.get(variable);
    return entry === undefined
      ? {}
      : { factual: entry.observed, counterfactual: entry.counterfactual, change: entry.change };
  });
  const moved = effects.filter((effect) => effect.relation !== "intervened");
  return {
    effects,
    causal_chain: causalChain(intervention),
    paths,
    paths_truncated: intervention.paths_truncated,
    semantics:
      "Rung 3, counterfactual: abduction (each variable's exogenous term = observed value − Σ strength × observed causes), " +
      `action (${target.variable} := ${format(value)} instead of ${format(observed[target.variable] as number)}, cutting its incoming relationships), ` +
      "prediction (descendants recomputed in causal order with the exogenous terms held fixed). Variables that are not descendants keep their observed values.",
    assumptions: counterfactual.assumptions,
    outcome:
      `Had ${target.variable} been ${format(value)} instead of ${format(observed[target.variable] as number)}, ` +
      (moved.length === 0
        ? "nothing else in this scenario would have been different."
        : `${moved.map((effect) => `${effect.variable} would have been ${format(effect.counterfactual as number)} instead of ${format(effect.factual as number)}`).join(", ")}.`),
    differences: moved.map(
      (effect) =>
        `${effect.variable}: ${format(effect.factual as number)} -> ${format(effect.counterfactual as number)} (${signed(effect.change)})`,
    ),
  };
}

/** Rung 3 with some values missing: unit-level differences (equal to the intervention effect in a linear model). */
function partialCounterfactualRung(setup: Setup, observed: Readonly<Record<string, number>> | undefined): Computation {
  const { delta, intervention, paths, target } = setup;
  const changes = new Map(intervention.effects.map((effect) => [effect.variable, effect.change]));
  const effects = effectsFrom(setup, (variable) => {
    const factual = observed?.[variable];
    return factual === undefined ? {} : { factual, counterfactual: factual + (changes.get(variable) as number) };
  });
  const moved = effects.filter((effect) => effect.relation !== "intervened");
  return {
    effects,
    causal_chain: causalChain(intervention),
    paths,
    paths_truncated: intervention.paths_truncated,
    semantics:
      `Rung 3, counterfactual: had ${target.variable} been ${signed(delta)} different in this scenario, with its background (exogenous terms) held fixed. ` +
      "In a linear model this unit-level difference equals the intervention effect whatever the background, so counterfactual = factual + change for every observed variable; " +
      "give observed values for every variable to have the background terms recovered and every counterfactual value reported.",
    assumptions: [
      ...intervention.assumptions,
      "Counterfactual differences hold the scenario's background conditions fixed; values not observed are reported as differences only.",
    ],
    outcome:
      moved.length === 0
        ? `Had ${target.variable} been ${signed(delta)} different, nothing else in the model would have been different.`
        : `Had ${target.variable} been ${signed(delta)} different, ${moved
            .map((effect) =>
              effect.factual !== undefined
                ? `${effect.variable} would have been ${format(effect.counterfactual as number)} instead of ${format(effect.factual)}`
                : `${effect.variable} would have differed by ${signed(effect.change)}`,
            )
            .join(", ")}.`,
    differences: moved.map((effect) =>
      effect.factual !== undefined
        ? `${effect.variable}: ${format(effect.factual)} -> ${format(effect.counterfactual as number)} (${signed(effect.change)})`
        : `${effect.variable}: ${signed(effect.change)}`,
    ),
  };
}

function compute(
  depth: AnalysisDepth,
  model: CausalModel,
  target: { variable: string; change: number; value?: number | undefined },
  observed: Readonly<Record<string, number>> | undefined,
): Computation {
  const graph = validateCausalModel(model);
  const x = graph.indexOf.get(target.variable) as number;
  const delta = target.change;
  const descendants = reachable(graph, x, "children");
  const ancestors = reachable(graph, x, "parents");
  const intervention = computeIntervention({
    causal_model: model,
    intervention: { variable: target.variable, change: delta },
  });
  const paths = intervention.paths.map(({ variables, product, contribution }) => ({
    variables,
    product,
    contribution,
  }));
  const shift = `${target.variable} ${signed(delta)}`;

  const setup: Setup = { model, graph, target, x, delta, descendants, ancestors, intervention, paths, shift };
  if (depth === "association") return associationRung(setup);
  if (depth === "intervention") return interventionRung(setup);
  // Rung 3. With every variable observed the exogenous terms are recovered exactly (abduction-action-prediction).
  const complete = observed !== undefined && graph.variables.every((variable) => observed[variable] !== undefined);
  return complete ? fullCounterfactualRung(setup, observed) : partialCounterfactualRung(setup, observed);
}

function renderForPrompt(
  model: CausalModel,
  target: { variable: string; change: number },
  computation: Computation,
): string {
  return [
    "Causal model (linear; strength = change in effect per unit change in cause):",
    ...model.relationships.map(
      (relationship) => `- ${relationship.cause} -> ${relationship.effect}: ${relationship.strength}`,
    ),
    `Intervention: ${target.variable} ${signed(target.change)}`,
    `How it was computed: ${computation.semantics}`,
    "Computed result:",
    computation.outcome,
    ...computation.differences.map((line) => `- ${line}`),
  ].join("\n");
}

export const counterfactualHandler = defineHandler(
  counterfactualTool,
  async (input: CounterfactualInput, context: ReasoningContext) => {
    const history = await loadSessionHistory(context, input.session_id);
    const messages = { history: historyMessages(history) };
    // Without an intervention the scenario states the what-if (e.g. when reasoning_auto routes a question here).
    const interventionText = input.intervention ?? "the what-if change stated in the scenario";
    const given = input.causal_model;
    // A caller's model is checked (structure and cycles) before any model call; missing strengths do not affect that check.
    if (given !== undefined) {
      validateCausalModel({
        variables: given.variables,
        relationships: given.relationships.map((relationship) => ({
          ...relationship,
          strength: relationship.strength ?? 1,
        })),
      });
    }

    const observed = input.observed;
    // Model steps, known up front so progress can say "1 of 3": proposing the variables and then their links (or
    // completing the caller's model), then the narrative.
    const completes =
      given === undefined ||
      input.intervention_target === undefined ||
      given.relationships.some((relationship) => relationship.strength === undefined);
    const narrates = input.narrate ?? completes;
    const steps = (given === undefined ? 2 : Number(completes)) + Number(narrates);
    const call = { input, intervention: interventionText, messages, steps };
    const completed =
      given === undefined ? await proposeCausalModel(context, call) : await completeCallerModel(context, call, given);
    const { model, modelSource, estimatedStrengths, target, targetSource, rationale: modelRationale } = completed;

    const computation = compute(input.analysis_depth, model, target, observed);

    let narrative: NarrativeAnswer | undefined;
    if (narrates) {
      narrative = await runMode(
        context,
        narrativeMode,
        {
          scenario: input.scenario,
          intervention: interventionText,
          depth: input.analysis_depth,
          computed: renderForPrompt(model, target, computation),
        },
        messages,
      );
      context.progress({ progress: steps, total: steps, message: "narrative written" });
    }

    const assumptions = [...computation.assumptions, ...(narrative?.assumptions ?? [])];
    if (modelRationale !== undefined) {
      const parts = [
        modelSource === "model" ? "the causal model" : estimatedStrengths.size > 0 ? "the missing strengths" : "",
        targetSource === "model" ? "the intervention's variable and size" : "",
      ].filter((part) => part !== "");
      assumptions.push(`The model judged ${parts.join(" and ")}: ${modelRationale}`);
    }
    const result = {
      original_scenario: input.scenario,
      intervention_applied: input.intervention ?? `${target.variable} ${signed(target.change)}`,
      analysis_depth: input.analysis_depth,
      causal_model: {
        variables: [...model.variables],
        relationships: model.relationships.map((relationship, index) => ({
          ...relationship,
          estimated: estimatedStrengths.has(index),
        })),
        source: modelSource,
      },
      intervention_target: { ...target, source: targetSource },
      causal_chain: computation.causal_chain,
      paths: computation.paths,
      paths_truncated: computation.paths_truncated,
      effects: computation.effects,
      semantics: computation.semantics,
      counterfactual_outcome: narrative?.counterfactual_outcome ?? computation.outcome,
      key_differences:
        narrative?.key_differences ??
        (computation.differences.length > 0 ? computation.differences : ["No other variable changes."]),
      ...(narrative !== undefined ? { confidence: narrative.confidence } : {}),
      assumptions,
      narrative_source: narrative === undefined ? ("computed" as const) : ("model" as const),
    };
    const thoughtId = await recordAnalysis(context, history, {
      mode: "counterfactual",
      content: result.counterfactual_outcome,
      confidence: narrative?.confidence ?? null,
      metadata: { observed: observed ?? null, ...result },
    });
    return { session_id: history.sessionId, thought_id: thoughtId, ...result };
  },
);
