import {
  type AgentIntentDecision,
  agentIntentDecideTool,
  agentIntentDecisionSchema,
  type AgentIntentRequest,
  type AgentIntentResponse,
  DeliberateError,
} from "@deliberate/contracts";
import type { Clock, Engine, IdGenerator } from "@deliberate/engine";
import {
  createModelRouter,
  type ModelRouter,
  parseProviderEnvironment,
  type ProviderSettings,
} from "@deliberate/providers";
import { LazyInvokeOptions } from "../lazy-signal.ts";
import type { SecretRegistry } from "../logger.ts";
import type { Telemetry } from "../telemetry.ts";
import { modelsForRequest, type RouterFactory } from "./request-models.ts";

export interface IntentDeciderOptions {
  /** The engine that runs (and records) the decision tool. */
  engine: Engine;
  /** The server's provider configuration (one-off routers for `llm` start from it). */
  providers: ProviderSettings;
  /** The server's models (unconfigured when no provider is set: the heuristic decides). */
  serverModels: ModelRouter;
  clock: Clock;
  ids: IdGenerator;
  secrets: SecretRegistry;
  telemetry: Telemetry;
  /** Builds one-off routers for requests with `llm` (default createModelRouter). */
  createRouter?: RouterFactory;
}

/** Where a decision was asked from, for telemetry. */
export interface DecideOptions {
  signal: AbortSignal;
  requestId?: string | undefined;
  jobId?: string | undefined;
}

/** Decides an agent's next action: a tool call or finish. */
export interface IntentDecider {
  decide(request: AgentIntentRequest, options: DecideOptions): Promise<AgentIntentResponse>;
}

/** The unconfigured router, built once (it holds no state). */
let unconfigured: ModelRouter | undefined;
/** The unavailable routers by reason (a handful of texts: the server's configuration, the request's `llm`). */
const unavailableByReason = new Map<string, ModelRouter>();
const maxRememberedReasons = 32;

/** A router that cannot be used, saying why (the decision tool then uses the heuristic); stateless, so shared. */
function unavailableRouter(reason: string): ModelRouter {
  let router = unavailableByReason.get(reason);
  if (router === undefined) {
    unconfigured ??= createModelRouter(parseProviderEnvironment({}));
    router = { ...unconfigured, unavailableReason: reason };
    if (unavailableByReason.size >= maxRememberedReasons) unavailableByReason.clear();
    unavailableByReason.set(reason, router);
  }
  return router;
}

/**
 * The decision runs as the engine's `agent_intent_decide` tool (so it is
 * validated, recorded and counted in metrics) with the models this request
 * decides with: the request's `llm` router, the server's, or none (heuristic).
 * Telemetry and secret scrubbing wrap it here.
 */
export function createIntentDecider(options: IntentDeciderOptions): IntentDecider {
  /** The models this request decides with (synchronous: no promise of its own per request). */
  function modelsFor(request: AgentIntentRequest): ModelRouter {
    // Decisions that need no model (max_steps reached, forced_tool) never look at the request's llm choice.
    const maxSteps = request.max_steps ?? undefined;
    const needsNoModel =
      (request.forced_tool ?? undefined) !== undefined ||
      (maxSteps !== undefined && (request.history?.length ?? 0) >= maxSteps);
    if (needsNoModel) return unavailableRouter("not needed for this decision");
    const models = modelsForRequest({
      llm: request.llm,
      settings: options.providers,
      serverRouter: options.serverModels,
      ...(options.createRouter ? { createRouter: options.createRouter } : {}),
    });
    return models.unavailable === undefined ? models.router : unavailableRouter(models.unavailable);
  }

  /** The decision tool's call, returned as the engine's promise (not wrapped in further async functions). */
  function run(request: AgentIntentRequest, decideOptions: DecideOptions): Promise<Record<string, unknown>> {
    const { llm: _llm, callback_url: _callback, ...input } = request;
    // The signal is read only when the call asks for it (it may be made on demand, see createRequestSignals).
    return options.engine.invoke(
      agentIntentDecideTool.name,
      input,
      new LazyInvokeOptions(decideOptions, { models: modelsFor(request) }),
    );
  }

  return {
    async decide(request, decideOptions) {
      const started = performance.now();
      const intentId = options.ids.next("intent");
      const apiKey = request.llm?.api_key ?? undefined;
      options.secrets.add(apiKey);
      const common = {
        request_id: decideOptions.requestId,
        job_id: decideOptions.jobId,
        intent_id: intentId,
        session_id: request.session_id ?? undefined,
        correlation_id: request.correlation_id ?? undefined,
      };
      try {
        const { trace, ...decision } = decisionOf(await run(request, decideOptions));
        const duration = Math.round(performance.now() - started);
        options.telemetry.record({
          event: "intent.decided",
          ...common,
          duration_ms: duration,
          data: {
            decided_by: decision.decided_by,
            tool_name: decision.tool_name,
            finish: decision.finish,
            history_steps: request.history?.length ?? 0,
            tools_offered: request.tools?.length ?? null,
            ...(decision.model ? { provider: decision.model.provider, model: decision.model.model_id } : {}),
          },
        });
        return { status: "ok", duration_ms: duration, intent_id: intentId, ...decision, trace };
      } catch (error) {
        const failure = scrubbed(error, options.secrets, decideOptions.signal);
        options.telemetry.record({
          event: "intent.failed",
          level: "warn",
          ...common,
          duration_ms: Math.round(performance.now() - started),
          data: { code: failure.code, message: failure.message },
        });
        throw failure;
      } finally {
        options.secrets.delete(apiKey);
      }
    },
  };
}

/**
 * The engine returns the tool's output already parsed with this very schema (its output schema); only another
 * kind of answer (a host-executed call's needs_completion step) is checked again, and refused.
 */
function decisionOf(output: Record<string, unknown>): AgentIntentDecision {
  if (agentIntentDecideTool.outputSchema === agentIntentDecisionSchema && output["status"] !== "needs_completion")
    return output as AgentIntentDecision;
  return agentIntentDecisionSchema.parse(output);
}

/** The error as a DeliberateError with every known secret removed from its text (the cause is dropped). */
function scrubbed(error: unknown, secrets: SecretRegistry, signal: AbortSignal): DeliberateError {
  if (!DeliberateError.isInstance(error)) {
    if (signal.aborted) return new DeliberateError({ code: "CANCELLED", message: "The decision was cancelled." });
    return new DeliberateError({
      code: "INTERNAL",
      message: `Internal error: ${secrets.scrub(error instanceof Error ? error.message : String(error))}`,
    });
  }
  return new DeliberateError({
    code: error.code,
    message: secrets.scrub(error.message),
    issues: error.issues.map((issue) => ({ field: issue.field, message: secrets.scrub(issue.message) })),
    ...(error.hint ? { hint: secrets.scrub(error.hint) } : {}),
    retryable: error.retryable,
  });
}
