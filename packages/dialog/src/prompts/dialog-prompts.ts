import { DeliberateError } from "@deliberate/contracts";
import type { ModulePrompt } from "@deliberate/engine";
import { builtinPresets } from "../presets/builtin-presets.ts";
import type { DialogPreset } from "../presets/dialog-preset.ts";

const presetNames: readonly string[] = builtinPresets.map((preset) => preset.name);
const followUp =
  "Then call run_reasoning_exchange with the returned sessionId until it says the session is complete, and report get_reasoning_result's final document.";

/** The start_reasoning_session call of a prompt: topic, the document as context, the preset. */
function startCall(args: Readonly<Record<string, string>>, preset: string): Record<string, unknown> {
  if (!presetNames.includes(preset)) {
    throw new DeliberateError({
      code: "INVALID_INPUT",
      message: `Unknown preset: ${preset}`,
      issues: [{ field: "preset", message: `use one of ${presetNames.join(", ")}` }],
    });
  }
  const context = args["document"]?.trim() ?? args["context"]?.trim();
  return { topic: args["topic"]?.trim(), mode: preset, ...(context ? { context } : {}) };
}

/** A multi-agent review of a document, with the preset chosen by argument (default code_review for code, else synthesis). */
const reviewDocument: ModulePrompt = {
  name: "review-document",
  title: "Multi-agent review of a document",
  description:
    "Agents take turns improving a document: one revises, others review against a rubric, until the score is good enough.",
  tool: "start_reasoning_session",
  arguments: [
    { name: "topic", description: "What the document is and what it should achieve", required: true },
    { name: "document", description: "The document (text, spec or code) to review", required: true },
    {
      name: "preset",
      description: "Dialog preset (default objective_refinement)",
      required: false,
      values: presetNames,
    },
  ],
  call: (args) => startCall(args, args["preset"]?.trim() || "objective_refinement"),
  followUp,
};

function presetPrompt(preset: DialogPreset): ModulePrompt {
  return {
    name: `dialog-${preset.name.replaceAll("_", "-")}`,
    title: `Dialog: ${preset.name.replaceAll("_", " ")}`,
    description: preset.description,
    tool: "start_reasoning_session",
    arguments: [
      { name: "topic", description: "What to reason about", required: true },
      { name: "context", description: "Background, a draft or code to work from", required: false },
    ],
    call: (args) => startCall(args, preset.name),
    followUp,
  };
}

/** The dialog module's prompts: a document review, and one per dialog preset. */
export const dialogPrompts: readonly ModulePrompt[] = [reviewDocument, ...builtinPresets.map(presetPrompt)];
