import type OpenAI from "openai";
import type { GenerateOptions } from "./language-model.ts";
import type { OpenAICapabilities } from "./model-capabilities.ts";
import { effortForBudget, openaiEffortFor, reasoningAllowance } from "./thinking-effort.ts";

type CreateParams = OpenAI.Chat.ChatCompletionCreateParamsNonStreaming;

/**
 * The model, token cap and sampling parameters of a Chat Completions
 * request, by what the model accepts: reasoning models get
 * `max_completion_tokens` = answer + `reasoningAllowance(effort)` and
 * `reasoning_effort` (the call's effort, else its thinking budget's, else
 * the model's lowest), never a temperature; chat models `max_tokens` and
 * the temperature.
 */
export function openaiParameters(
  call: GenerateOptions<unknown>,
  model: string,
  capabilities: OpenAICapabilities,
): Pick<CreateParams, "model" | "max_tokens" | "max_completion_tokens" | "temperature" | "reasoning_effort"> {
  const temperature =
    capabilities.temperature && call.temperature !== undefined ? { temperature: call.temperature } : {};
  if (!capabilities.reasoning) {
    return capabilities.maxCompletionTokens
      ? { model, max_completion_tokens: call.maxTokens, ...temperature }
      : { model, max_tokens: call.maxTokens, ...temperature };
  }
  const effort = openaiEffortFor(call.effort ?? effortForBudget(call.thinkingBudget), capabilities.effort);
  // A model without efforts still reasons (at its default, medium): leave room for that.
  const allowance = reasoningAllowance(effort ?? "medium", call.thinkingBudget);
  return {
    model,
    max_completion_tokens: call.maxTokens + allowance,
    ...(effort !== undefined ? { reasoning_effort: effort } : {}),
    ...temperature,
  };
}
