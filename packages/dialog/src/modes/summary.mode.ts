import { z } from "zod";
import { type DialogModeDefinition, text } from "./dialog-mode.ts";
import { renderEarlier, type EarlierConversation } from "./prompt-sections.ts";
import type { ModeDeclaration } from "@deliberate/engine";

/** The `dialog_summariser` mode and its default model settings, declared on its definitions (the engine layers configuration and runtime overrides on top). */
export const summariserModeDeclaration = {
  mode: "dialog_summariser",
  settings: { temperature: 0.3, maxTokens: 2000 },
} as const satisfies ModeDeclaration;

export interface SummaryPromptInput {
  topic: string;
  earlier: EarlierConversation;
  /** The last iteration the new summary covers. */
  throughIteration: number;
}

export interface SummaryAnswer {
  summary: string;
}

/** How long a summary may be for a context budget: a sixth of the budget, 400 to 6,000 characters. */
export function summaryCharacterLimit(contextBudgetTokens: number): number {
  return Math.max(400, Math.min(6_000, Math.floor((contextBudgetTokens * 4) / 6)));
}

/** The summariser: condenses early iterations so later prompts fit the context budget; the raw turns stay stored. */
export function createSummaryMode(maxCharacters: number): DialogModeDefinition<SummaryPromptInput, SummaryAnswer> {
  return {
    ...summariserModeDeclaration,
    name: "dialog_summary",
    description: "A summary that replaces the early iterations of a reasoning session in later prompts.",
    system: [
      "You condense the early part of a multi-agent reasoning session so that its agents can continue within their context budget. Your summary replaces those turns in every later prompt.",
      "Keep what later turns need: what the document established and decided, every directive given and whether it was addressed, the reviewers' scores and how they moved, and open disagreements. Drop repetition and wording.",
      `Answer only with the JSON object asked for; the summary is at most ${maxCharacters} characters.`,
    ].join("\n\n"),
    prompt: (input) =>
      [
        `# Topic\n${input.topic}`,
        renderEarlier(input.earlier),
        `# Your task\nWrite one summary of iterations 0-${input.throughIteration} that can stand in for everything above (a previous summary included) in later prompts.`,
      ].join("\n\n"),
    output: z.object({ summary: text(maxCharacters).describe("Plain text or Markdown") }),
  };
}
