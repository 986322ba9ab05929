import { z } from "zod";
import { defineMode, type ModeDeclaration } from "@deliberate/engine";

/** The `auto` mode and its default model settings, declared on every `auto` definition (the engine layers configuration and runtime overrides on top). */
export const autoModeDeclaration: ModeDeclaration = { mode: "auto", settings: { temperature: 0.5, maxTokens: 1000 } };

/** What each routable mode is good for; the router reads this. */
export const routingHints: Record<string, string> = {
  linear: "one clear line of reasoning; the next logical step",
  tree: "several distinct approaches worth comparing before committing",
  divergent: "creative or open-ended problems; escaping the obvious answer",
  reflection: "reviewing and improving an existing piece of reasoning",
  graph: "complex problems whose partial ideas should be generated, scored, merged and pruned",
  timeline: "events over time, scenarios and how they branch",
  mcts: "searching a large space of sequential choices",
  counterfactual: "what-if questions about causes and interventions",
};

export function routerAnswerSchema(modes: readonly [string, ...string[]]) {
  return z.object({
    selected_mode: z.enum(modes),
    confidence: z.number().min(0).max(1),
    rationale: z.string().min(1),
  });
}

/** Built per engine from the modes that are actually registered. */
export function createRouterMode(modes: readonly [string, ...string[]]) {
  return defineMode({
    ...autoModeDeclaration,
    name: "auto_route",
    description: "The reasoning mode best suited to the content, with confidence and rationale.",
    system: [
      "You route a reasoning request from an AI agent to the best reasoning mode.",
      "Modes:",
      ...modes.map((mode) => `- ${mode}: ${routingHints[mode] ?? mode}`),
      "Choose one mode, give a calibrated confidence 0..1 and a one-sentence rationale.",
    ].join("\n"),
    prompt: (input: { content: string; hints: readonly string[] }) =>
      `Request:\n${input.content}${input.hints.length > 0 ? `\n\nHints from the caller: ${input.hints.join("; ")}` : ""}`,
    output: routerAnswerSchema(modes),
  });
}
