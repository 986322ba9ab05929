export { addUsage, emptyUsage } from "./language-model.ts";
export type {
  FinishReason,
  GenerateOptions,
  GenerateProgress,
  GenerateResult,
  LanguageModel,
  ModelMessage,
  Usage,
} from "./language-model.ts";

export { createAnthropicModel, defaultAnthropicBaseURL, maximumCacheBreakpoints } from "./anthropic-model.ts";
export { minimumThinkingBudget } from "./anthropic-request.ts";
export {
  anthropicCapabilities,
  anthropicEffortLevels,
  defaultAnthropicCapabilities,
  defaultOpenAICapabilities,
  normaliseModelId,
  openaiCapabilities,
  openaiEffortLevels,
} from "./model-capabilities.ts";
export type { AnthropicCapabilities, AnthropicEffort, AnthropicThinkingStyle, CapabilityOverride, OpenAICapabilities, OpenAIEffort } from "./model-capabilities.ts";
export { budgetForEffort, effortForBudget, reasoningAllowance } from "./thinking-effort.ts";
export type { ThinkingEffort } from "./thinking-effort.ts";
export { toStrictSchema } from "./strict-schema.ts";
export type { StrictSchemaResult } from "./strict-schema.ts";
export { fromStrictAnswer } from "./strict-answer.ts";
export type { AnthropicModelOptions } from "./anthropic-model.ts";
export { createOpenAIModel, defaultOpenAIBaseURL } from "./openai-model.ts";
export type { OpenAIModelOptions, OpenAIStructuredOutput } from "./openai-model.ts";
export { defaultReasoningModelPattern, defaultReasoningModels, isReasoningModel } from "./reasoning-models.ts";
export { longRequestTokens } from "./streaming.ts";
export { modelSpendOf } from "./generate-with-repair.ts";
export type { ModelSpend } from "./generate-with-repair.ts";

export {
  defaultKeylessOrder,
  defaultMaxRetries,
  defaultModelIds,
  defaultRequestTimeoutMs,
  modelIdForMode,
  parseProviderEnvironment,
  redactSettings,
  resolveKeylessMode,
  unknownModeModels,
} from "./environment.ts";
export type {
  KeylessMode,
  OpenAIConnectionSettings,
  ProviderConnectionSettings,
  ProviderName,
  ProviderSettings,
  RedactedProviderSettings,
  RedactedSecret,
} from "./environment.ts";

export { createModelRouter, createModelRouterFromModel } from "./model-router.ts";
export type { ModelRouter } from "./model-router.ts";
export { createNotConfiguredModel, notConfiguredAdvice } from "./not-configured-model.ts";
export type { NotConfiguredModelOptions } from "./not-configured-model.ts";

export { extractJson } from "./extract-json.ts";
export type { JsonCandidate } from "./extract-json.ts";
export { parseStructuredAnswer } from "./structured-answer.ts";
export type { AnswerCheck } from "./structured-answer.ts";
export { toProviderError } from "./provider-error.ts";
export type { ProviderErrorContext } from "./provider-error.ts";
export { createSamplingModel } from "./sampling-model.ts";
export type { SamplingModelOptions, SamplingRequest, SamplingResponse } from "./sampling-model.ts";
