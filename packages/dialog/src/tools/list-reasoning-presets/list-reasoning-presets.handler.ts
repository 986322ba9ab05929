import type { listReasoningPresetsTool, ToolOutput } from "@deliberate/contracts";
import { builtinPresets } from "../../presets/builtin-presets.ts";

/** The built-in presets as data: agents, who speaks when, rubric. */
export async function listReasoningPresets(): Promise<ToolOutput<typeof listReasoningPresetsTool>> {
  return {
    presets: builtinPresets.map((preset) => ({
      name: preset.name,
      description: preset.description,
      agents: preset.agents.map((agent) => ({ ...agent })),
      mode: preset.name,
      recommended_for: [...preset.recommended_for],
      turns: preset.turns.map((step) => step.map((turn) => ({ ...turn }))),
      criteria: preset.criteria.map((criterion) => ({ ...criterion })),
    })),
  };
}
