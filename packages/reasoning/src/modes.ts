import type { ModeSettings } from "@deliberate/engine";

const standardThinking = 4096;
const deepThinking = 8192;
const maximumThinking = 16384;

/** The reasoning modes and their default model settings (design §6); model ids live in provider configuration. */
export const reasoningModes: Readonly<Record<string, ModeSettings>> = {
  linear: { temperature: 0.7, maxTokens: 2000 },
  tree: { temperature: 0.8, maxTokens: 3000 },
  divergent: { temperature: 0.9, maxTokens: 3000, thinkingBudget: standardThinking },
  reflection: { temperature: 0.6, maxTokens: 2500, thinkingBudget: deepThinking },
  checkpoint: { temperature: 0.7, maxTokens: 2000 },
  auto: { temperature: 0.5, maxTokens: 1000 },
  graph: { temperature: 0.7, maxTokens: 2500, thinkingBudget: standardThinking },
  detect: { temperature: 0.5, maxTokens: 3000 },
  decision: { temperature: 0.6, maxTokens: 4000, thinkingBudget: deepThinking },
  evidence: { temperature: 0.6, maxTokens: 3000, thinkingBudget: deepThinking },
  timeline: { temperature: 0.7, maxTokens: 2500 },
  mcts: { temperature: 0.7, maxTokens: 2500, thinkingBudget: maximumThinking },
  counterfactual: { temperature: 0.6, maxTokens: 3000, thinkingBudget: maximumThinking },
};
