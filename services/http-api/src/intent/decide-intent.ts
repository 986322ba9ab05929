import { DeliberateError } from "@deliberate/contracts";
import { type Clock, generateWithMode, type IdGenerator, type ModeSettings } from "@deliberate/core";
import type { ModelRouter, ProviderSettings } from "@deliberate/providers";
import { invalidField } from "../errors.ts";
import type { SecretRegistry } from "../logger.ts";
import type { Telemetry } from "../telemetry.ts";
import type { AgentIntentRequest, AgentIntentResponse, TraceEntry } from "./agent-intent.schema.ts";
import { argumentsFromGoal, decideByHeuristic } from "./heuristic.ts";
import { createIntentMode } from "./intent-mode.ts";
import { checkToolArguments, compileOfferedTools, finishChoice, type OfferedTool } from "./offered-tools.ts";
import { modelsForRequest, type RouterFactory } from "./request-models.ts";

export interface IntentDeciderOptions {
  /** The server's provider configuration (one-off routers for `llm` start from it). */
  providers: ProviderSettings;
  /** The server's models (unconfigured when no provider is set: the heuristic decides). */
  serverModels: ModelRouter;
  /** Settings of the auto mode, used for the decision call. */
  modeSettings: ModeSettings;
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

type Decision = Pick<AgentIntentResponse, "tool_name" | "tool_args" | "reasoning" | "finish" | "final_text" | "decided_by" | "model">;

/**
 * The decision, in order: the offered tools are checked (and compiled to
 * validators); `max_steps` reached ends the run; `forced_tool` short-circuits;
 * otherwise the model decides with structured output constrained to the
 * offered tools (its tool_args checked in code, a violation rejected), or,
 * when no model is configured, the heuristic.
 */
export function createIntentDecider(options: IntentDeciderOptions): IntentDecider {
  async function decideWithModel(request: AgentIntentRequest, tools: readonly OfferedTool[], router: ModelRouter, trace: TraceEntry[], signal: AbortSignal): Promise<Decision> {
    const mode = createIntentMode(tools);
    const model = router.forMode(mode.mode);
    const started = performance.now();
    const result = await generateWithMode(model, mode, request, { settings: options.modeSettings, signal });
    const answer = result.object;
    trace.push({
      step: "model",
      detail: `${model.provider} ${result.modelId} chose ${answer.tool_name} (${result.usage.inputTokens} tokens in, ${result.usage.outputTokens} out)`,
      duration_ms: Math.round(performance.now() - started),
    });
    // The schema already enforces this; check again so nothing unchecked can ever be passed on.
    if (answer.tool_name === finishChoice) {
      return {
        tool_name: null,
        tool_args: {},
        reasoning: answer.reasoning,
        finish: true,
        final_text: answer.final_text.trim() === "" ? answer.reasoning : answer.final_text,
        decided_by: "model",
        model: { provider: model.provider, model_id: result.modelId },
      };
    }
    const tool = tools.find((candidate) => candidate.name === answer.tool_name);
    const issues = tool
      ? checkToolArguments(tool, answer.tool_args)
      : [{ field: "tool_name", message: `'${answer.tool_name}' is not one of the offered tools` }];
    if (issues.length > 0) {
      throw new DeliberateError({
        code: "MODEL_OUTPUT_INVALID",
        message: `The model chose an action outside the offered tools' contract: ${issues.map((issue) => `${issue.field}: ${issue.message}`).join("; ")}`,
        issues,
        hint: "Nothing was passed on. Call again, or configure a more capable model for the auto mode.",
      });
    }
    trace.push({ step: "validate_tool_args", detail: `tool_args valid against ${answer.tool_name}'s schema` });
    return {
      tool_name: answer.tool_name,
      tool_args: answer.tool_args,
      reasoning: answer.reasoning,
      finish: false,
      final_text: null,
      decided_by: "model",
      model: { provider: model.provider, model_id: result.modelId },
    };
  }

  async function decideInner(request: AgentIntentRequest, trace: TraceEntry[], signal: AbortSignal): Promise<Decision> {
    const tools = compileOfferedTools(request.tools);
    trace.push({
      step: "tools",
      detail: `${request.tools ? "offered" : "default"}: ${tools.map((tool) => tool.name).join(", ") || "(none)"}`,
    });
    const history = request.history ?? [];
    const goal = request.goal_text ?? "";

    const maxSteps = request.max_steps ?? undefined;
    if (maxSteps !== undefined && history.length >= maxSteps) {
      const reason = `Stopped: the run reached max_steps (${history.length} step(s) taken, limit ${maxSteps}).`;
      trace.push({ step: "max_steps", detail: reason });
      return { tool_name: null, tool_args: {}, reasoning: reason, finish: true, final_text: reason, decided_by: "max_steps" };
    }

    const forced = request.forced_tool ?? undefined;
    if (forced !== undefined) {
      const offered = tools.find((tool) => tool.name === forced);
      if (!offered && request.tools) {
        throw invalidField("forced_tool", `'${forced}' is not one of the offered tools`, `Offer it in tools, or force one of: ${tools.map((tool) => tool.name).join(", ")}.`);
      }
      const tool: OfferedTool = offered ?? { name: forced, description: "", inputSchema: undefined, validator: undefined };
      const built = argumentsFromGoal(tool, goal);
      if (!built.ok) throw invalidField("forced_tool", built.problem, "Force a tool whose required arguments can be filled from goal_text, or let the decision run.");
      trace.push({ step: "forced_tool", detail: `forced_tool ${forced}: no decision made` });
      return {
        tool_name: forced,
        tool_args: built.args,
        reasoning: `forced_tool: ${forced} was requested.`,
        finish: false,
        final_text: null,
        decided_by: "forced_tool",
      };
    }

    const models = modelsForRequest({
      llm: request.llm,
      settings: options.providers,
      serverRouter: options.serverModels,
      ...(options.createRouter ? { createRouter: options.createRouter } : {}),
    });
    if (models.unavailable === undefined) return decideWithModel(request, tools, models.router, trace, signal);

    const heuristic = decideByHeuristic({ goal, history, tools });
    trace.push({ step: "heuristic", detail: `${heuristic.rule} (no model: ${models.unavailable})` });
    return {
      tool_name: heuristic.toolName,
      tool_args: heuristic.toolArgs,
      reasoning: heuristic.reasoning,
      finish: heuristic.toolName === null,
      final_text: heuristic.finalText,
      decided_by: "heuristic",
    };
  }

  return {
    async decide(request, decideOptions) {
      const started = performance.now();
      const intentId = options.ids.next("intent");
      const trace: TraceEntry[] = [];
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
        const decision = await decideInner(request, trace, decideOptions.signal);
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

/** The error as a DeliberateError with every known secret removed from its text (the cause is dropped). */
function scrubbed(error: unknown, secrets: SecretRegistry, signal: AbortSignal): DeliberateError {
  if (!DeliberateError.isInstance(error)) {
    if (signal.aborted) return new DeliberateError({ code: "CANCELLED", message: "The decision was cancelled." });
    return new DeliberateError({ code: "INTERNAL", message: `Internal error: ${secrets.scrub(error instanceof Error ? error.message : String(error))}` });
  }
  return new DeliberateError({
    code: error.code,
    message: secrets.scrub(error.message),
    issues: error.issues.map((issue) => ({ field: issue.field, message: secrets.scrub(issue.message) })),
    ...(error.hint ? { hint: secrets.scrub(error.hint) } : {}),
    retryable: error.retryable,
  });
}

