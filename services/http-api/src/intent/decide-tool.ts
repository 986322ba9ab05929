import {
  type AgentIntentDecision,
  type AgentIntentDecisionInput,
  agentIntentDecideTool,
  DeliberateError,
  type TraceEntry,
} from "@deliberate/contracts";
import { defineHandler, runMode, type ToolContext } from "@deliberate/engine";
import { invalidField } from "../errors.ts";
import { argumentsFromGoal, decideByHeuristic } from "./heuristic.ts";
import { createIntentMode } from "./intent-mode.ts";
import { checkToolArguments, compileOfferedTools, finishChoice, type OfferedTool } from "./offered-tools.ts";

type DecisionInput = AgentIntentDecisionInput;

async function decideWithModel(
  input: DecisionInput,
  tools: readonly OfferedTool[],
  context: ToolContext,
  trace: TraceEntry[],
): Promise<AgentIntentDecision> {
  const mode = createIntentMode(tools);
  const started = performance.now();
  const answer = await runMode(context, mode, input);
  const provider = context.usage.provider ?? "unknown";
  const modelId = context.usage.model ?? "unknown";
  trace.push({
    step: "model",
    detail: `${provider} ${modelId} chose ${answer.tool_name} (${context.usage.inputTokens} tokens in, ${context.usage.outputTokens} out)`,
    duration_ms: Math.round(performance.now() - started),
  });
  if (answer.tool_name === finishChoice) {
    return {
      tool_name: null,
      tool_args: {},
      reasoning: answer.reasoning,
      finish: true,
      final_text: answer.final_text.trim() === "" ? answer.reasoning : answer.final_text,
      decided_by: "model",
      model: { provider, model_id: modelId },
      trace,
    };
  }
  // The schema already enforces this; check again so nothing unchecked can ever be passed on.
  const tool = tools.find((candidate) => candidate.name === answer.tool_name);
  const issues = tool
    ? checkToolArguments(tool, answer.tool_args)
    : [{ field: "tool_name", message: `'${answer.tool_name}' is not one of the offered tools` }];
  if (issues.length > 0) {
    throw new DeliberateError({
      code: "MODEL_OUTPUT_INVALID",
      message: `The model chose an action outside the offered tools' contract: ${issues.map((issue) => `${issue.field}: ${issue.message}`).join("; ")}`,
      issues,
      hint: "Nothing was passed on. Call again, or configure a more capable model for the auto mode.",
    });
  }
  trace.push({ step: "validate_tool_args", detail: `tool_args valid against ${answer.tool_name}'s schema` });
  return {
    tool_name: answer.tool_name,
    tool_args: answer.tool_args,
    reasoning: answer.reasoning,
    finish: false,
    final_text: null,
    decided_by: "model",
    model: { provider, model_id: modelId },
    trace,
  };
}

/**
 * The decision, in order: the offered tools are checked (and compiled to
 * validators); `max_steps` reached ends the run; `forced_tool` short-circuits;
 * otherwise the model decides with structured output constrained to the
 * offered tools (its tool_args checked in code, a violation rejected), or,
 * when the call's models are not configured, the heuristic.
 */
async function decide(input: DecisionInput, context: ToolContext): Promise<AgentIntentDecision> {
  const trace: TraceEntry[] = [];
  const tools = compileOfferedTools(input.tools);
  trace.push({
    step: "tools",
    detail: `${input.tools ? "offered" : "default"}: ${tools.map((tool) => tool.name).join(", ") || "(none)"}`,
  });
  const history = input.history ?? [];
  const goal = input.goal_text ?? "";

  const maxSteps = input.max_steps ?? undefined;
  if (maxSteps !== undefined && history.length >= maxSteps) {
    const reason = `Stopped: the run reached max_steps (${history.length} step(s) taken, limit ${maxSteps}).`;
    trace.push({ step: "max_steps", detail: reason });
    return {
      tool_name: null,
      tool_args: {},
      reasoning: reason,
      finish: true,
      final_text: reason,
      decided_by: "max_steps",
      trace,
    };
  }

  const forced = input.forced_tool ?? undefined;
  if (forced !== undefined) {
    const offered = tools.find((tool) => tool.name === forced);
    if (!offered && input.tools) {
      throw invalidField(
        "forced_tool",
        `'${forced}' is not one of the offered tools`,
        `Offer it in tools, or force one of: ${tools.map((tool) => tool.name).join(", ")}.`,
      );
    }
    const tool: OfferedTool = offered ?? {
      name: forced,
      description: "",
      inputSchema: undefined,
      validator: undefined,
    };
    const built = argumentsFromGoal(tool, goal);
    if (!built.ok)
      throw invalidField(
        "forced_tool",
        built.problem,
        "Force a tool whose required arguments can be filled from goal_text, or let the decision run.",
      );
    trace.push({ step: "forced_tool", detail: `forced_tool ${forced}: no decision made` });
    return {
      tool_name: forced,
      tool_args: built.args,
      reasoning: `forced_tool: ${forced} was requested.`,
      finish: false,
      final_text: null,
      decided_by: "forced_tool",
      trace,
    };
  }

  if (context.models.configured) return decideWithModel(input, tools, context, trace);

  const heuristic = decideByHeuristic({ goal, history, tools });
  trace.push({
    step: "heuristic",
    detail: `${heuristic.rule} (no model: ${context.models.unavailableReason ?? "no model provider is configured"})`,
  });
  return {
    tool_name: heuristic.toolName,
    tool_args: heuristic.toolArgs,
    reasoning: heuristic.reasoning,
    finish: heuristic.toolName === null,
    final_text: heuristic.finalText,
    decided_by: "heuristic",
    trace,
  };
}

/** agent_intent_decide: the agent-intent decision, run and recorded by the engine. */
export const decideHandler = defineHandler(agentIntentDecideTool, (input, context) => decide(input, context));
