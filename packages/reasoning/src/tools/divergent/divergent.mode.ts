import { z } from "zod";
import { defineMode, type ModeDeclaration } from "@deliberate/engine";
import { lazySchema } from "@deliberate/contracts";

/** The `divergent` mode and its default model settings, declared on every `divergent` definition (the engine layers configuration and runtime overrides on top). */
export const divergentModeDeclaration: ModeDeclaration = {
  mode: "divergent",
  settings: { temperature: 0.9, maxTokens: 3000, thinkingBudget: 4096, stream: true },
};

/** Lenses handed out to concurrent perspective calls so they do not converge on one view. */
export const perspectiveLenses = [
  "first principles: rebuild the problem from its fundamentals, ignoring convention",
  "the end user or the person most affected",
  "a skeptic hunting for the hidden failure mode",
  "systems thinking: second-order effects, incentives and feedback loops",
  "an outsider from a distant field who would solve it by analogy",
] as const;

export const rebelLenses = [
  "invert the goal: what if the opposite were true or desired?",
  "break the most sacred constraint everyone assumes is fixed",
  "the radical minimalist: remove the problem instead of solving it",
  "the provocateur: the idea that would get you laughed out of the room, taken seriously",
  "the saboteur: how would you guarantee failure, and what does that reveal?",
] as const;

export const perspectiveAnswerSchema = lazySchema(() =>
  z.object({
    viewpoint: z.string().min(1).describe("Short name of this perspective"),
    content: z.string().min(1).describe("The reasoning from this perspective"),
    novelty_score: z.number().min(0).max(1).describe("How far this departs from the obvious answer, 0..1"),
  }),
);

export const perspectiveMode = defineMode({
  ...divergentModeDeclaration,
  name: "divergent_perspective",
  description: "One distinct perspective on the problem with a novelty score.",
  system: [
    "You generate one vivid, concrete perspective on a problem for another AI agent that tends to anchor on its first idea.",
    "Adopt the lens you are given fully. Produce reasoning the obvious answer would miss. Score novelty honestly: 0 = the conventional view, 1 = a genuinely new framing.",
  ].join("\n"),
  prompt: (input: { content: string; lens: string; rebellious: boolean }) =>
    `Problem:\n${input.content}\n\nYour lens: ${input.lens}${input.rebellious ? "\n\nRebellion mode: reject the conventional framing outright." : ""}`,
  output: perspectiveAnswerSchema,
});

export const synthesisAnswerSchema = lazySchema(() =>
  z.object({
    challenged_assumptions: z
      .array(z.string())
      .describe("Assumptions in the problem that the perspectives call into question (empty if not asked)"),
    synthesis: z.string().min(1).describe("A unified insight that combines the strongest parts of the perspectives"),
  }),
);

export const synthesisMode = defineMode({
  ...divergentModeDeclaration,
  name: "divergent_synthesis",
  description: "Challenged assumptions and a synthesis across perspectives.",
  system: [
    "You synthesise several perspectives on a problem into one insight for another AI agent.",
    "Keep what is strongest in each, resolve tensions explicitly, and say what to do. When asked, list the assumptions of the original framing that the perspectives undermine.",
  ].join("\n"),
  prompt: (input: {
    content: string;
    perspectives: Array<{ viewpoint: string; content: string }>;
    challengeAssumptions: boolean;
  }) =>
    [
      `Problem:\n${input.content}\n\nPerspectives:`,
      ...input.perspectives.map(
        (perspective, index) => `${index + 1}. ${perspective.viewpoint}: ${perspective.content}`,
      ),
      input.challengeAssumptions
        ? "\nList the challenged assumptions."
        : "\nReturn an empty list of challenged assumptions.",
    ].join("\n"),
  output: synthesisAnswerSchema,
});
