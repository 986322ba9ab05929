import { hostModelRouter } from "@deliberate/engine";
import { DeliberateError } from "@deliberate/contracts";
import {
  createModelRouterFromModel,
  createSamplingModel,
  type ModelRouter,
  type ProviderSettings,
  resolveKeylessMode,
  type SamplingRequest,
  type SamplingResponse,
} from "@deliberate/providers";

/** What a tool call knows about the connected client. */
export interface ClientSampling {
  /** The client declared the sampling capability on a connection that can carry server→client requests. */
  offered: boolean;
  request: (request: SamplingRequest, options: { signal?: AbortSignal }) => Promise<SamplingResponse>;
}

const samplingUnavailable: ModelRouter = {
  provider: "sampling",
  configured: false,
  forMode: () => ({
    provider: "sampling",
    modelId: "none",
    generate: () =>
      Promise.reject(
        new DeliberateError({
          code: "PROVIDER_NOT_CONFIGURED",
          message: "DELIBERATE_PROVIDER=sampling, but this client does not offer MCP sampling.",
          hint: "Connect a client that supports sampling, set DELIBERATE_PROVIDER=host to answer prompts yourself, or configure ANTHROPIC_API_KEY / OPENAI_API_KEY.",
        }),
      ),
  }),
};

/**
 * The models for one tool call when no server-side provider is configured
 * (ARCHITECTURE §3): the client's model through sampling when it offers it and
 * sampling is preferred, else host-executed completions. Undefined means "use
 * the engine's own router" (a configured provider, or one missing its key,
 * which then fails naming the variable).
 */
export function modelsForCall(settings: ProviderSettings, client: ClientSampling): ModelRouter | undefined {
  if (settings.provider !== "none") return undefined;
  const mode = resolveKeylessMode(settings, { sampling: client.offered });
  if (mode === "sampling") {
    return createModelRouterFromModel(
      createSamplingModel({ createMessage: (request, options) => client.request(request, options) }),
    );
  }
  if (mode === "host") return hostModelRouter;
  return samplingUnavailable;
}
