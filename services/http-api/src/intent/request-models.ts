import { createModelRouter, type ModelRouter, type ProviderSettings } from "@deliberate/providers";
import { invalidField } from "../errors.ts";
import type { AgentIntentRequest } from "@deliberate/contracts";

/** The models one request decides with, and why. */
export interface RequestModels {
  router: ModelRouter;
  /** True when the request's `llm` chose the provider, model or key. */
  fromRequest: boolean;
  /** Set when a model cannot be used: what is missing (then the heuristic decides). */
  unavailable: string | undefined;
}

export type RouterFactory = (settings: ProviderSettings) => ModelRouter;

/**
 * Picks the models for one request. Without `llm` the server's router serves;
 * with it, a one-off router is built from the server settings with the
 * request's provider, model and key laid over them (the key lives only in
 * that router, for this call). A caller cannot point the server at another
 * base URL: only the configured endpoints are reachable.
 */
export function modelsForRequest(options: {
  llm: AgentIntentRequest["llm"];
  settings: ProviderSettings;
  serverRouter: ModelRouter;
  createRouter?: RouterFactory;
}): RequestModels {
  const llm = options.llm ?? undefined;
  const provider = llm?.provider ?? undefined;
  const model = llm?.model ?? undefined;
  const apiKey = llm?.api_key ?? undefined;
  if (provider === undefined && model === undefined && apiKey === undefined) {
    return {
      router: options.serverRouter,
      fromRequest: false,
      unavailable: options.serverRouter.configured ? undefined : describeMissing(options.settings),
    };
  }
  const chosen = provider ?? (options.settings.provider === "none" ? undefined : options.settings.provider);
  if (chosen === undefined) {
    if (apiKey !== undefined) {
      throw invalidField(
        "llm.provider",
        "required with llm.api_key when the server has no provider configured",
        "Send llm.provider (anthropic or openai) with the key.",
      );
    }
    return {
      router: options.serverRouter,
      fromRequest: false,
      unavailable: `llm.model was given but no provider is configured (${describeMissing(options.settings)})`,
    };
  }
  const connection = options.settings[chosen];
  const settings: ProviderSettings = {
    ...options.settings,
    provider: chosen,
    reason: "chosen by the request's llm field",
    anthropic: chosen === "anthropic" ? overlay(options.settings.anthropic, apiKey, model) : options.settings.anthropic,
    openai: chosen === "openai" ? overlay(options.settings.openai, apiKey, model) : options.settings.openai,
    missing: undefined,
  };
  const usable = (apiKey ?? connection.apiKey ?? connection.baseURL) !== undefined;
  if (!usable) {
    const variable = chosen === "anthropic" ? "ANTHROPIC_API_KEY" : "OPENAI_API_KEY (or OPENAI_BASE_URL)";
    return {
      router: options.serverRouter,
      fromRequest: true,
      unavailable: `llm.provider is ${chosen} but no key was given (llm.api_key) or configured (${variable})`,
    };
  }
  return { router: (options.createRouter ?? createModelRouter)(settings), fromRequest: true, unavailable: undefined };
}

function overlay<C extends { apiKey: string | undefined; modeModels: ProviderSettings["anthropic"]["modeModels"] }>(
  connection: C,
  apiKey: string | undefined,
  model: string | undefined,
): C {
  return {
    ...connection,
    apiKey: apiKey ?? connection.apiKey,
    modeModels: model === undefined ? connection.modeModels : { ...connection.modeModels, auto: model },
  };
}

function describeMissing(settings: ProviderSettings): string {
  if (settings.missing) return `${settings.missing} is not set`;
  return "no model provider is configured: set ANTHROPIC_API_KEY, OPENAI_API_KEY or OPENAI_BASE_URL";
}
