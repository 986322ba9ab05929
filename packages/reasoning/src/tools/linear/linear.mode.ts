import { z } from "zod";
import { defineMode, type ModeDeclaration } from "@deliberate/engine";
import { lazySchema } from "@deliberate/contracts";

/** The `linear` mode and its default model settings, declared on every `linear` definition (the engine layers configuration and runtime overrides on top). */
export const linearModeDeclaration: ModeDeclaration = {
  mode: "linear",
  settings: { temperature: 0.7, maxTokens: 2000 },
};

export const linearAnswerSchema = lazySchema(() =>
  z.object({
    content: z.string().min(1).describe("The next step of reasoning that logically continues the thought"),
    confidence: z.number().min(0).max(1).describe("Confidence that this continuation is correct, 0..1"),
    next_step: z.string().describe("The most useful next reasoning step"),
  }),
);

export const linearMode = defineMode({
  ...linearModeDeclaration,
  name: "linear_continuation",
  description: "A logical continuation of the thought with a calibrated confidence and the next step.",
  system: [
    "You are a careful step-by-step reasoner working for another AI agent.",
    "Continue the given thought with the single most useful next step of reasoning: state what follows and why, check it against what came before, and flag any assumption you rely on.",
    "Be concrete and brief. Do not restate the input. Confidence must be calibrated: 0.9+ only when the step follows necessarily.",
  ].join("\n"),
  prompt: (input: { content: string; callerConfidence?: number; branchFocus?: string }) =>
    [
      input.branchFocus ? `The session is focused on this branch of exploration: ${input.branchFocus}\n\n` : "",
      `Thought to continue:\n${input.content}`,
      input.callerConfidence !== undefined
        ? `\n\nThe caller's own confidence in this thought: ${input.callerConfidence}`
        : "",
    ].join(""),
  output: linearAnswerSchema,
});
