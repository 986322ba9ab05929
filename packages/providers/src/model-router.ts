import { createAnthropicModel } from "./anthropic-model.ts";
import { modelIdForMode, type ProviderSettings } from "./environment.ts";
import type { GenerateOptions, GenerateResult, LanguageModel } from "./language-model.ts";
import { createNotConfiguredModel } from "./not-configured-model.ts";
import { createOpenAIModel } from "./openai-model.ts";

/** Hands each reasoning mode the model configured for it. */
export interface ModelRouter {
  /** `anthropic`, `openai`, `none`, or the provider of the model given to `createModelRouterFromModel`. */
  readonly provider: string;
  /** False when calls would fail with PROVIDER_NOT_CONFIGURED. */
  readonly configured: boolean;
  /** Why no model can be used, when `configured` is false (for messages and traces). */
  readonly unavailableReason?: string;
  /** The model for `mode`, its id from configuration (mode override > provider default > built-in). */
  forMode(mode: string): LanguageModel;
}

/**
 * Builds one SDK client for the configured provider and per-mode models on
 * it. With no provider (or one missing its key) every model fails with
 * PROVIDER_NOT_CONFIGURED saying which variable to set.
 */
export function createModelRouter(settings: ProviderSettings): ModelRouter {
  if (settings.provider === "none" || settings.missing !== undefined) {
    const model = createNotConfiguredModel({
      ...(settings.provider === "none" ? {} : { provider: settings.provider }),
      missing: settings.missing,
    });
    return { provider: settings.provider, configured: false, forMode: () => model };
  }
  const common = { timeoutMs: settings.timeoutMs, maxRetries: settings.maxRetries };
  const base =
    settings.provider === "anthropic"
      ? createAnthropicModel({
          ...common,
          // A base URL without a key is a gateway that authenticates for us; the SDK still wants a key.
          apiKey: settings.anthropic.apiKey ?? "not-needed",
          baseURL: settings.anthropic.baseURL,
          modelId: modelIdForMode(settings, "linear") ?? "",
          capabilityOverrides: settings.anthropic.capabilities,
        })
      : createOpenAIModel({
          ...common,
          apiKey: settings.openai.apiKey,
          baseURL: settings.openai.baseURL,
          modelId: modelIdForMode(settings, "linear") ?? "",
          structuredOutput: settings.openai.structuredOutput,
          reasoningModels: settings.openai.reasoningModels,
          capabilityOverrides: settings.openai.capabilities,
        });
  const models = new Map<string, LanguageModel>();
  return {
    provider: settings.provider,
    configured: true,
    forMode(mode) {
      let model = models.get(mode);
      if (!model) {
        model = withModelId(base, modelIdForMode(settings, mode) ?? base.modelId);
        models.set(mode, model);
      }
      return model;
    },
  };
}

/** A router that gives every mode the same model (tests, demos, embedding a custom model). */
export function createModelRouterFromModel(model: LanguageModel): ModelRouter {
  return { provider: model.provider, configured: true, forMode: () => model };
}

/** `model` with another default model id; the SDK client is shared. */
function withModelId(model: LanguageModel, modelId: string): LanguageModel {
  return {
    provider: model.provider,
    modelId,
    generate<T>(options: GenerateOptions<T>): Promise<GenerateResult<T>> {
      return model.generate({ ...options, modelId: options.modelId ?? modelId });
    },
  };
}
