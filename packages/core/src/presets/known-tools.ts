/**
 * Every tool a built-in preset may name (design §2). Presets are checked
 * against these at load, so a misspelt tool fails at startup, while a preset
 * whose tools an engine does not register is simply not offered there.
 */
export const deliberateToolNames: ReadonlySet<string> = new Set([
  "reasoning_linear",
  "reasoning_tree",
  "reasoning_divergent",
  "reasoning_reflection",
  "reasoning_checkpoint",
  "reasoning_auto",
  "reasoning_graph",
  "reasoning_detect",
  "reasoning_decision",
  "reasoning_evidence",
  "reasoning_timeline",
  "reasoning_mcts",
  "reasoning_counterfactual",
  "reasoning_metrics",
]);
