import { defaultDialogPlan, dialogPresetNameSchema } from "@deliberate/contracts";
import { describe, expect, it } from "vitest";
import { builtinPresets, presetByName, synthesisPreset } from "./builtin-presets.ts";
import { definePreset, presetProblems } from "./dialog-preset.ts";

describe("built-in presets", () => {
  it("are the five of the mode enum, each sound: agents, plan, rubric weights summing to 1, instructions", () => {
    expect(builtinPresets.map((preset) => preset.name)).toEqual(dialogPresetNameSchema.options);
    for (const preset of builtinPresets) expect(presetProblems(preset)).toEqual([]);
  });

  it("have the agents the spec names, listed in speaking order", () => {
    const agentsOf = (name: Parameters<typeof presetByName>[0]) => presetByName(name).agents.map((agent) => agent.name);
    expect(agentsOf("objective_refinement")).toEqual(["think", "dialog"]);
    expect(agentsOf("exploration")).toEqual(["think", "dialog"]);
    expect(agentsOf("debate")).toEqual(["dialog", "critic"]);
    expect(agentsOf("synthesis")).toEqual(["think", "dialog", "synthesizer"]);
    expect(agentsOf("code_review")).toEqual(["implementer", "reviewer"]);
    // Copied as custom agents, a preset's agents get the default plan: it must be the preset's own.
    for (const preset of builtinPresets)
      expect(defaultDialogPlan(preset.agents.map((agent) => agent.name))).toEqual(preset.turns);
  });

  it("say who speaks when: synthesis writes two perspectives concurrently, merges after them, reviews the merge", () => {
    expect(synthesisPreset.turns.map((step) => step.map((turn) => `${turn.agent}:${turn.act}`))).toEqual([
      ["think:produce", "dialog:produce"],
      ["synthesizer:merge"],
      ["think:review", "dialog:review"],
    ]);
  });

  it("presetProblems names each defect, agents out of speaking order too", () => {
    const swapped = definePreset({
      ...synthesisPreset,
      agents: [...synthesisPreset.agents]
        .reverse()
        .slice(1)
        .concat(synthesisPreset.agents[2] ?? []),
    });
    expect(presetProblems(swapped)).toEqual([expect.stringContaining("synthesis: agents are not in speaking order")]);
    const broken = definePreset({
      ...synthesisPreset,
      turns: [[{ agent: "think", act: "produce" }], [{ agent: "ghost", act: "review" }]],
      criteria: [
        { name: "Integration", weight: 0.5, description: "d" },
        { name: "coverage", weight: 0.4, description: "d" },
      ],
      instructions: { ...synthesisPreset.instructions, merge: " " },
    });
    expect(presetProblems(broken)).toEqual([
      "synthesis: turns.1.0.agent: 'ghost' is not an agent of this session; agents: think, dialog, synthesizer",
      "synthesis: turns: agent 'dialog' never speaks; give it a turn or leave it out of agents",
      "synthesis: turns: agent 'synthesizer' never speaks; give it a turn or leave it out of agents",
      `synthesis: agents are not in speaking order; copied into start_reasoning_session they would get turns ${JSON.stringify(synthesisPreset.turns)}`,
      "synthesis: criterion 'Integration' must be snake_case",
      "synthesis: the criteria weights sum to 0.9, not 1",
      "synthesis: instructions.merge is empty",
    ]);
  });
});
