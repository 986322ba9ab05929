import { z } from "zod";
import { defineMode, type ModeDeclaration } from "@deliberate/engine";
import { lazySchema } from "@deliberate/contracts";

/** The `mcts` mode and its default model settings, declared on every `mcts` definition (the engine layers configuration and runtime overrides on top). */
export const mctsModeDeclaration: ModeDeclaration = {
  mode: "mcts",
  settings: { temperature: 0.7, maxTokens: 2500, thinkingBudget: 16384, stream: true },
};

/** Renders a search path (problem first) for a prompt. */
export function formatSearchPath(steps: readonly string[], charactersPerStep = 1000): string {
  const lines = steps.map((step, index) => {
    const text = step.length > charactersPerStep ? `${step.slice(0, charactersPerStep)}…` : step;
    return index === 0 ? `Problem: ${text}` : `Step ${index}: ${text}`;
  });
  return lines.join("\n");
}

export const mctsExpansionAnswerSchema = lazySchema(() =>
  z.object({
    steps: z
      .array(z.string().min(1).describe("One candidate next reasoning step"))
      .min(1)
      .max(5)
      .describe("Distinct candidate next steps, each a different move"),
  }),
);

/** Expansion: the model proposes candidate next steps (the moves of the search). */
export const mctsExpansionMode = defineMode({
  ...mctsModeDeclaration,
  name: "mcts_expand",
  description: "Distinct candidate next steps from a partial line of reasoning.",
  system: [
    "You propose moves for a Monte Carlo tree search over reasoning, for another AI agent.",
    "Given a problem and the steps taken so far, propose distinct candidate next steps. Each must be a concrete move (a claim, a calculation, a decision, a test) that differs in substance from the others, not a rewording.",
  ].join("\n"),
  prompt: (input: { path: string; count: number }) =>
    `${input.path}\n\nPropose exactly ${input.count} distinct candidate next step(s).`,
  output: mctsExpansionAnswerSchema,
});

export const mctsEvaluationAnswerSchema = lazySchema(() =>
  z.object({
    value: z
      .number()
      .min(0)
      .max(1)
      .describe("How likely this line of reasoning is to lead to a correct, useful solution, 0..1"),
    reaches_conclusion: z
      .boolean()
      .describe("True when the last step already is a complete answer (the line need not be extended)"),
    rationale: z.string().min(1).describe("One or two sentences"),
  }),
);

/** Evaluation: the model judges a line of reasoning (the simulation's reward, 0..1). */
export const mctsEvaluationMode = defineMode({
  ...mctsModeDeclaration,
  name: "mcts_evaluate",
  description: "A value in [0, 1] for a partial line of reasoning.",
  system: [
    "You evaluate partial lines of reasoning for a Monte Carlo tree search run by another AI agent.",
    "Judge the whole line as it stands: how likely it is to lead to a correct, useful solution if continued well. 0 = dead end or wrong, 0.5 = plausible but unproven, 1 = clearly right and complete. Be calibrated; the search compares your values across lines.",
    "Say whether the last step already is a complete answer.",
  ].join("\n"),
  prompt: (input: { path: string }) => `${input.path}\n\nEvaluate this line of reasoning.`,
  output: mctsEvaluationAnswerSchema,
});
