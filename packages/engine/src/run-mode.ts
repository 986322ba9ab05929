import { DeliberateError } from "@deliberate/base";
import type { GenerateResult, LanguageModel } from "@deliberate/providers";
import type { ToolContext } from "./context.ts";
import type { ModeDefinition } from "./mode-definition.ts";
import type { ModeSettings } from "./mode-settings.ts";

/**
 * Asks `model` for a mode's structured answer: the mode's stable system
 * prompt, its rendered user prompt and output schema, and the given settings.
 * Shared by runMode and by services that run a mode outside a tool call.
 */
export function generateWithMode<Input, Output>(
  model: LanguageModel,
  mode: ModeDefinition<Input, Output>,
  input: Input,
  options: { settings: ModeSettings; signal?: AbortSignal },
): Promise<GenerateResult<Output>> {
  const { settings } = options;
  return model.generate<Output>({
    system: mode.system,
    messages: [{ role: "user", content: mode.prompt(input) }],
    schema: mode.output,
    schemaName: mode.name,
    schemaDescription: mode.description,
    temperature: settings.temperature,
    maxTokens: settings.maxTokens,
    ...(settings.thinkingBudget !== undefined ? { thinkingBudget: settings.thinkingBudget } : {}),
    ...(settings.timeoutMs !== undefined ? { timeoutMs: settings.timeoutMs } : {}),
    ...(options.signal !== undefined ? { signal: options.signal } : {}),
  });
}

/**
 * The one executor for modes: renders the prompt, asks the mode's model for a
 * structured answer, records usage, returns the validated object.
 */
export async function runMode<Input, Output>(context: ToolContext, mode: ModeDefinition<Input, Output>, input: Input): Promise<Output> {
  if (context.signal.aborted) {
    throw new DeliberateError({ code: "CANCELLED", message: "The call was cancelled before the model was asked." });
  }
  const model = context.models.forMode(mode.mode);
  const result = await generateWithMode(model, mode, input, { settings: context.settings(mode.mode), signal: context.signal });
  const usage = context.usage;
  usage.inputTokens += result.usage.inputTokens;
  usage.outputTokens += result.usage.outputTokens;
  usage.cacheReadTokens += result.usage.cacheReadTokens;
  usage.cacheWriteTokens += result.usage.cacheWriteTokens;
  usage.modelCalls += 1;
  usage.provider = model.provider;
  usage.model = result.modelId;
  return result.object;
}
