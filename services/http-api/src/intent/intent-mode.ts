import { defineMode, type ModeDefinition } from "@deliberate/engine";
import { z } from "zod";
import type { AgentIntentDecisionInput as AgentIntentRequest } from "@deliberate/contracts";
import { clip } from "./history.ts";
import { checkToolArguments, finishChoice, type OfferedTool } from "./offered-tools.ts";

/** What the model answers: the next tool (one of the offered, or finish), its arguments, and why. */
export interface IntentAnswer {
  reasoning: string;
  tool_name: string;
  tool_args: Record<string, unknown>;
  final_text: string;
}

const historyEntries = 30;
const entryCharacters = 1500;
const sectionCharacters = 6000;
const schemaCharacters = 4000;

/** A JSON Schema without its dialect, its local `$defs` renamed into `prefix` (so several can share one root). */
function embeddable(
  schema: Record<string, unknown>,
  prefix: string,
): { schema: Record<string, unknown>; defs: Record<string, unknown> } {
  const { $schema: _dialect, $id: _id, $defs, ...rest } = schema;
  if ($defs === undefined || typeof $defs !== "object" || $defs === null) return { schema: rest, defs: {} };
  const rename = (text: string) => text.replaceAll('"#/$defs/', `"#/$defs/${prefix}`);
  return {
    schema: JSON.parse(rename(JSON.stringify(rest))) as Record<string, unknown>,
    defs: Object.fromEntries(
      Object.entries($defs as Record<string, unknown>).map(([name, definition]) => [
        `${prefix}${name}`,
        JSON.parse(rename(JSON.stringify(definition))),
      ]),
    ),
  };
}

/**
 * The answer schema the model sees, one `anyOf` branch per offered tool (its
 * `tool_name` and, for `tool_args`, that tool's argument schema as enforced),
 * plus the `finish` branch. The branches say in JSON Schema what the check
 * in code enforces, so a schema-following model cannot pick arguments the
 * chosen tool rejects.
 */
function branchesFor(tools: readonly OfferedTool[]): Record<string, unknown> {
  let defs: Record<string, unknown> = {};
  const branches = tools.map((tool, index) => {
    const args = tool.validator
      ? embeddable(
          z.toJSONSchema(tool.validator, { io: "input", unrepresentable: "any" }) as Record<string, unknown>,
          `tool${index}_`,
        )
      : { schema: { type: "object" }, defs: {} };
    defs = { ...defs, ...args.defs };
    return {
      type: "object",
      properties: { tool_name: { const: tool.name }, tool_args: args.schema },
      required: ["tool_name", "tool_args"],
    };
  });
  // Finishing takes no arguments: `{}` exactly (a closed empty object, which strict decoding can follow).
  branches.push({
    type: "object",
    properties: {
      tool_name: { const: finishChoice },
      tool_args: { type: "object", properties: {}, additionalProperties: false },
    },
    required: ["tool_name", "tool_args"],
  });
  return { anyOf: branches, ...(Object.keys(defs).length > 0 ? { $defs: defs } : {}) };
}

/**
 * The answer schema, built per request: `tool_name` is an enum of the offered
 * tools plus `finish`, and `tool_args` must satisfy the chosen tool's schema:
 * published as an `anyOf` with one branch per tool, and checked in code (so
 * the provider's repair round can tell the model what is wrong).
 */
export function intentAnswerSchema(tools: readonly OfferedTool[]): z.ZodType<IntentAnswer> {
  const names = [...tools.map((tool) => tool.name), finishChoice] as unknown as [string, ...string[]];
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  return z
    .object({
      reasoning: z.string().min(1).describe("One or two sentences: why this is the right next action"),
      tool_name: z
        .enum(names)
        .describe(`The tool to call next, or "${finishChoice}" when the goal is reached or no tool can help`),
      tool_args: z
        .record(z.string(), z.unknown())
        .describe("Arguments for tool_name, matching its input schema; {} when finishing"),
      final_text: z
        .string()
        .describe(`When tool_name is "${finishChoice}": the final answer for the user; otherwise ""`),
    })
    .superRefine((answer, context) => {
      const tool = byName.get(answer.tool_name);
      if (!tool) return;
      for (const issue of checkToolArguments(tool, answer.tool_args)) {
        context.addIssue({
          code: "custom",
          path: issue.field.split(".").filter((part) => part !== ""),
          message: issue.message,
        });
      }
    })
    .meta(branchesFor(tools));
}

function section(title: string, value: unknown): string {
  if (value === undefined || value === null) return "";
  if (typeof value === "string" && value.trim() === "") return "";
  if (typeof value === "object" && !Array.isArray(value) && Object.keys(value).length === 0) return "";
  const text = typeof value === "string" ? value : JSON.stringify(value, null, 1);
  return `## ${title}\n${clip(text, sectionCharacters)}\n\n`;
}

function renderHistory(history: readonly unknown[]): string {
  if (history.length === 0) return "## History\n(no steps yet)\n\n";
  const shown = history.slice(-historyEntries);
  const skipped = history.length - shown.length;
  const lines = shown.map(
    (entry, index) =>
      `${skipped + index + 1}. ${clip(typeof entry === "string" ? entry : JSON.stringify(entry), entryCharacters)}`,
  );
  return `## History (${history.length} step(s), oldest first${skipped > 0 ? `; the first ${skipped} omitted` : ""})\n${lines.join("\n")}\n\n`;
}

function renderTools(tools: readonly OfferedTool[]): string {
  const lines = tools.map((tool) => {
    const schema = tool.inputSchema ? clip(JSON.stringify(tool.inputSchema), schemaCharacters) : "(any object)";
    return `- ${tool.name}: ${tool.description || "(no description)"}\n  arguments schema: ${schema}`;
  });
  return `## Tools you can call\n${lines.join("\n")}\n- ${finishChoice}: end the run with final_text\n`;
}

/** The agent-intent decision as a mode record: the auto mode's model settings, a stable system prompt. */
export function createIntentMode(tools: readonly OfferedTool[]): ModeDefinition<AgentIntentRequest, IntentAnswer> {
  return defineMode({
    mode: "auto",
    name: "agent_next_action",
    description: "The agent's next action: one offered tool with valid arguments, or finish with the final text.",
    system: [
      "You decide the next action of an autonomous AI agent.",
      `Choose exactly one: call one of the offered tools with arguments that satisfy its schema, or "${finishChoice}" with final_text when the goal is achieved, cannot be achieved with the offered tools, or the history already holds what is needed.`,
      "Follow the agent's rules and instructions. Do not repeat a tool call whose result is already in the history; use that result instead.",
      "Never invent tools or arguments outside the schemas. Keep reasoning to one or two sentences.",
    ].join("\n"),
    prompt: (request) =>
      [
        section("Goal", request.goal_text ?? "(no goal given)"),
        section("Instructions", request.instructions),
        section("Persona", request.persona),
        section("Driver", request.driver),
        section("Rules", request.rules),
        section("Agent state", request.agent_state),
        section("Memory", request.memory_state),
        section("Repository context", request.repo_context),
        renderHistory(request.history ?? []),
        renderTools(tools),
      ].join(""),
    output: intentAnswerSchema(tools),
  });
}
