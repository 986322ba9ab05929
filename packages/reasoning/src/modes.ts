import type { ModeSettings } from "@deliberate/engine";

const standardThinking = 4096;
const deepThinking = 8192;
const maximumThinking = 16384;

/**
 * The reasoning modes and their default model settings (design §6); model ids
 * live in provider configuration. The long, thinking-heavy modes stream their
 * answers, which shows as progress ("generating tree: N tokens").
 */
export const reasoningModes: Readonly<Record<string, ModeSettings>> = {
  linear: { temperature: 0.7, maxTokens: 2000 },
  tree: { temperature: 0.8, maxTokens: 3000, stream: true },
  divergent: { temperature: 0.9, maxTokens: 3000, thinkingBudget: standardThinking, stream: true },
  reflection: { temperature: 0.6, maxTokens: 2500, thinkingBudget: deepThinking, stream: true },
  checkpoint: { temperature: 0.7, maxTokens: 2000 },
  auto: { temperature: 0.5, maxTokens: 1000 },
  graph: { temperature: 0.7, maxTokens: 2500, thinkingBudget: standardThinking, stream: true },
  detect: { temperature: 0.5, maxTokens: 3000 },
  decision: { temperature: 0.6, maxTokens: 4000, thinkingBudget: deepThinking, stream: true },
  evidence: { temperature: 0.6, maxTokens: 3000, thinkingBudget: deepThinking, stream: true },
  timeline: { temperature: 0.7, maxTokens: 2500 },
  mcts: { temperature: 0.7, maxTokens: 2500, thinkingBudget: maximumThinking, stream: true },
  counterfactual: { temperature: 0.6, maxTokens: 3000, thinkingBudget: maximumThinking, stream: true },
};
