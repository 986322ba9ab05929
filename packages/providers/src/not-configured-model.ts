import { DeliberateError } from "@deliberate/base";
import type { GenerateResult, LanguageModel } from "./language-model.ts";

/** What to set to get a server-side model, in one sentence. */
export const notConfiguredAdvice =
  "Set ANTHROPIC_API_KEY to use Anthropic, or OPENAI_API_KEY (or OPENAI_BASE_URL for an OpenAI-compatible server such as Ollama, vLLM or LM Studio) to use OpenAI; DELIBERATE_PROVIDER=anthropic|openai chooses explicitly.";

/** Which provider was chosen (if any) and the variable it still lacks. */
export interface NotConfiguredModelOptions {
  provider?: string;
  missing?: string | undefined;
}

/**
 * The model used when no provider is configured: every call fails with
 * PROVIDER_NOT_CONFIGURED naming the variable to set. `missing` names the
 * variable an explicitly chosen provider still lacks.
 */
export function createNotConfiguredModel(options: NotConfiguredModelOptions = {}): LanguageModel {
  const message = options.missing
    ? `The ${options.provider ?? "selected"} provider is selected but ${options.missing} is not set.`
    : "No language model provider is configured.";
  return {
    provider: options.provider ?? "none",
    modelId: "none",
    generate<T>(): Promise<GenerateResult<T>> {
      return Promise.reject(
        new DeliberateError({
          code: "PROVIDER_NOT_CONFIGURED",
          message: `${message} ${options.missing ? `Set ${options.missing}.` : notConfiguredAdvice}`,
          hint: notConfiguredAdvice,
        }),
      );
    },
  };
}
