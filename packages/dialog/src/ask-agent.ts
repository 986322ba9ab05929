import { DeliberateError } from "@deliberate/contracts";
import { modelSpendOf } from "@deliberate/providers";
import type { DialogToolContext } from "./dialog-context.ts";
import type { DialogModeDefinition } from "./modes/dialog-mode.ts";
import type { DialogTokens } from "./store/repositories/dialog-session.repository.ts";
import { estimateTokens } from "./token-estimate.ts";

/** An agent's own settings, over the mode's. */
export interface AgentOverrides {
  temperature?: number;
  maxTokens?: number;
  /** Model id on the server's provider. */
  model?: string;
}

/** Tokens an exchange has spent so far, failed answers included (what the token budget counts). */
export interface SpendTally {
  tokens: number;
}

/** A validated answer with what it cost. */
export interface AgentAnswer<Output> {
  object: Output;
  tokens: DialogTokens;
  /** The model that answered. */
  model: string | null;
  /** When the answer arrived (ISO 8601). */
  at: string;
}

/**
 * Runs a dialog mode for one agent: the mode's system prompt and rendered
 * prompt, its output schema (validated by the provider, with one repair
 * round), the mode's settings (module defaults, configuration, runtime
 * overrides) under the agent's own temperature, maxTokens and model.
 * Adds the call to the invocation's usage and to `tally` (a failed call too: the answers
 * it got before failing, repair round included), and returns the answer with its own token
 * figures (estimated at four characters a token when the provider reports none).
 */
export async function askAgent<Input, Output>(
  context: DialogToolContext,
  mode: DialogModeDefinition<Input, Output>,
  input: Input,
  overrides: AgentOverrides = {},
  tally?: SpendTally,
): Promise<AgentAnswer<Output>> {
  if (context.signal.aborted) {
    throw new DeliberateError({ code: "CANCELLED", message: "The exchange was cancelled before the model was asked." });
  }
  const settings = context.settings(mode.mode);
  const model = context.models.forMode(mode.mode);
  const prompt = mode.prompt(input);
  const usage = context.usage;
  if (!usage.modes.includes(mode.mode)) usage.modes.push(mode.mode);
  const generation = model.generate<Output>({
    system: mode.system,
    messages: [{ role: "user", content: prompt }],
    schema: mode.output,
    schemaName: mode.name,
    schemaDescription: mode.description,
    temperature: overrides.temperature ?? settings.temperature,
    maxTokens: overrides.maxTokens ?? settings.maxTokens,
    ...(settings.thinkingBudget !== undefined ? { thinkingBudget: settings.thinkingBudget } : {}),
    ...(settings.effort !== undefined ? { effort: settings.effort } : {}),
    ...(settings.timeoutMs !== undefined ? { timeoutMs: settings.timeoutMs } : {}),
    ...(overrides.model !== undefined ? { modelId: overrides.model } : {}),
    signal: context.signal,
  });
  const result = await generation.catch((error: unknown) => {
    const spend = modelSpendOf(error);
    if (spend !== undefined) {
      usage.inputTokens += spend.usage.inputTokens;
      usage.outputTokens += spend.usage.outputTokens;
      usage.cacheReadTokens += spend.usage.cacheReadTokens;
      usage.cacheWriteTokens += spend.usage.cacheWriteTokens;
      usage.modelCalls += spend.answers;
      usage.provider = model.provider;
      usage.model = spend.modelId;
      if (tally) tally.tokens += spend.usage.inputTokens + spend.usage.outputTokens;
    }
    throw error;
  });
  usage.inputTokens += result.usage.inputTokens;
  usage.outputTokens += result.usage.outputTokens;
  usage.cacheReadTokens += result.usage.cacheReadTokens;
  usage.cacheWriteTokens += result.usage.cacheWriteTokens;
  usage.modelCalls += 1;
  usage.provider = model.provider;
  usage.model = result.modelId;
  const reported = result.usage.inputTokens + result.usage.outputTokens > 0;
  const tokens: DialogTokens = reported
    ? { input: result.usage.inputTokens, output: result.usage.outputTokens, estimated: false }
    : {
        input: estimateTokens(mode.system) + estimateTokens(prompt),
        output: estimateTokens(result.text),
        estimated: true,
      };
  if (tally) tally.tokens += tokens.input + tokens.output;
  return { object: result.object, tokens, model: result.modelId ?? null, at: context.clock.now().toISOString() };
}
