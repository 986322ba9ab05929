import { DeliberateError, type FieldIssue } from "@deliberate/base";
import type { OpenAIStructuredOutput } from "./openai-model.ts";
import { parseAnthropicCapabilityOverrides, parseOpenAICapabilityOverrides } from "./capability-overrides.ts";
import type { AnthropicCapabilities, CapabilityOverride, OpenAICapabilities } from "./model-capabilities.ts";
import { defaultReasoningModels } from "./reasoning-models.ts";

/** The server-side providers that configuration can choose. */
export type ProviderName = "anthropic" | "openai";

/**
 * How model-backed calls run when no server-side provider is configured:
 * `sampling` asks the connected MCP client's model (when it offers sampling),
 * `host` returns the prompts to the calling agent (needs_completion).
 */
export type KeylessMode = "sampling" | "host";

/** Default preference when no key is configured: the client's model if offered, else the calling agent. */
export const defaultKeylessOrder: readonly KeylessMode[] = ["sampling", "host"];

/** Connection and model settings of one provider. */
export interface ProviderConnectionSettings {
  apiKey: string | undefined;
  baseURL: string | undefined;
  /** `<PROVIDER>_MODEL`: the provider's default model id, when set. */
  model: string | undefined;
  /** `<PROVIDER>_MODEL_<MODE>`: per-mode model ids. */
  modeModels: Partial<Record<string, string>>;
}

/** Anthropic settings: connection plus changes to the capability table. */
export interface AnthropicConnectionSettings extends ProviderConnectionSettings {
  /** `ANTHROPIC_MODEL_CAPABILITIES`: capabilities for model ids the table does not know (or knows wrongly). */
  capabilities: CapabilityOverride<AnthropicCapabilities>[];
}

/** OpenAI settings: connection plus how structured answers are requested. */
export interface OpenAIConnectionSettings extends ProviderConnectionSettings {
  /** `OPENAI_STRUCTURED_OUTPUT`; `json_object` for servers without json_schema support. */
  structuredOutput: OpenAIStructuredOutput;
  /**
   * `OPENAI_REASONING_MODELS`: which model ids get `max_completion_tokens`
   * and no temperature (`default` = o-series and gpt-5; `*` wildcards;
   * `!id` excludes; `none` for no model). Default `["default"]`.
   */
  reasoningModels: string[];
  /** `OPENAI_MODEL_CAPABILITIES`: capabilities for model ids the table does not know (or knows wrongly). */
  capabilities: CapabilityOverride<OpenAICapabilities>[];
}

/** Provider configuration, parsed once from the environment by each service. */
export interface ProviderSettings {
  /** The provider to use, or `none` when nothing selects one. */
  provider: ProviderName | "none";
  /** Why that provider was chosen, e.g. `ANTHROPIC_API_KEY is set`. */
  reason: string;
  /**
   * When the chosen provider cannot be used yet: the variable to set
   * (e.g. DELIBERATE_PROVIDER=anthropic without ANTHROPIC_API_KEY).
   */
  missing: string | undefined;
  anthropic: AnthropicConnectionSettings;
  openai: OpenAIConnectionSettings;
  /** `REQUEST_TIMEOUT_MS`, default 60,000: per-request timeout of the SDKs. */
  timeoutMs: number;
  /** `MAX_RETRIES`, default 3: SDK retries on 429, 5xx and connection failures. */
  maxRetries: number;
  /** Non-fatal findings, e.g. `ANTHROPIC_MODEL_LINEA` names no mode. */
  warnings: string[];
  /**
   * With no server-side provider: the keyless modes in order of preference
   * (`DELIBERATE_KEYLESS_ORDER`, default sampling,host; `DELIBERATE_PROVIDER=sampling|host` picks one).
   */
  keyless: KeylessMode[];
}

/** Model ids used when configuration names none. */
export const defaultModelIds = {
  anthropic: { default: "claude-sonnet-5", modes: { auto: "claude-haiku-4-5" } },
  openai: { default: "gpt-5-mini", modes: {} },
} as const satisfies Record<ProviderName, { default: string; modes: Partial<Record<string, string>> }>;

/** Defaults of the numeric settings. */
export const defaultRequestTimeoutMs = 60_000;
export const defaultMaxRetries = 3;
const maximumRetries = 10;

type Environment = Record<string, string | undefined>;

/**
 * Reads provider configuration from environment variables: DELIBERATE_PROVIDER,
 * ANTHROPIC_API_KEY / _BASE_URL / _MODEL / _MODEL_<MODE>, OPENAI_API_KEY /
 * _BASE_URL / _MODEL / _MODEL_<MODE> / _STRUCTURED_OUTPUT / _REASONING_MODELS, REQUEST_TIMEOUT_MS,
 * MAX_RETRIES. Empty values count as unset. Selection: DELIBERATE_PROVIDER,
 * else ANTHROPIC_API_KEY -> anthropic, else OPENAI_API_KEY or OPENAI_BASE_URL
 * -> openai, else none.
 *
 * @throws DeliberateError INVALID_INPUT naming every invalid variable.
 */
export function parseProviderEnvironment(env: Environment): ProviderSettings {
  const issues: FieldIssue[] = [];
  const warnings: string[] = [];
  const read = (name: string): string | undefined => {
    const value = env[name]?.trim();
    return value === undefined || value.length === 0 ? undefined : value;
  };

  const choice = parseChoice(
    read("DELIBERATE_PROVIDER"),
    "DELIBERATE_PROVIDER",
    ["anthropic", "openai", "sampling", "host"],
    issues,
  );
  const explicit = choice === "anthropic" || choice === "openai" ? choice : undefined;
  const keylessChoice = choice === "sampling" || choice === "host" ? choice : undefined;
  const keyless = keylessChoice ? [keylessChoice] : parseKeylessOrder(read("DELIBERATE_KEYLESS_ORDER"), issues);
  const anthropic: AnthropicConnectionSettings = {
    apiKey: read("ANTHROPIC_API_KEY"),
    baseURL: parseURL(read("ANTHROPIC_BASE_URL"), "ANTHROPIC_BASE_URL", issues),
    model: read("ANTHROPIC_MODEL"),
    modeModels: readModeModels(env, "ANTHROPIC_MODEL_"),
    capabilities: parseAnthropicCapabilityOverrides(read("ANTHROPIC_MODEL_CAPABILITIES"), issues),
  };
  const openai: OpenAIConnectionSettings = {
    apiKey: read("OPENAI_API_KEY"),
    baseURL: parseURL(read("OPENAI_BASE_URL"), "OPENAI_BASE_URL", issues),
    model: read("OPENAI_MODEL"),
    modeModels: readModeModels(env, "OPENAI_MODEL_"),
    structuredOutput:
      parseChoice(
        read("OPENAI_STRUCTURED_OUTPUT"),
        "OPENAI_STRUCTURED_OUTPUT",
        ["json_schema", "json_object"],
        issues,
      ) ?? "json_schema",
    reasoningModels: parseReasoningModels(read("OPENAI_REASONING_MODELS"), issues),
    capabilities: parseOpenAICapabilityOverrides(read("OPENAI_MODEL_CAPABILITIES"), issues),
  };
  const timeoutMs =
    parseInteger(read("REQUEST_TIMEOUT_MS"), "REQUEST_TIMEOUT_MS", { minimum: 1 }, issues) ?? defaultRequestTimeoutMs;
  const maxRetries =
    parseInteger(read("MAX_RETRIES"), "MAX_RETRIES", { minimum: 0, maximum: maximumRetries }, issues) ??
    defaultMaxRetries;

  if (issues.length > 0) {
    throw new DeliberateError({
      code: "INVALID_INPUT",
      message: `Invalid provider configuration: ${issues.map((issue) => `${issue.field}: ${issue.message}`).join("; ")}`,
      issues,
      hint: "Fix the named environment variables (or unset them to use the defaults) and restart.",
    });
  }

  const { provider, reason } = keylessChoice
    ? { provider: "none" as const, reason: `DELIBERATE_PROVIDER is ${keylessChoice}` }
    : selectProvider(explicit, anthropic, openai);
  return {
    provider,
    reason,
    missing: missingFor(provider, anthropic, openai),
    anthropic,
    openai,
    timeoutMs,
    maxRetries,
    warnings,
    keyless,
  };
}

/**
 * The keyless mode in force for a connection when no server-side provider is
 * configured: the first of `settings.keyless` that is available (host always is).
 * Undefined when a server-side provider is configured or nothing is available.
 */
export function resolveKeylessMode(
  settings: ProviderSettings,
  available: { sampling: boolean },
): KeylessMode | undefined {
  if (settings.provider !== "none") return undefined;
  return settings.keyless.find((mode) => mode === "host" || available.sampling);
}

/** The model id a mode uses: `<PROVIDER>_MODEL_<MODE>`, else `<PROVIDER>_MODEL`, else the built-in default. */
export function modelIdForMode(settings: ProviderSettings, mode: string): string | undefined {
  if (settings.provider === "none") return undefined;
  const connection = settings[settings.provider];
  const builtIn: { default: string; modes: Partial<Record<string, string>> } = defaultModelIds[settings.provider];
  return connection.modeModels[mode] ?? connection.model ?? builtIn.modes[mode] ?? builtIn.default;
}

/** An API key as printed: whether it is set, never its value. */
export type RedactedSecret = "(set)" | "(not set)";

/** ProviderSettings fit for printing (see `redactSettings`). */
export interface RedactedProviderSettings extends Omit<ProviderSettings, "anthropic" | "openai"> {
  anthropic: Omit<AnthropicConnectionSettings, "apiKey"> & { apiKey: RedactedSecret };
  openai: Omit<OpenAIConnectionSettings, "apiKey"> & { apiKey: RedactedSecret };
}

/** Settings fit for printing: API keys become `(set)` / `(not set)`, passwords in URLs are masked. */
export function redactSettings(settings: ProviderSettings): RedactedProviderSettings {
  const redactConnection = <C extends ProviderConnectionSettings>(
    connection: C,
  ): Omit<C, "apiKey"> & { apiKey: RedactedSecret } => ({
    ...connection,
    apiKey: connection.apiKey === undefined ? "(not set)" : "(set)",
    baseURL: connection.baseURL === undefined ? undefined : redactURL(connection.baseURL),
    modeModels: { ...connection.modeModels },
  });
  const openai = redactConnection(settings.openai);
  return {
    ...settings,
    anthropic: { ...redactConnection(settings.anthropic), capabilities: [...settings.anthropic.capabilities] },
    openai: { ...openai, reasoningModels: [...openai.reasoningModels], capabilities: [...openai.capabilities] },
    warnings: [...settings.warnings],
    keyless: [...settings.keyless],
  };
}

function selectProvider(
  explicit: ProviderName | undefined,
  anthropic: ProviderConnectionSettings,
  openai: ProviderConnectionSettings,
): { provider: ProviderName | "none"; reason: string } {
  if (explicit) return { provider: explicit, reason: `DELIBERATE_PROVIDER is ${explicit}` };
  if (anthropic.apiKey) return { provider: "anthropic", reason: "ANTHROPIC_API_KEY is set" };
  if (openai.apiKey) return { provider: "openai", reason: "OPENAI_API_KEY is set" };
  if (openai.baseURL) return { provider: "openai", reason: "OPENAI_BASE_URL is set" };
  return {
    provider: "none",
    reason: "none of DELIBERATE_PROVIDER, ANTHROPIC_API_KEY, OPENAI_API_KEY, OPENAI_BASE_URL is set",
  };
}

/** A provider needs a key, or a base URL (a gateway or local server that needs none). */
function missingFor(
  provider: ProviderName | "none",
  anthropic: ProviderConnectionSettings,
  openai: ProviderConnectionSettings,
): string | undefined {
  if (provider === "anthropic" && !anthropic.apiKey && !anthropic.baseURL) return "ANTHROPIC_API_KEY";
  if (provider === "openai" && !openai.apiKey && !openai.baseURL) return "OPENAI_API_KEY (or OPENAI_BASE_URL)";
  return undefined;
}

/** `<PREFIX><MODE>` variables, for any mode id (modes are registered by modules; see `unknownModeModels`). */
function readModeModels(env: Environment, prefix: string): Partial<Record<string, string>> {
  const models: Partial<Record<string, string>> = {};
  for (const [name, raw] of Object.entries(env)) {
    if (!name.startsWith(prefix)) continue;
    const value = raw?.trim();
    const mode = name.slice(prefix.length).toLowerCase();
    if (mode === "capabilities") continue; // <PROVIDER>_MODEL_CAPABILITIES is the capability table, not a mode
    if (value && mode) models[mode] = value;
  }
  return models;
}

/**
 * Warnings for per-mode model variables that name no registered mode (e.g. a
 * misspelt `ANTHROPIC_MODEL_LINEAER`), given the modes the composed modules register.
 */
export function unknownModeModels(settings: ProviderSettings, registeredModes: Iterable<string>): string[] {
  const known = new Set(registeredModes);
  const connections = [
    { prefix: "ANTHROPIC_MODEL_", modes: Object.keys(settings.anthropic.modeModels) },
    { prefix: "OPENAI_MODEL_", modes: Object.keys(settings.openai.modeModels) },
  ];
  return connections.flatMap(({ prefix, modes }) =>
    modes
      .filter((mode) => !known.has(mode))
      .map(
        (mode) =>
          `${prefix}${mode.toUpperCase()} names no mode (modes: ${[...known].map((id) => id.toUpperCase()).join(", ")}); it is ignored.`,
      ),
  );
}

function parseChoice<const C extends string>(
  value: string | undefined,
  name: string,
  choices: readonly C[],
  issues: FieldIssue[],
): C | undefined {
  if (value === undefined) return undefined;
  const normalised = value.toLowerCase();
  const choice = choices.find((candidate) => candidate === normalised);
  if (choice === undefined)
    issues.push({ field: name, message: `must be one of ${choices.join(", ")} (got "${value}")` });
  return choice;
}

function parseInteger(
  value: string | undefined,
  name: string,
  range: { minimum: number; maximum?: number },
  issues: FieldIssue[],
): number | undefined {
  if (value === undefined) return undefined;
  const parsed = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  const inRange =
    Number.isSafeInteger(parsed) && parsed >= range.minimum && (range.maximum === undefined || parsed <= range.maximum);
  if (inRange) return parsed;
  const bounds = range.maximum === undefined ? `>= ${range.minimum}` : `from ${range.minimum} to ${range.maximum}`;
  issues.push({ field: name, message: `must be a whole number ${bounds} (got "${value}")` });
  return undefined;
}

function parseURL(value: string | undefined, name: string, issues: FieldIssue[]): string | undefined {
  if (value === undefined) return undefined;
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (url && (url.protocol === "http:" || url.protocol === "https:")) return value;
  issues.push({
    field: name,
    message: `must be an http(s) URL, e.g. http://localhost:11434/v1 (got "${redactURL(value)}")`,
  });
  return undefined;
}

function redactURL(value: string): string {
  try {
    const url = new URL(value);
    if (!url.password && !url.username) return value;
    url.username = url.username ? "***" : "";
    url.password = url.password ? "***" : "";
    return url.toString();
  } catch {
    return value;
  }
}

/** Comma-separated model id patterns (`*` wildcards, `default`, `!id`), or `none`. */
function parseReasoningModels(value: string | undefined, issues: FieldIssue[]): string[] {
  if (value === undefined) return [...defaultReasoningModels];
  const entries = value
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part.length > 0);
  if (entries.length === 1 && entries[0]?.toLowerCase() === "none") return [];
  const invalid = entries.filter((entry) => !/^!?[\w.:/*-]+$/.test(entry));
  if (entries.length === 0 || invalid.length > 0) {
    issues.push({
      field: "OPENAI_REASONING_MODELS",
      message: `must list model ids (with * wildcards, default for o-series and gpt-5, !id to exclude) or none, comma-separated (got "${value}")`,
    });
    return [...defaultReasoningModels];
  }
  return entries;
}

function parseKeylessOrder(value: string | undefined, issues: FieldIssue[]): KeylessMode[] {
  if (value === undefined) return [...defaultKeylessOrder];
  const modes = value
    .split(",")
    .map((part) => part.trim().toLowerCase())
    .filter((part) => part.length > 0);
  const invalid = modes.filter((mode) => mode !== "sampling" && mode !== "host");
  if (modes.length === 0 || invalid.length > 0) {
    issues.push({
      field: "DELIBERATE_KEYLESS_ORDER",
      message: `must list sampling and/or host, comma-separated (got "${value}")`,
    });
    return [...defaultKeylessOrder];
  }
  return [...new Set(modes as KeylessMode[])];
}
