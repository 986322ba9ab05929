import { DeliberateError } from "@deliberate/contracts";
import type { ModelMessage } from "@deliberate/providers";
import type { ToolContext } from "./context.ts";
import type { ModeDefinition } from "./mode-definition.ts";

/**
 * The one executor for modes: renders the prompt, asks the mode's model for a
 * structured answer, records usage, returns the validated object.
 */
export async function runMode<Input, Output>(context: ToolContext, mode: ModeDefinition<Input, Output>, input: Input): Promise<Output> {
  if (context.signal.aborted) {
    throw new DeliberateError({ code: "CANCELLED", message: "The call was cancelled before the model was asked." });
  }
  const settings = context.settings[mode.mode];
  const model = context.models.forMode(mode.mode);
  const messages: ModelMessage[] = [{ role: "user", content: mode.prompt(input) }];
  const result = await model.generate<Output>({
    system: mode.system,
    messages,
    schema: mode.output,
    schemaName: mode.name,
    schemaDescription: mode.description,
    temperature: settings.temperature,
    maxTokens: settings.maxTokens,
    ...(settings.thinkingBudget !== undefined ? { thinkingBudget: settings.thinkingBudget } : {}),
    ...(settings.timeoutMs !== undefined ? { timeoutMs: settings.timeoutMs } : {}),
    signal: context.signal,
  });
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
