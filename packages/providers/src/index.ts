export { emptyUsage } from "./language-model.ts";
export type {
  GenerateOptions,
  GenerateProgress,
  GenerateResult,
  LanguageModel,
  ModelMessage,
  Usage,
} from "./language-model.ts";

export { createAnthropicModel } from "./anthropic-model.ts";
export type { ThinkingEffort } from "./thinking-effort.ts";
export { createOpenAIModel } from "./openai-model.ts";
export { longRequestTokens } from "./streaming.ts";
export { modelSpendOf } from "./generate-with-repair.ts";

export {
  defaultRequestTimeoutMs,
  parseProviderEnvironment,
  redactSettings,
  resolveKeylessMode,
  unknownModeModels,
} from "./environment.ts";
export type { ProviderSettings } from "./environment.ts";

export { createModelRouter, createModelRouterFromModel } from "./model-router.ts";
export type { ModelRouter } from "./model-router.ts";

export { extractJson } from "./extract-json.ts";
export { createSamplingModel } from "./sampling-model.ts";
export type { SamplingRequest, SamplingResponse } from "./sampling-model.ts";
