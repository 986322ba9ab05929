import { DeliberateError } from "@deliberate/base";
import {
  type GenerateProgress,
  type GenerateResult,
  type LanguageModel,
  longRequestTokens,
  type ModelMessage,
  modelSpendOf,
} from "@deliberate/providers";
import type { ToolContext } from "./context.ts";
import { CompletionNeeded } from "./host/completion-needed.ts";
import { isRejectedAnswer } from "./host/replay-router.ts";
import type { ModeDefinition } from "./mode-definition.ts";
import type { ModeSettings } from "./mode-settings.ts";

/** Per-call options of runMode / generateWithMode. */
export interface RunModeOptions {
  /**
   * Earlier turns of the session, oldest first, sent as separate messages
   * before the prompt. They must be identical from call to call of a session
   * (stable text, no fresh ids or times) so that the system prompt plus this
   * history is a prefix the provider reads from its prompt cache; the last
   * one is marked `cache: true`.
   */
  history?: readonly ModelMessage[];
}

/** The messages of a mode call: the history (its last message marked for caching), then the prompt. */
export function modeMessages(prompt: string, history: readonly ModelMessage[] = []): ModelMessage[] {
  return [
    ...history.map(
      (message, index): ModelMessage => ({
        role: message.role,
        content: message.content,
        ...(index === history.length - 1 ? { cache: true } : {}),
      }),
    ),
    { role: "user", content: prompt },
  ];
}

/**
 * Asks `model` for a mode's structured answer: the mode's stable system
 * prompt, the session history (if any) and the rendered user prompt, its
 * output schema, and the given settings. `onProgress` receives the provider's
 * progress events; the answer streams when `settings.stream` says so (unset:
 * only when it may take long, as the providers decide).
 * Shared by runMode and by services that run a mode outside a tool call.
 */
export function generateWithMode<Input, Output>(
  model: LanguageModel,
  mode: ModeDefinition<Input, Output>,
  input: Input,
  options: RunModeOptions & {
    settings: ModeSettings;
    signal?: AbortSignal;
    onProgress?: (event: GenerateProgress) => void;
  },
): Promise<GenerateResult<Output>> {
  const { settings } = options;
  const longAnswer = settings.maxTokens + (settings.thinkingBudget ?? 0) > longRequestTokens;
  return model.generate<Output>({
    system: mode.system,
    messages: modeMessages(mode.prompt(input), options.history),
    schema: mode.output,
    schemaName: mode.name,
    schemaDescription: mode.description,
    temperature: settings.temperature,
    maxTokens: settings.maxTokens,
    ...(settings.thinkingBudget !== undefined ? { thinkingBudget: settings.thinkingBudget } : {}),
    ...(settings.effort !== undefined ? { effort: settings.effort } : {}),
    ...(settings.timeoutMs !== undefined ? { timeoutMs: settings.timeoutMs } : {}),
    ...(options.signal !== undefined ? { signal: options.signal } : {}),
    // With a progress callback the providers would stream by default: keep their choice unless the mode's settings say.
    ...(options.onProgress !== undefined
      ? { onProgress: options.onProgress, stream: settings.stream ?? longAnswer }
      : settings.stream !== undefined
        ? { stream: settings.stream }
        : {}),
  });
}

/** Failures where a request reached the provider (so a model call was spent even without an answer). */
function reachedProvider(error: unknown): boolean {
  if (!DeliberateError.isInstance(error)) return false;
  return (
    error.code !== "PROVIDER_NOT_CONFIGURED" &&
    (error.code.startsWith("PROVIDER_") || error.code === "MODEL_OUTPUT_INVALID")
  );
}

/**
 * The one executor for modes: renders the prompt, asks the mode's model for a
 * structured answer (streaming it as progress when the mode's settings say
 * so), records usage, returns the validated object. A failed call still
 * records what it spent: provider, model, answers and their tokens.
 */
export async function runMode<Input, Output>(
  context: ToolContext,
  mode: ModeDefinition<Input, Output>,
  input: Input,
  options: RunModeOptions = {},
): Promise<Output> {
  if (context.signal.aborted) {
    throw new DeliberateError({ code: "CANCELLED", message: "The call was cancelled before the model was asked." });
  }
  const model = context.models.forMode(mode.mode);
  const settings = context.settings(mode.mode);
  if (!context.usage.modes.includes(mode.mode)) context.usage.modes.push(mode.mode);
  const usage = context.usage;
  let answers = 0;
  const onProgress = (event: GenerateProgress) => {
    answers = Math.max(answers, event.attempt + 1);
    if (settings.stream === true) context.generation(mode.mode, event);
  };
  let result: GenerateResult<Output>;
  try {
    result = await generateWithMode(model, mode, input, {
      settings,
      signal: context.signal,
      onProgress,
      ...(options.history ? { history: options.history } : {}),
    });
  } catch (error) {
    if (CompletionNeeded.isInstance(error)) throw error;
    const spend = modelSpendOf(error);
    usage.provider = model.provider;
    usage.model = spend?.modelId ?? model.modelId;
    if (spend !== undefined) {
      usage.inputTokens += spend.usage.inputTokens;
      usage.outputTokens += spend.usage.outputTokens;
      usage.cacheReadTokens += spend.usage.cacheReadTokens;
      usage.cacheWriteTokens += spend.usage.cacheWriteTokens;
    }
    // A host answer that failed its schema is a model output like any other.
    usage.modelCalls +=
      spend?.answers ?? (answers > 0 ? answers : reachedProvider(error) || isRejectedAnswer(error) ? 1 : 0);
    throw error;
  }
  usage.inputTokens += result.usage.inputTokens;
  usage.outputTokens += result.usage.outputTokens;
  usage.cacheReadTokens += result.usage.cacheReadTokens;
  usage.cacheWriteTokens += result.usage.cacheWriteTokens;
  usage.modelCalls += Math.max(1, answers);
  usage.provider = model.provider;
  usage.model = result.modelId;
  return result.object;
}
