/**
 * What each model accepts, by model id: how it thinks, whether it decodes
 * strictly against a schema, and which request parameters it refuses. The
 * rows come from the SDKs' model lists (`@anthropic-ai/sdk` `Model`,
 * `openai` `ChatModel`) and the providers' documentation (adaptive thinking,
 * effort, structured outputs, reasoning models); ids no row knows get a safe
 * default, and `ANTHROPIC_MODEL_CAPABILITIES` / `OPENAI_MODEL_CAPABILITIES`
 * override any row (see `parseCapabilityOverrides`).
 */

/** Anthropic effort levels (`output_config.effort`), lowest first. */
export const anthropicEffortLevels = ["low", "medium", "high", "xhigh", "max"] as const;
export type AnthropicEffort = (typeof anthropicEffortLevels)[number];

/** OpenAI reasoning efforts (`reasoning_effort`), lowest first. */
export const openaiEffortLevels = ["none", "minimal", "low", "medium", "high", "xhigh"] as const;
export type OpenAIEffort = (typeof openaiEffortLevels)[number];

/**
 * How an Anthropic model is asked to think:
 * - `adaptive`: `thinking: {type: "adaptive"}` with `output_config.effort`
 *   (Opus 4.6 and later; the only kind Opus 4.7+ and the 5 family accept);
 * - `budget`: `thinking: {type: "enabled", budget_tokens}` (Sonnet 4.5, Haiku 4.5, Opus 4.5 and older);
 * - `none`: never send `thinking` (ids whose kind is unknown).
 */
export type AnthropicThinkingStyle = "adaptive" | "budget" | "none";

/** What an Anthropic model accepts. */
export interface AnthropicCapabilities {
  thinking: AnthropicThinkingStyle;
  /** Thinking runs whatever the request says (Opus 5.5, Fable 5.1, Mythos): `thinking.type: "disabled"` is refused. */
  thinkingAlwaysOn: boolean;
  /** Without a `thinking` field the model thinks anyway (the 5 family): a call that wants none sends `{type: "disabled"}`. */
  thinkingByDefault: boolean;
  /** Effort levels `output_config.effort` accepts; empty when the model refuses the parameter. */
  effort: readonly AnthropicEffort[];
  /** `output_config.format` (JSON outputs) and `strict: true` tools. */
  structuredOutputs: boolean;
  /** `tool_choice` `tool` / `any` (Opus 5.5 and Fable 5.1 refuse it). */
  forcedToolChoice: boolean;
  /** Which row matched: a table id, `generation rule`, `default` or `override`. */
  source: string;
}

/** What an OpenAI (or OpenAI-compatible) model accepts. */
export interface OpenAICapabilities {
  /** Reasoning model: `max_completion_tokens` and `reasoning_effort`, hidden reasoning counted in the cap. */
  reasoning: boolean;
  /** `reasoning_effort` values it accepts (empty: never sent). */
  effort: readonly OpenAIEffort[];
  /** `temperature` (and `top_p`) are accepted; reasoning models refuse anything but the default. */
  temperature: boolean;
  /** `max_completion_tokens` instead of `max_tokens` (reasoning models refuse `max_tokens`). */
  maxCompletionTokens: boolean;
  /** `response_format: json_schema` with `strict: true`. */
  strictJsonSchema: boolean;
  source: string;
}

interface Row<C> {
  /** Ids with `*` wildcards, matched against the normalised id (see `normaliseModelId`). */
  ids: readonly string[];
  capabilities: Omit<C, "source">;
}

const allEfforts = anthropicEffortLevels;
const baseEfforts: readonly AnthropicEffort[] = ["low", "medium", "high"];

/** Claude models that only think adaptively, always, and refuse a forced tool (the Opus 5.5 / Fable 5.1 contract). */
const alwaysAdaptive: Omit<AnthropicCapabilities, "source"> = {
  thinking: "adaptive",
  thinkingAlwaysOn: true,
  thinkingByDefault: true,
  effort: allEfforts,
  structuredOutputs: true,
  forcedToolChoice: false,
};

const anthropicRows: readonly Row<AnthropicCapabilities>[] = [
  {
    ids: [
      "claude-opus-5-5",
      "claude-sonnet-5-5",
      "claude-haiku-5-5",
      "claude-fable-5-1",
      "claude-fable-5-2",
      "claude-mythos-5-1",
      "claude-mythos-5-2",
    ],
    capabilities: alwaysAdaptive,
  },
  // The 5 family: adaptive only (manual budgets are refused), thinking on by default.
  {
    ids: ["claude-opus-5", "claude-sonnet-5", "claude-fable-5", "claude-mythos-5"],
    capabilities: {
      thinking: "adaptive",
      thinkingAlwaysOn: false,
      thinkingByDefault: true,
      effort: baseEfforts,
      structuredOutputs: true,
      forcedToolChoice: true,
    },
  },
  { ids: ["claude-mythos-preview"], capabilities: { ...alwaysAdaptive, effort: baseEfforts, forcedToolChoice: true } },
  // Opus 4.7 and 4.8: adaptive only; `budget_tokens` is a 400. xhigh arrived with 4.7.
  {
    ids: ["claude-opus-4-8", "claude-opus-4-7"],
    capabilities: {
      thinking: "adaptive",
      thinkingAlwaysOn: false,
      thinkingByDefault: false,
      effort: allEfforts,
      structuredOutputs: true,
      forcedToolChoice: true,
    },
  },
  // Opus 4.6 / Sonnet 4.6: adaptive recommended (budgets deprecated); `max` on Opus 4.6.
  {
    ids: ["claude-opus-4-6"],
    capabilities: {
      thinking: "adaptive",
      thinkingAlwaysOn: false,
      thinkingByDefault: false,
      effort: ["low", "medium", "high", "max"],
      structuredOutputs: true,
      forcedToolChoice: true,
    },
  },
  {
    ids: ["claude-sonnet-4-6"],
    capabilities: {
      thinking: "adaptive",
      thinkingAlwaysOn: false,
      thinkingByDefault: false,
      effort: baseEfforts,
      structuredOutputs: true,
      forcedToolChoice: true,
    },
  },
  // Opus 4.5: effort, but budgets (no adaptive thinking).
  {
    ids: ["claude-opus-4-5"],
    capabilities: {
      thinking: "budget",
      thinkingAlwaysOn: false,
      thinkingByDefault: false,
      effort: baseEfforts,
      structuredOutputs: true,
      forcedToolChoice: true,
    },
  },
  {
    ids: ["claude-sonnet-4-5", "claude-haiku-4-5"],
    capabilities: {
      thinking: "budget",
      thinkingAlwaysOn: false,
      thinkingByDefault: false,
      effort: [],
      structuredOutputs: true,
      forcedToolChoice: true,
    },
  },
  // Older generations: budgets, no structured outputs on the API.
  {
    ids: ["claude-opus-4-1", "claude-opus-4", "claude-sonnet-4", "claude-3-7-sonnet*"],
    capabilities: {
      thinking: "budget",
      thinkingAlwaysOn: false,
      thinkingByDefault: false,
      effort: [],
      structuredOutputs: false,
      forcedToolChoice: true,
    },
  },
  {
    ids: ["claude-3*"],
    capabilities: {
      thinking: "none",
      thinkingAlwaysOn: false,
      thinkingByDefault: false,
      effort: [],
      structuredOutputs: false,
      forcedToolChoice: true,
    },
  },
];

/**
 * Ids no row knows: never send `thinking` or `effort` (accepted by every
 * Claude model), structured answers through `output_config.format`, which
 * every model of the SDK's list (Sonnet 4.5 onwards) accepts, and never a
 * forced tool (the newest models refuse it).
 */
export const defaultAnthropicCapabilities: AnthropicCapabilities = Object.freeze({
  thinking: "none",
  thinkingAlwaysOn: false,
  thinkingByDefault: false,
  effort: [],
  structuredOutputs: true,
  forcedToolChoice: false,
  source: "default",
});

const reasoningModel = (effort: readonly OpenAIEffort[]): Omit<OpenAICapabilities, "source"> => ({
  reasoning: true,
  effort,
  temperature: false,
  maxCompletionTokens: true,
  strictJsonSchema: true,
});
const chatModel: Omit<OpenAICapabilities, "source"> = {
  reasoning: false,
  effort: [],
  temperature: true,
  maxCompletionTokens: false,
  strictJsonSchema: true,
};

const openaiRows: readonly Row<OpenAICapabilities>[] = [
  // ChatGPT's chat snapshots: no reasoning effort, sampling fixed at its default.
  {
    ids: ["gpt-5*-chat-latest", "gpt-5*-chat"],
    capabilities: {
      reasoning: false,
      effort: [],
      temperature: false,
      maxCompletionTokens: true,
      strictJsonSchema: true,
    },
  },
  { ids: ["gpt-5*-pro", "gpt-5*-pro-*"], capabilities: reasoningModel(["high"]) },
  {
    ids: ["gpt-5", "gpt-5-mini", "gpt-5-nano", "gpt-5-20*", "gpt-5-mini-20*", "gpt-5-nano-20*", "gpt-5-codex"],
    capabilities: reasoningModel(["minimal", "low", "medium", "high"]),
  },
  { ids: ["gpt-5.1*"], capabilities: reasoningModel(["none", "low", "medium", "high"]) },
  // gpt-5.2 and later (gpt-5.4, gpt-5.6-*): `none` to `xhigh`.
  { ids: ["gpt-5.*"], capabilities: reasoningModel(["none", "low", "medium", "high", "xhigh"]) },
  { ids: ["o1-mini*", "o1-preview*"], capabilities: { ...reasoningModel([]), strictJsonSchema: false } },
  { ids: ["o1", "o1-20*", "o3*", "o4-mini*"], capabilities: reasoningModel(["low", "medium", "high"]) },
  { ids: ["gpt-4.1*", "gpt-4o*", "chatgpt-4o-latest"], capabilities: chatModel },
  { ids: ["gpt-4-*", "gpt-4", "gpt-3.5*"], capabilities: { ...chatModel, strictJsonSchema: false } },
];

/**
 * Ids no row knows (a local or compatible server's model): a chat model that
 * takes `max_tokens` and the temperature, asked for `json_schema` with
 * `strict: true` (servers without strict decoding ignore the flag; set
 * `OPENAI_STRUCTURED_OUTPUT=json_object` for servers without json_schema).
 */
export const defaultOpenAICapabilities: OpenAICapabilities = Object.freeze({ ...chatModel, source: "default" });

/** One override of `ANTHROPIC_MODEL_CAPABILITIES`: the fields to change for the ids matching `pattern`. */
export interface CapabilityOverride<C> {
  pattern: string;
  capabilities: Partial<Omit<C, "source">>;
}

/**
 * The model id as the table knows it: lower case, without a router or cloud
 * prefix (`anthropic/`, `us.anthropic.`, `openai/`) or a snapshot suffix
 * (`-20250929`, `@20250929`, `-v1:0`).
 */
export function normaliseModelId(modelId: string): string {
  return modelId
    .trim()
    .toLowerCase()
    .replace(/^.*\//, "")
    .replace(/^(?:(?:us|eu|apac|global|jp|au)\.)?anthropic\./, "")
    .replace(/-v\d+(?::\d+)?$/, "")
    .replace(/[@-](?:20\d{6})$/, "");
}

/** Whether `modelId` (normalised) matches `pattern` (`*` wildcards, case-insensitive, whole id). */
export function matchesModelPattern(modelId: string, pattern: string): boolean {
  const source = pattern
    .toLowerCase()
    .split("*")
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
    .join(".*");
  return new RegExp(`^${source}$`).test(modelId);
}

function lookup<C extends { source: string }>(
  modelId: string,
  rows: readonly Row<C>[],
  fallback: (normalised: string) => C,
  overrides: readonly CapabilityOverride<C>[],
): C {
  const normalised = normaliseModelId(modelId);
  const row = rows.find((candidate) => candidate.ids.some((id) => matchesModelPattern(normalised, id)));
  let result = row ? ({ ...row.capabilities, source: normalised } as C) : fallback(normalised);
  for (const override of overrides) {
    if (
      matchesModelPattern(normalised, override.pattern) ||
      matchesModelPattern(modelId.toLowerCase(), override.pattern)
    ) {
      result = { ...result, ...override.capabilities, source: `override ${override.pattern}` };
    }
  }
  return result;
}

/**
 * The generation rule for Claude ids the table does not list
 * (`claude-<line>-<major>[-<minor>]`): 5.5 and later take the Opus 5.5
 * contract, the rest of the 5 family Opus 5's, 4.7 and later Opus 4.7's.
 */
function anthropicByGeneration(normalised: string): AnthropicCapabilities {
  const match = /^claude-(?:opus|sonnet|haiku|fable|mythos)-(\d+)(?:-(\d))?$/.exec(normalised);
  if (!match) return { ...defaultAnthropicCapabilities };
  const version = Number(match[1]) + Number(match[2] ?? 0) / 10;
  const like =
    version >= 5.5
      ? "claude-opus-5-5"
      : version >= 5
        ? "claude-opus-5"
        : version >= 4.7
          ? "claude-opus-4-7"
          : undefined;
  const row = like ? anthropicRows.find((candidate) => candidate.ids.includes(like)) : undefined;
  return row ? { ...row.capabilities, source: `generation rule (${like})` } : { ...defaultAnthropicCapabilities };
}

/** What the Anthropic model `modelId` accepts: its row, the generation rule, or the safe default; then `overrides`. */
export function anthropicCapabilities(
  modelId: string,
  overrides: readonly CapabilityOverride<AnthropicCapabilities>[] = [],
): AnthropicCapabilities {
  return lookup(modelId, anthropicRows, anthropicByGeneration, overrides);
}

/**
 * What the OpenAI model `modelId` accepts: its row or the safe default, then
 * `overrides`. `reasoningModels` (OPENAI_REASONING_MODELS) decides the
 * reasoning flag when given: a model it names gets the reasoning parameters
 * (with its row's efforts, or low to high), one it excludes the chat ones.
 */
export function openaiCapabilities(
  modelId: string,
  options: { overrides?: readonly CapabilityOverride<OpenAICapabilities>[]; isReasoning?: boolean } = {},
): OpenAICapabilities {
  const found = lookup(modelId, openaiRows, () => ({ ...defaultOpenAICapabilities }), []);
  let result = found;
  if (options.isReasoning === true && !found.reasoning) {
    result = {
      ...found,
      ...reasoningModel(found.effort.length > 0 ? found.effort : ["low", "medium", "high"]),
      strictJsonSchema: found.strictJsonSchema,
    };
  } else if (options.isReasoning === false && found.reasoning) {
    result = { ...found, ...chatModel, strictJsonSchema: found.strictJsonSchema };
  }
  return lookup(modelId, [], () => result, options.overrides ?? []);
}
