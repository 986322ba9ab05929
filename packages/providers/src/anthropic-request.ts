import type Anthropic from "@anthropic-ai/sdk";
import type { GenerateOptions } from "./language-model.ts";
import type { AnthropicCapabilities, AnthropicEffort } from "./model-capabilities.ts";
import type { AnswerFormat } from "./structured-answer.ts";
import {
  anthropicEffortFor,
  budgetForEffort,
  effortForBudget,
  reasoningAllowance,
  type ThinkingEffort,
} from "./thinking-effort.ts";

/** The smallest thinking budget the Anthropic API accepts. */
export const minimumThinkingBudget = 1024;

/** How a call thinks on one model: the request fields, the effort, and `max_tokens` (answer plus room for thinking). */
export interface AnthropicThinking {
  params: { thinking?: Anthropic.ThinkingConfigParam };
  effort: AnthropicEffort | undefined;
  maxTokens: number;
  /** True when the answer may come after thinking (so a forced tool is not allowed). */
  thinks: boolean;
}

/**
 * Maps a call's thinking request (`effort`, else `thinkingBudget` through
 * `effortForBudget`) onto what the model takes:
 * - adaptive models: `thinking: {type: "adaptive"}` and `output_config.effort`
 *   when thinking is asked (or the model always thinks), with
 *   `max_tokens` = answer + `reasoningAllowance(effort)`;
 * - budget models: `thinking: {type: "enabled", budget_tokens}` (at least
 *   1,024; from the effort when only an effort is given) with
 *   `max_tokens` = answer + budget, and the effort where the model takes one;
 * - models whose kind is unknown: no thinking.
 */
export function anthropicThinking(
  call: GenerateOptions<unknown>,
  capabilities: AnthropicCapabilities,
): AnthropicThinking {
  const wanted: ThinkingEffort = call.effort ?? effortForBudget(call.thinkingBudget);
  if (capabilities.thinking === "adaptive") {
    const thinks = wanted !== "none" || capabilities.thinkingAlwaysOn;
    if (!thinks) {
      // The 5 family thinks unless told not to: say so, or thinking would use up the answer's cap.
      return {
        params: capabilities.thinkingByDefault ? { thinking: { type: "disabled" } } : {},
        effort: undefined,
        maxTokens: call.maxTokens,
        thinks: false,
      };
    }
    const effort = anthropicEffortFor(wanted, capabilities.effort);
    return {
      params: { thinking: { type: "adaptive" } },
      effort,
      maxTokens: call.maxTokens + reasoningAllowance(effort ?? "high", call.thinkingBudget),
      thinks: true,
    };
  }
  if (capabilities.thinking === "budget" && wanted !== "none") {
    const requested =
      call.thinkingBudget !== undefined && call.thinkingBudget > 0
        ? call.thinkingBudget
        : (budgetForEffort(wanted) ?? minimumThinkingBudget);
    const budget = Math.max(minimumThinkingBudget, Math.floor(requested));
    return {
      params: { thinking: { type: "enabled", budget_tokens: budget } },
      effort: anthropicEffortFor(wanted, capabilities.effort),
      maxTokens: call.maxTokens + budget,
      thinks: true,
    };
  }
  return { params: {}, effort: undefined, maxTokens: call.maxTokens, thinks: false };
}

/** `output_config` with the effort and the answer format, when either is set. */
export function withOutputConfig(
  effort: AnthropicEffort | undefined,
  format: Anthropic.JSONOutputFormat | undefined,
): { output_config?: Anthropic.OutputConfig } {
  if (effort === undefined && format === undefined) return {};
  return {
    output_config: { ...(effort !== undefined ? { effort } : {}), ...(format !== undefined ? { format } : {}) },
  };
}

/** How the structured answer comes back: JSON text under `output_config.format`, a forced tool, or an offered one. */
export type AnswerChannel = "format" | "forced-tool" | "offered-tool";

/** The structured part of a request. */
export interface StructuredRequest {
  how: AnswerChannel;
  outputFormat: Anthropic.JSONOutputFormat | undefined;
  tool: Anthropic.Tool | undefined;
  toolChoice: Anthropic.ToolChoice | undefined;
  system: Anthropic.TextBlockParam[];
}

/**
 * Chooses how to ask for the answer:
 * - `output_config.format` (constrained decoding) when the model has
 *   structured outputs and the schema has a strict form: no tool, works
 *   with thinking, and the one way on models that refuse a forced tool;
 * - else a tool (no strict decoding: the model or the schema cannot have
 *   it), forced when the model takes that and does not think, otherwise offered with an
 *   instruction to call it (a JSON answer in text is accepted too).
 * The system prompt gains one line naming the answer.
 */
export function structuredRequest(
  format: AnswerFormat,
  capabilities: AnthropicCapabilities,
  thinking: AnthropicThinking,
  system: Anthropic.TextBlockParam[],
): StructuredRequest {
  if (capabilities.structuredOutputs && format.strict) {
    return {
      how: "format",
      outputFormat: { type: "json_schema", schema: format.jsonSchema },
      tool: undefined,
      toolChoice: undefined,
      system: [
        ...system,
        {
          type: "text",
          text: `Reply with only a JSON object for "${format.name}" that follows the given JSON schema.`,
        },
      ],
    };
  }
  const forced = capabilities.forcedToolChoice && !thinking.thinks;
  const tool: Anthropic.Tool = {
    name: format.name,
    description: format.description ?? "Give your complete answer as the input of this tool.",
    input_schema: format.jsonSchema as Anthropic.Tool.InputSchema,
  };
  return {
    how: forced ? "forced-tool" : "offered-tool",
    outputFormat: undefined,
    tool,
    toolChoice: forced
      ? { type: "tool", name: format.name, disable_parallel_tool_use: true }
      : { type: "auto", disable_parallel_tool_use: true },
    system: forced
      ? system
      : [
          ...system,
          {
            type: "text",
            text: `Answer by calling the \`${format.name}\` tool exactly once with your complete answer as its input. If you cannot call it, reply with only the JSON object.`,
          },
        ],
  };
}
