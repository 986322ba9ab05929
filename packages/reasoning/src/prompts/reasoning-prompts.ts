import { DeliberateError } from "@deliberate/contracts";
import { type ModulePrompt, splitPromptList } from "@deliberate/engine";
import { workflowDefinitions } from "../tools/guided-workflow/registry.ts";
import type { PresetDefinition } from "../tools/preset/preset-definition.ts";

/** A list argument with at least `least` items, else INVALID_INPUT naming it. */
function listArgument(args: Readonly<Record<string, string>>, name: string, least: number): string[] {
  const items = splitPromptList(args[name] ?? "");
  if (items.length < least) {
    throw new DeliberateError({
      code: "INVALID_INPUT",
      message: `${name} needs at least ${least} items`,
      issues: [
        { field: name, message: `give at least ${least}, one per line or comma-separated (got ${items.length})` },
      ],
    });
  }
  return items;
}

/** An optional text argument, left out when blank. */
function optional(args: Readonly<Record<string, string>>, name: string, key = name): Record<string, string> {
  const value = args[name]?.trim();
  return value ? { [key]: value } : {};
}

const decide: ModulePrompt = {
  name: "decide",
  title: "Decide between options",
  description:
    "Rank options against criteria: each option is scored per criterion, and the weighted ranking is computed in code.",
  tool: "reasoning_decision",
  arguments: [
    { name: "question", description: "The decision, as a question", required: true },
    { name: "options", description: "The options, one per line or comma-separated (at least 2)", required: true },
    {
      name: "criteria",
      description: "Criteria to judge by, comma-separated (default: the model proposes them)",
      required: false,
    },
  ],
  call: (args) => ({
    type: "weighted",
    question: args["question"]?.trim(),
    options: listArgument(args, "options", 2),
    ...(args["criteria"]?.trim() ? { criteria: listArgument(args, "criteria", 1).map((name) => ({ name })) } : {}),
  }),
  followUp: "Report the ranking, the winner's margin and the criteria that decided it.",
};

const weighEvidence: ModulePrompt = {
  name: "weigh-evidence",
  title: "Weigh evidence for a claim",
  description:
    "Assess how well evidence supports a claim: each item's credibility, corroboration and the overall support.",
  tool: "reasoning_evidence",
  arguments: [
    { name: "claim", description: "The claim to test", required: true },
    { name: "evidence", description: "The evidence, one item per line (at least 1)", required: true },
  ],
  call: (args) => ({
    type: "assess",
    claim: args["claim"]?.trim(),
    evidence: listArgument(args, "evidence", 1).map((content) => ({ content })),
  }),
  followUp: "Say how strongly the evidence supports the claim, which items carry it and which are weak.",
};

const guidedWorkflow: ModulePrompt = {
  name: "guided-workflow",
  title: "Think step by step with a guided workflow",
  description: "Start a guided workflow; you then answer one step at a time with submitThought.",
  tool: "startWorkflow",
  arguments: [
    {
      name: "workflow",
      description: "The workflow",
      required: true,
      values: workflowDefinitions.map((workflow) => workflow.name),
    },
    { name: "input", description: "The problem, decision or goal the workflow works on", required: true },
  ],
  call: (args) => {
    const name = args["workflow"]?.trim() ?? "";
    const workflow = workflowDefinitions.find((candidate) => candidate.name === name);
    if (!workflow) {
      throw new DeliberateError({
        code: "INVALID_INPUT",
        message: `Unknown workflow: ${name}`,
        issues: [
          {
            field: "workflow",
            message: `use one of ${workflowDefinitions.map((candidate) => candidate.name).join(", ")}`,
          },
        ],
      });
    }
    const first = workflow.inputs.find((input) => input.required) ?? workflow.inputs[0];
    return { workflow: workflow.name, inputs: first ? { [first.name]: args["input"]?.trim() } : {} };
  },
  followUp: "Then follow agent_instructions: answer each step with submitThought until complete is true.",
};

/** A prompt that runs one preset with its inputs as the prompt's arguments. */
function presetPrompt(
  preset: PresetDefinition,
  name = `preset-${preset.id}`,
  title = `Preset: ${preset.name}`,
): ModulePrompt {
  return {
    name,
    title,
    description: preset.description,
    tool: "reasoning_preset",
    arguments: preset.inputs.map((input) => ({
      name: input.name,
      description: input.description,
      required: input.required,
    })),
    call: (args) => ({
      operation: "run",
      preset_id: preset.id,
      inputs: Object.fromEntries(preset.inputs.flatMap((input) => Object.entries(optional(args, input.name)))),
    }),
    followUp: "Summarise the preset's conclusion and the steps' key findings.",
  };
}

/** Any preset by id, its main input as one argument (completions offer the preset ids). */
function runPreset(presets: readonly PresetDefinition[]): ModulePrompt {
  const byId = new Map(presets.map((preset) => [preset.id, preset]));
  return {
    name: "run-preset",
    title: "Run a preset workflow",
    description:
      "Run a preset: a chain of reasoning tools for a common task (debugging, risk, architecture, code review, research).",
    tool: "reasoning_preset",
    arguments: [
      { name: "preset", description: "The preset's id", required: true, values: presets.map((preset) => preset.id) },
      {
        name: "input",
        description: "What the preset works on (its first input: the problem, plan, decision, code or question)",
        required: true,
      },
      { name: "context", description: "Background: constraints, logs, what is in place", required: false },
    ],
    call: (args) => {
      const id = args["preset"]?.trim() ?? "";
      const preset = byId.get(id);
      if (!preset)
        throw new DeliberateError({
          code: "INVALID_INPUT",
          message: `Unknown preset: ${id}`,
          issues: [{ field: "preset", message: `use one of ${[...byId.keys()].join(", ")}` }],
        });
      const [main] = preset.inputs;
      const inputs: Record<string, string> = main ? { [main.name]: args["input"]?.trim() ?? "" } : {};
      if (args["context"]?.trim() && preset.inputs.some((input) => input.name === "context"))
        inputs["context"] = args["context"].trim();
      return { operation: "run", preset_id: preset.id, inputs };
    },
    followUp: "Summarise the preset's conclusion and the steps' key findings.",
  };
}

/** Grades a session's reasoning so far (completions offer the session ids). */
const reviewSession: ModulePrompt = {
  name: "review-session",
  title: "Review a session's reasoning",
  description: "Evaluate the quality of a reasoning session so far: its strengths, weaknesses and what to improve.",
  tool: "reasoning_reflection",
  arguments: [{ name: "session_id", description: "The session to review", required: true, completes: "session_id" }],
  call: (args) => ({ operation: "evaluate", session_id: args["session_id"]?.trim() }),
  followUp: "Report the weakest points and the next step that would improve the reasoning most.",
};

/**
 * The reasoning module's prompts: decide, weigh evidence, a guided workflow,
 * a pre-mortem and a debugging entry (when the risk-assessment and
 * debug-analysis presets are offered), and one per preset.
 */
export function reasoningPrompts(presets: readonly PresetDefinition[]): ModulePrompt[] {
  const byId = new Map(presets.map((preset) => [preset.id, preset]));
  const risk = byId.get("risk-assessment");
  const debug = byId.get("debug-analysis");
  return [
    decide,
    weighEvidence,
    ...(risk ? [presetPrompt(risk, "pre-mortem", "Pre-mortem: what could make this fail?")] : []),
    ...(debug ? [presetPrompt(debug, "debug", "Debug a failure")] : []),
    guidedWorkflow,
    runPreset(presets),
    reviewSession,
    ...presets.map((preset) => presetPrompt(preset)),
  ];
}
