import type { ModeId } from "@deliberate/contracts";

/** Model settings of one mode (design §6 and §11.4). */
export interface ModeSettings {
  temperature: number;
  maxTokens: number;
  /** Extended thinking budget; only providers that support it use it. */
  thinkingBudget?: number;
  timeoutMs?: number;
}

const standardThinking = 4096;
const deepThinking = 8192;
const maximumThinking = 16384;

/** Defaults per mode. Model ids live in provider configuration, not here. */
export const defaultModeSettings: Readonly<Record<ModeId, ModeSettings>> = {
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

/** Merges per-mode overrides (e.g. from self-improvement) over the defaults. */
export function resolveModeSettings(overrides: Partial<Record<ModeId, Partial<ModeSettings>>> = {}): Record<ModeId, ModeSettings> {
  const resolved = { ...defaultModeSettings } as Record<ModeId, ModeSettings>;
  for (const [mode, override] of Object.entries(overrides) as Array<[ModeId, Partial<ModeSettings>]>) {
    resolved[mode] = { ...resolved[mode], ...override };
  }
  return resolved;
}
