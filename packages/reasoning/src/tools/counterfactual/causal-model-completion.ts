import type { CausalModel } from "@deliberate/algorithms";
import type { counterfactualTool, ToolInput } from "@deliberate/contracts";
import { type RunModeOptions, runMode } from "@deliberate/engine";
import type { ReasoningContext } from "../../define-handler.ts";
import {
  createCausalLinksMode,
  createCausalMappingMode,
  createCausalVariablesMode,
  linksPossible,
  type MappingAnswer,
} from "./counterfactual.mode.ts";

type CounterfactualInput = ToolInput<typeof counterfactualTool>;

/** The causal model an analysis runs on and the intervention's target, with what the model judged of them. */
export interface CompletedCausalModel {
  model: CausalModel;
  modelSource: "caller" | "model";
  /** Indexes of relationships whose strength the model judged. */
  estimatedStrengths: ReadonlySet<number>;
  target: { variable: string; change: number; value?: number };
  targetSource: "caller" | "model";
  /** The model's reasons, when it judged anything. */
  rationale: string | undefined;
}

/** What the completion steps share: the call's input, its what-if text, the session history and the step count for progress. */
export interface CompletionCall {
  input: CounterfactualInput;
  intervention: string;
  messages: RunModeOptions;
  steps: number;
}

/**
 * Without a caller's model, the model proposes one in two dependent steps, so
 * that following each schema is enough: the variables with causal levels
 * (and the target, unless given), then the links, whose possible causes are
 * the lower-level variables (a DAG over the listed variables by construction).
 * The links step is skipped when every variable is on one level.
 */
export async function proposeCausalModel(
  context: ReasoningContext,
  call: CompletionCall,
): Promise<CompletedCausalModel> {
  const { input } = call;
  const callerTarget = input.intervention_target;
  const needs = {
    scenario: input.scenario,
    intervention: call.intervention,
    depth: input.analysis_depth,
    target:
      callerTarget === undefined
        ? undefined
        : { variable: callerTarget.variable, change: callerTarget.change as number },
    observed: Object.keys(input.observed ?? {}),
  };
  const proposal = await runMode(context, createCausalVariablesMode(needs), needs, call.messages);
  context.progress({ progress: 1, total: call.steps, message: "causal variables proposed" });
  const linkNeeds = { scenario: input.scenario, intervention: call.intervention, variables: proposal.variables };
  const links = linksPossible(proposal.variables)
    ? await runMode(context, createCausalLinksMode(linkNeeds), linkNeeds, call.messages)
    : undefined;
  context.progress({
    progress: 2,
    total: call.steps,
    message: links === undefined ? "no links to ask for: every variable is on one level" : "causal links proposed",
  });
  const relationships = links?.relationships ?? [];
  return {
    model: { variables: proposal.variables.map((variable) => variable.name), relationships },
    modelSource: "model",
    estimatedStrengths: new Set(relationships.map((_, index) => index)),
    ...(callerTarget !== undefined
      ? {
          target: { variable: callerTarget.variable, change: callerTarget.change as number },
          targetSource: "caller" as const,
        }
      : {
          target: proposal.intervention_target as { variable: string; change: number },
          targetSource: "model" as const,
        }),
    rationale: links === undefined ? proposal.rationale : `${proposal.rationale} ${links.rationale}`.trim(),
  };
}

/**
 * With a caller's model, the model is asked (once) only for what it leaves
 * out: missing strengths, keyed by relationship index, and the target when
 * none is given. A complete model with its target asks nothing.
 */
export async function completeCallerModel(
  context: ReasoningContext,
  call: CompletionCall,
  given: NonNullable<CounterfactualInput["causal_model"]>,
): Promise<CompletedCausalModel> {
  const { input } = call;
  const callerTarget = input.intervention_target;
  const missingStrengths = given.relationships.flatMap((relationship, index) =>
    relationship.strength === undefined ? [index] : [],
  );
  let mapping: MappingAnswer | undefined;
  if (missingStrengths.length > 0 || callerTarget === undefined) {
    const needs = {
      scenario: input.scenario,
      intervention: call.intervention,
      variables: given.variables,
      relationships: given.relationships,
      missingStrengths,
      needTarget: callerTarget === undefined,
    };
    mapping = await runMode(context, createCausalMappingMode(needs), needs, call.messages);
    context.progress({ progress: 1, total: call.steps, message: "causal model completed" });
  }
  const strengths = new Map((mapping?.strengths ?? []).map((entry) => [entry.relationship, entry.strength]));
  const target =
    callerTarget !== undefined
      ? {
          variable: callerTarget.variable,
          change:
            callerTarget.change ?? (callerTarget.value as number) - (input.observed?.[callerTarget.variable] as number),
          ...(callerTarget.value !== undefined ? { value: callerTarget.value } : {}),
        }
      : (mapping?.intervention_target as { variable: string; change: number });
  return {
    model: {
      variables: given.variables,
      relationships: given.relationships.map((relationship, index) => ({
        cause: relationship.cause,
        effect: relationship.effect,
        strength: relationship.strength ?? (strengths.get(index) as number),
      })),
    },
    modelSource: "caller",
    estimatedStrengths: new Set(missingStrengths),
    target,
    targetSource: callerTarget !== undefined ? "caller" : "model",
    rationale: mapping?.rationale,
  };
}
