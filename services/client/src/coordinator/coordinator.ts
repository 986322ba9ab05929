import {
  type AvailableTool,
  type ContextData,
  type CoTVariation,
  type ExecuteTaskRequestInput,
  type ExecuteTaskResponse,
  endSessionTool,
  executeTaskTool,
  knowledgeGraphMethods,
  type ReasoningTrace,
  type ReasoningType,
  type ToolCallRequest,
  type UpdatedSessionState,
} from "@deliberate/contracts";
import type { DeliberateClient } from "../client.ts";
import { DeliberateClientError, isClientError } from "../errors.ts";
import { type ReasoningVia, reasoningVia } from "../reasoning-operations.ts";
import { anySignal, timeoutSignal } from "../signals.ts";
import { type CoordinatorBounds, type CoordinatorPhase, type CoordinatorTimingOptions, resolveBounds } from "./bounds.ts";
import { type CachedCapability, createCapabilityCache } from "./capability-cache.ts";
import type { CoordinatorEvent, CoordinatorEventListener } from "./events.ts";
import { classifyFailure, type FailureKind, failureOf, fallbackAction, type ReasoningFailure, unavailableMessage } from "./fallback.ts";
import { analyzeQuery, type QueryAnalysis } from "./heuristics.ts";
import { type CoordinatorPolicy, type CoordinatorPolicyOverrides, resolvePolicy } from "./policy.ts";
import { watchLiveness } from "./liveness.ts";
import {
  type ConfidenceBand,
  confidenceBand,
  defaultHedges,
  type HedgeTemplates,
  lowConfidenceReason,
  serverConfidence,
  summarizeWork,
  userInputPrompt,
  type WorkSummary,
} from "./presentation.ts";
import { type FollowUpFinding, refinementSummary } from "./refinement.ts";
import { decideRoute, type GateResult, type Route, type RouteDecision, type StandardAnswer, shouldEscalate } from "./routing.ts";
import { createMemoryStateStore, type ReasoningStateStore } from "./state-store.ts";
import { selectReasoningType, type TypeSelection } from "./type-selection.ts";

/** One user query, as the host hands it to the coordinator. */
export interface CoordinatorRequest {
  query: string;
  /** The host's conversation (for session coherence across turns). */
  conversationId?: string;
  agentId?: string;
  /** The conversation so far, as text (sent as `contextData.historicalConversation`). */
  history?: string;
  /** Facts and premises the host knows (sent as `contextData.domainKnowledge`). */
  domainKnowledge?: string;
  /** The host's intent class, if it classifies intents. */
  intent?: string;
  /** The host's task type, when the agent runs a multi-step task. */
  taskType?: string;
  /** Aborts everything (the outcome is then an ABORTED error, not a fallback). */
  signal?: AbortSignal;
}

/** The host's standard processing (its own model call): the baseline, the tiered first attempt and the fallback. */
export type StandardProcessor = (request: { query: string; history?: string; signal?: AbortSignal }) => Promise<StandardAnswer>;

/**
 * Judges the answer to the user's question (§1.3.3 Q&A refinement): enough, or one precise follow-up question.
 * `answer` is always the answer to `query` (the original question); what the follow-ups found so far is in `findings`.
 */
export type CritiqueFunction = (input: {
  query: string;
  answer: string;
  confidence: number | null;
  trace: ReasoningTrace | null;
  /** 0 for the first answer, then 1, ... */
  cycle: number;
  /** The follow-up questions asked so far and what each found. */
  findings: readonly FollowUpFinding[];
  signal: AbortSignal;
}) => Promise<{ sufficient: true } | { followUp: string } | null | undefined> | { sufficient: true } | { followUp: string } | null | undefined;

/** Runs a tool the server asked for (status `pending_tool_call`); a throw is sent back as a failed tool result. */
export type ToolExecutor = (request: ToolCallRequest, context: { reasoningSessionId: string; signal: AbortSignal }) => Promise<unknown> | unknown;

/**
 * The coordinator's options. Timing (`CoordinatorTimingOptions`): every phase has a deadline (health check,
 * capability read, each request, the liveness watch, the whole turn, endSession); see `coordinator.bounds`.
 */
export interface ReasoningCoordinatorOptions extends CoordinatorTimingOptions {
  /** The client of the reasoning server (REST or MCP), with `complete` when the server has no model of its own. */
  client: DeliberateClient;
  /** The host's standard processing. */
  standard: StandardProcessor;
  /** The agent's `advanced_reasoning_enabled` (gate 1). Default true. */
  enabled?: boolean;
  critique?: CritiqueFunction;
  /** Runs host tools for the server; with it, `availableTools` are offered in `contextData.availableTools`. */
  executeTool?: ToolExecutor;
  availableTools?: AvailableTool[];
  /** Thresholds, keyword lists, mappings (all optional; see `defaultPolicy`). */
  policy?: CoordinatorPolicyOverrides;
  /** Multi-turn state, the capability cache and the health gate. Default in memory. */
  store?: ReasoningStateStore;
  /** Most follow-up questions per query (§1.3.3 MAX_REFINEMENT_CYCLES). Default 2. */
  maxRefinementCycles?: number;
  /** Most host tool calls per query. Default 8. */
  maxToolCalls?: number;
  /** Capability cache lifetime when the server gives no hint. Default 10 minutes. */
  capabilityTtlMs?: number;
  /** How long a health check result is kept (gate 2). Default 30 s. */
  healthTtlMs?: number;
  /** Sent as `outputRequirements`. */
  maxSteps?: number;
  desiredConfidenceLevel?: number;
  /** Sent when the server supports it. */
  preferredCoTVariation?: CoTVariation;
  /** How each confidence band is phrased. */
  hedges?: Partial<HedgeTemplates>;
  onEvent?: CoordinatorEventListener;
  now?: () => number;
  /** New task ids (the first of a query is its `reasoningSessionId`, §1.3.4). Default random UUIDs. */
  newId?: () => string;
}

/** Whether and how a query is handled, before anything is called. */
export interface InvocationDecision {
  route: Route;
  routeReason: string;
  gate: GateResult;
  analysis: QueryAnalysis;
  /** Null when the route is standard before the capability check. */
  selection: TypeSelection | null;
  capability: CachedCapability | null;
}

/** What the host shows. `text` is ready to display; the rest is for details, logs and UI. */
export type CoordinatorOutcome =
  | {
      kind: "answer";
      source: "reasoning";
      text: string;
      /** The server's answer, unhedged. */
      answer: string;
      confidence: number | null;
      band: ConfidenceBand;
      /** "Show my work". */
      summary: WorkSummary;
      reasoningSessionId: string;
      refinementCycles: number;
      /** What the refinement loop's follow-up questions found (the answer was synthesised from them). */
      followUps: FollowUpFinding[];
      decision: InvocationDecision;
      /** low_confidence, or max_iterations with a partial answer; `notice` is its message for the user. */
      failure?: ReasoningFailure;
      notice?: string;
      /** A refinement call that failed after an answer was already in hand. */
      refinementFailure?: ReasoningFailure;
      /** The standard answer, for comparison on low confidence (when the policy asks for it). */
      comparison?: StandardAnswer;
    }
  | {
      kind: "answer";
      source: "standard";
      text: string;
      standard: StandardAnswer;
      decision: InvocationDecision;
      /** Why reasoning was not used, when it was attempted and failed; `notice` is the message for the user. */
      failure?: ReasoningFailure;
      notice?: string;
    }
  | { kind: "needs_user_input"; question: string; text: string; reasoningSessionId: string; decision: InvocationDecision }
  | { kind: "unavailable"; text: string; decision: InvocationDecision; failure?: ReasoningFailure };

/** The coordinator's record of one reasoning session (§1.3.4), in the state store while the query is being handled. */
export interface ReasoningSessionRecord {
  reasoningSessionId: string;
  request: Omit<CoordinatorRequest, "signal">;
  reasoningType: ReasoningType;
  via: { executeTask: ReasoningVia; endSession: ReasoningVia };
  cotVariation: CoTVariation | null;
  status: "INITIAL_CALL_AWAITING_MCP" | "AWAITING_TOOL_RESULT" | "PERFORMING_QA_REFINEMENT_CYCLE" | "AWAITING_MCP_DURING_REFINEMENT" | "AWAITING_USER_INPUT" | "FINALIZING_ANSWER" | "SESSION_ENDED";
  /** The goal of the latest call (the query, each follow-up question, then the query again for the synthesis). */
  currentGoal: string;
  /** Whether the latest call is the closing synthesis: the original question answered from the follow-ups. */
  synthesizing: boolean;
  latestSessionState: UpdatedSessionState | null;
  refinementCycleCount: number;
  /** The follow-up questions asked. */
  refinements: string[];
  /** What each answered follow-up found. */
  findings: FollowUpFinding[];
  toolCalls: number;
  /** The last completed answer to the original question: the answer in hand while refining. */
  lastCompleted: ExecuteTaskResponse | null;
  pendingToolCall: ToolCallRequest | null;
  pendingUserInput: string | null;
  decision: InvocationDecision;
  createdAt: number;
  updatedAt: number;
}

/** The host-side lifecycle of the Agentopia design (§1.3-1.5). */
export interface ReasoningCoordinator {
  /** Gates, heuristics, route and type selection for a query, without handling it. */
  decide(request: CoordinatorRequest): Promise<InvocationDecision>;
  /** Handles a query end to end: an answer (reasoning or standard), a question for the user, or unavailable. */
  handle(request: CoordinatorRequest): Promise<CoordinatorOutcome>;
  /** Continues a session that asked the user a question (`needs_user_input`) with the user's answer. */
  resume(input: { reasoningSessionId: string; userInput: string; signal?: AbortSignal }): Promise<CoordinatorOutcome>;
  /** Gives up on a session waiting for the user: ends it on the server and forgets it. */
  abandon(reasoningSessionId: string): Promise<void>;
  /** The server's cached `reasoning` capability (refetched when expired or asked to). */
  capabilities(options?: { refresh?: boolean }): Promise<CachedCapability>;
  readonly policy: CoordinatorPolicy;
  /** The deadlines in force, and the bound they give for a server that stops answering (`unresponsiveFallbackMs`). */
  readonly bounds: CoordinatorBounds;
}

const sessionKey = (id: string) => `deliberate:session:${id}`;
const conversationKey = (id: string) => `deliberate:conversation:${id}`;
const healthKey = (endpoint: string) => `deliberate:health:${endpoint}`;

function randomId(): string {
  const crypto = (globalThis as { crypto?: { randomUUID?: () => string } }).crypto;
  if (crypto?.randomUUID) return `task-${crypto.randomUUID()}`;
  return `task-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 12)}`;
}

/** Thrown inside a reasoning interaction: it stopped at a point where the matrix decides. */
class Fallback extends Error {
  constructor(
    readonly kind: FailureKind,
    readonly detail: string,
    readonly code?: string,
    readonly where?: { phase: CoordinatorPhase; deadlineMs: number },
  ) {
    super(detail);
  }
}

/** The failure record of an error thrown inside a reasoning interaction. */
function failureFrom(error: unknown, fallbackWhere?: { phase: CoordinatorPhase; deadlineMs: number }): ReasoningFailure {
  if (error instanceof Fallback) return failureOf(error.kind, error.detail, error.code, error.where ?? fallbackWhere);
  const kind = classifyFailure(error);
  return failureOf(kind, error instanceof Error ? error.message : String(error), isClientError(error) ? error.code : undefined, kind === "timeout" ? fallbackWhere : undefined);
}

/**
 * Creates the coordinator: decides when to use the reasoning server (explicit
 * reasoning requests direct, every other query but small talk standard first
 * with escalation on a weak answer), checks the gates (enabled, health,
 * capability) only when reasoning is about to be used, selects the reasoning
 * type from the advertised capability, handles every status (a refinement loop
 * on completed that keeps the original question and synthesises the final
 * answer to it, host tools on pending_tool_call, a resumable question on
 * pending_user_input, the fallback matrix on failed / max_iterations_reached /
 * timeouts / malformed answers), bounds every phase (health check, capability
 * read, each request, a liveness watch on the server, the whole turn), always
 * attempts endSession, and presents the answer by the server's confidence.
 */
export function createReasoningCoordinator(options: ReasoningCoordinatorOptions): ReasoningCoordinator {
  const { client } = options;
  const policy = resolvePolicy(options.policy);
  const bounds = resolveBounds(options);
  const store = options.store ?? createMemoryStateStore(options.now ? { now: options.now } : {});
  const now = options.now ?? Date.now;
  const newId = options.newId ?? randomId;
  const hedges: HedgeTemplates = { ...defaultHedges, ...options.hedges };
  const maxRefinementCycles = options.maxRefinementCycles ?? 2;
  const maxToolCalls = options.maxToolCalls ?? 8;
  const healthTtlMs = options.healthTtlMs ?? 30_000;
  const capabilities = createCapabilityCache({ store, ...(options.capabilityTtlMs !== undefined ? { ttlMs: options.capabilityTtlMs } : {}), now });
  const offeredTools = options.executeTool ? (options.availableTools ?? []) : [];

  const emit = (event: CoordinatorEvent) => {
    try {
      options.onEvent?.(event);
    } catch {
      // A listener's failure never changes an outcome.
    }
  };

  /** Runs `work` under its own deadline (retries included), reporting the phase; rejects when it runs out. */
  async function bounded<T>(phase: CoordinatorPhase, deadlineMs: number, parent: AbortSignal | undefined, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const deadline = timeoutSignal(deadlineMs);
    const combined = anySignal([parent, deadline.signal]);
    emit({ type: "phase", phase, status: "started", deadlineMs });
    try {
      const value = await work(combined.signal);
      emit({ type: "phase", phase, status: "ok", deadlineMs });
      return value;
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      if (deadline.timedOut() || isClientError(error, "TIMEOUT")) {
        emit({ type: "phase", phase, status: "timed_out", deadlineMs, detail });
        throw new Fallback("timeout", `no answer within ${deadlineMs} ms (${phase.replace("_", " ")})`, "TIMEOUT", { phase, deadlineMs });
      }
      emit({ type: "phase", phase, status: "failed", deadlineMs, detail });
      throw error;
    } finally {
      deadline.clear();
      combined.dispose();
    }
  }

  async function healthy(signal: AbortSignal | undefined): Promise<{ ok: true } | { ok: false; detail: string; timedOut: boolean }> {
    const key = healthKey(client.transport.endpoint);
    const cached = (await store.get(key)) as { ok: boolean; detail?: string; timedOut?: boolean } | undefined;
    if (cached && typeof cached.ok === "boolean") return cached.ok ? { ok: true } : { ok: false, detail: cached.detail ?? "unhealthy", timedOut: cached.timedOut === true };
    let result: { ok: true } | { ok: false; detail: string; timedOut: boolean };
    try {
      await bounded("health_check", bounds.healthCheckMs, signal, (phaseSignal) => client.transport.ping({ timeoutMs: bounds.healthCheckMs, signal: phaseSignal }));
      result = { ok: true };
    } catch (error) {
      if (signal?.aborted) throw error;
      result = { ok: false, detail: error instanceof Error ? error.message : String(error), timedOut: error instanceof Fallback && error.kind === "timeout" };
    }
    await store.set(key, result, { ttlMs: healthTtlMs });
    return result;
  }

  async function previousTurnUsedReasoning(conversationId: string | undefined): Promise<{ used: boolean; lastAnswer: string | null }> {
    if (conversationId === undefined) return { used: false, lastAnswer: null };
    const record = (await store.get(conversationKey(conversationId))) as { usedReasoning?: boolean; lastAnswer?: string | null } | undefined;
    return { used: record?.usedReasoning === true, lastAnswer: record?.lastAnswer ?? null };
  }

  /** Steps 1-2 of §1.3.1: the heuristics and the route, no server asked. */
  async function routeOf(request: CoordinatorRequest): Promise<{ analysis: QueryAnalysis; routed: RouteDecision; previous: { used: boolean; lastAnswer: string | null } }> {
    const previous = await previousTurnUsedReasoning(request.conversationId);
    const analysis = analyzeQuery(request.query, { intent: request.intent, taskType: request.taskType, previousTurnUsedReasoning: previous.used }, policy);
    return { analysis, routed: decideRoute(analysis, policy), previous };
  }

  /** The gates (health, capability) and type selection, for a query the route sends to reasoning. */
  async function checkGates(request: CoordinatorRequest, analysis: QueryAnalysis, routed: RouteDecision): Promise<InvocationDecision> {
    const standardOnly = (gate: GateResult, routeReason: string, capability: CachedCapability | null = null, selection: TypeSelection | null = null): InvocationDecision => ({
      route: "standard",
      routeReason,
      gate,
      analysis,
      selection,
      capability,
    });
    const health = await healthy(request.signal);
    if (!health.ok) {
      const where = health.timedOut ? { phase: "health_check" as const, deadlineMs: bounds.healthCheckMs } : {};
      return standardOnly({ passed: false, gate: "unhealthy", detail: health.detail, ...where }, "gate: the reasoning server is not healthy");
    }
    let capability: CachedCapability;
    try {
      capability = await bounded("capabilities", bounds.capabilitiesMs, request.signal, (signal) => capabilities.get(client.transport, client.reasoning, { timeoutMs: bounds.capabilitiesMs, signal }));
    } catch (error) {
      if (request.signal?.aborted) throw error;
      const where = error instanceof Fallback && error.kind === "timeout" ? { phase: "capabilities" as const, deadlineMs: bounds.capabilitiesMs } : {};
      return standardOnly({ passed: false, gate: "capability", detail: error instanceof Error ? error.message : String(error), ...where }, "gate: the capabilities could not be read");
    }
    if (!capability.capability) return standardOnly({ passed: false, gate: "capability", detail: "the server advertises no reasoning capability" }, "gate: no reasoning capability", capability);
    const selection = selectReasoningType({ query: request.query, intent: request.intent, score: analysis.score, supported: capability.capability.supportedReasoningTypes }, policy);
    if (selection.type === null) return standardOnly({ passed: false, gate: "capability", detail: selection.reasons.at(-1) ?? "no type" }, "gate: no supported reasoning type", capability, selection);
    return { route: routed.route, routeReason: routed.reason, gate: { passed: true }, analysis, selection, capability };
  }

  async function decide(request: CoordinatorRequest): Promise<InvocationDecision> {
    const { analysis, routed } = await routeOf(request);
    if (options.enabled === false) {
      return { route: "standard", routeReason: "gate: disabled", gate: { passed: false, gate: "disabled", detail: "advanced reasoning is disabled for this agent" }, analysis, selection: null, capability: null };
    }
    if (routed.route === "standard") return { route: "standard", routeReason: routed.reason, gate: { passed: true }, analysis, selection: null, capability: null };
    return checkGates(request, analysis, routed);
  }

  async function runStandard(request: Omit<CoordinatorRequest, "signal">, signal: AbortSignal | undefined): Promise<StandardAnswer | null> {
    try {
      return await options.standard({ query: request.query, ...(request.history !== undefined ? { history: request.history } : {}), ...(signal ? { signal } : {}) });
    } catch (error) {
      if (signal?.aborted) throw error;
      return null;
    }
  }

  async function rememberTurn(conversationId: string | undefined, usedReasoning: boolean, lastAnswer: string | null) {
    if (conversationId === undefined) return;
    await store.set(conversationKey(conversationId), { usedReasoning, lastAnswer }, { ttlMs: 60 * 60_000 });
  }

  async function save(record: ReasoningSessionRecord) {
    record.updatedAt = now();
    await store.set(sessionKey(record.reasoningSessionId), record, { ttlMs: 24 * 60 * 60_000 });
  }

  function finish(outcome: CoordinatorOutcome, started: number): CoordinatorOutcome {
    emit({
      type: "completed",
      outcome: outcome.kind === "answer" ? outcome.source : outcome.kind,
      reasoningSessionId: outcome.kind === "needs_user_input" || (outcome.kind === "answer" && outcome.source === "reasoning") ? outcome.reasoningSessionId : null,
      band: outcome.kind === "answer" && outcome.source === "reasoning" ? outcome.band : null,
      failure: outcome.kind === "answer" || outcome.kind === "unavailable" ? (outcome.failure?.kind ?? null) : null,
      durationMs: now() - started,
    });
    return outcome;
  }

  async function standardOutcome(request: Omit<CoordinatorRequest, "signal">, decision: InvocationDecision, signal: AbortSignal | undefined, failure?: ReasoningFailure, answer?: StandardAnswer | null): Promise<CoordinatorOutcome> {
    const standard = answer ?? (await runStandard(request, signal));
    await rememberTurn(request.conversationId, false, null);
    if (!standard) return { kind: "unavailable", text: unavailableMessage, decision, ...(failure ? { failure } : {}) };
    return { kind: "answer", source: "standard", text: standard.text, standard, decision, ...(failure ? { failure, notice: failure.userMessage } : {}) };
  }

  /** One reasoning request: bounded by `callTimeoutMs`, and given up within the liveness bound if the server goes silent. */
  async function execute(record: ReasoningSessionRecord, call: Partial<ExecuteTaskRequestInput>, signal: AbortSignal): Promise<ExecuteTaskResponse> {
    const capability = record.decision.capability?.capability ?? null;
    const contextData: ContextData = {
      ...(record.request.history !== undefined ? { historicalConversation: record.request.history } : {}),
      ...(record.request.domainKnowledge !== undefined ? { domainKnowledge: record.request.domainKnowledge } : {}),
      ...(offeredTools.length > 0 ? { availableTools: offeredTools } : {}),
      ...(call.contextData ?? {}),
    };
    const taskId = record.status === "INITIAL_CALL_AWAITING_MCP" && record.latestSessionState === null ? record.reasoningSessionId : newId();
    const request: ExecuteTaskRequestInput = {
      taskId,
      reasoningSessionId: record.reasoningSessionId,
      reasoningType: record.reasoningType,
      goalQuery: record.currentGoal,
      ...(Object.keys(contextData).length > 0 ? { contextData } : {}),
      outputRequirements: {
        format: "finalAnswerWithTrace",
        ...(options.maxSteps !== undefined ? { maxSteps: options.maxSteps } : {}),
        ...(options.desiredConfidenceLevel !== undefined ? { desiredConfidenceLevel: options.desiredConfidenceLevel } : {}),
      },
      ...(record.cotVariation !== null && capability?.supportedCoTVariations.includes(record.cotVariation) ? { preferredCoTVariation: record.cotVariation } : {}),
      ...(record.latestSessionState !== null ? { sessionState: record.latestSessionState } : {}),
      ...(call.toolResults ? { toolResults: call.toolResults } : {}),
      ...(call.userInput ? { userInput: call.userInput } : {}),
    };
    // The request's own deadline is kept here too, not only by the transport (a host's transport may not keep it).
    const callDeadline = timeoutSignal(bounds.callMs);
    const callSignal = anySignal([signal, callDeadline.signal]);
    const watch = watchLiveness({ ping: (pingOptions) => client.transport.ping(pingOptions), intervalMs: bounds.livenessIntervalMs, pingTimeoutMs: bounds.healthCheckMs, parent: callSignal.signal });
    emit({ type: "phase", phase: "request", status: "started", deadlineMs: bounds.callMs });
    let response: ExecuteTaskResponse;
    try {
      response = await client.reasoning.executeTask(request, { via: record.via.executeTask, signal: watch.signal, timeoutMs: bounds.callMs });
    } catch (error) {
      const stall = watch.stalled();
      if (stall) {
        emit({ type: "phase", phase: "liveness", status: "timed_out", deadlineMs: bounds.livenessIntervalMs + bounds.healthCheckMs, detail: stall.detail });
        throw new Fallback(stall.kind, stall.detail, stall.kind === "timeout" ? "TIMEOUT" : "CONNECTION_FAILED", { phase: "liveness", deadlineMs: bounds.livenessIntervalMs + bounds.healthCheckMs });
      }
      if ((callDeadline.timedOut() || isClientError(error, "TIMEOUT")) && !signal.aborted) {
        emit({ type: "phase", phase: "request", status: "timed_out", deadlineMs: bounds.callMs, detail: error instanceof Error ? error.message : String(error) });
        throw new Fallback("timeout", `no answer to reasoning/executeTask within ${bounds.callMs} ms`, "TIMEOUT", { phase: "request", deadlineMs: bounds.callMs });
      }
      emit({ type: "phase", phase: "request", status: "failed", deadlineMs: bounds.callMs, detail: error instanceof Error ? error.message : String(error) });
      throw error;
    } finally {
      watch.stop();
      callDeadline.clear();
      callSignal.dispose();
    }
    emit({ type: "phase", phase: "request", status: "ok", deadlineMs: bounds.callMs });
    if (response.taskId !== taskId) throw new Fallback("malformed", `the response is for task ${response.taskId}, not ${taskId}`, "MALFORMED_RESPONSE");
    if (response.reasoningSessionId !== null) record.reasoningSessionId = response.reasoningSessionId;
    if (response.updatedSessionState !== null) record.latestSessionState = response.updatedSessionState;
    return response;
  }

  /** Ends the session on the server (best effort). With `background`, the caller does not wait (a server that stopped answering must not delay the fallback). */
  async function endSession(record: ReasoningSessionRecord, background = false) {
    if (record.status === "SESSION_ENDED") return;
    record.status = "SESSION_ENDED";
    const ending = bounded("end_session", bounds.endSessionMs, undefined, (signal) =>
      client.reasoning.endSession({ reasoningSessionId: record.reasoningSessionId }, { via: record.via.endSession, timeoutMs: bounds.endSessionMs, signal }),
    ).then(
      () => emit({ type: "progress", reasoningSessionId: record.reasoningSessionId, stage: "end_session", detail: "the session was ended" }),
      (error: unknown) => emit({ type: "progress", reasoningSessionId: record.reasoningSessionId, stage: "end_session_failed", detail: error instanceof Error ? error.message : String(error) }),
    );
    const forgotten = store.delete(sessionKey(record.reasoningSessionId));
    if (background) {
      forgotten.catch(() => {});
      return;
    }
    await ending;
    await forgotten;
  }

  async function finalize(record: ReasoningSessionRecord, completed: ExecuteTaskResponse, signal: AbortSignal, extra: { failure?: ReasoningFailure; refinementFailure?: ReasoningFailure } = {}): Promise<CoordinatorOutcome> {
    const answer = completed.result?.reasonedAnswer;
    if (!answer) throw new Fallback("malformed", "the completed response has no reasonedAnswer", "MALFORMED_RESPONSE");
    record.status = "FINALIZING_ANSWER";
    // The band and the low-confidence row follow the server's confidence (grounded in what its code checked).
    const confidence = serverConfidence(completed);
    const band = confidenceBand(confidence, policy.bands);
    const summary = summarizeWork({ response: completed, reasoningType: record.reasoningType, refinements: record.refinements, findings: record.findings, bands: policy.bands });
    let failure = extra.failure;
    let comparison: StandardAnswer | undefined;
    const low = failure ? null : lowConfidenceReason(completed, policy.thresholds.lowConfidence);
    if (low !== null) {
      failure = failureOf("low_confidence", low);
      if (policy.compareLowConfidenceWithStandard) comparison = (await runStandard(record.request, signal)) ?? undefined;
    }
    await rememberTurn(record.request.conversationId, true, answer);
    return {
      kind: "answer",
      source: "reasoning",
      text: hedges[hedgedBand(band, confidence, low !== null, policy.thresholds.lowConfidence)](answer),
      answer,
      confidence,
      band,
      summary,
      reasoningSessionId: record.reasoningSessionId,
      refinementCycles: record.refinementCycleCount,
      followUps: [...record.findings],
      decision: record.decision,
      ...(failure ? { failure, notice: failure.userMessage } : {}),
      ...(extra.refinementFailure ? { refinementFailure: extra.refinementFailure } : {}),
      ...(comparison ? { comparison } : {}),
    };
  }

  /** After a completed answer: refine it (a follow-up question), or conclude (synthesising from the follow-ups, if any). */
  async function afterCompleted(record: ReasoningSessionRecord, response: ExecuteTaskResponse, signal: AbortSignal, step: Step): Promise<ExecuteTaskResponse | { failed: ReasoningFailure } | CoordinatorOutcome> {
    const answer = response.result?.reasonedAnswer as string;
    const answersTheQuery = record.currentGoal === record.request.query;
    if (record.synthesizing) return finalize(record, response, signal);
    if (answersTheQuery) record.lastCompleted = response;
    else record.findings.push({ question: record.currentGoal, answer, confidence: serverConfidence(response) });
    const inHand = record.lastCompleted as ExecuteTaskResponse;
    let followUp: string | null = null;
    if (options.critique && record.refinementCycleCount < maxRefinementCycles) {
      record.status = "PERFORMING_QA_REFINEMENT_CYCLE";
      await save(record);
      const verdict = await options.critique({
        query: record.request.query,
        answer: inHand.result?.reasonedAnswer as string,
        confidence: serverConfidence(inHand),
        trace: inHand.result?.reasoningTrace ?? null,
        cycle: record.refinementCycleCount,
        findings: [...record.findings],
        signal,
      });
      if (verdict && "followUp" in verdict && verdict.followUp.trim() !== "") followUp = verdict.followUp.trim();
    }
    const history = [record.request.history, `User: ${record.request.query}`].filter(Boolean).join("\n");
    const summaryOf = (synthesis: boolean) => refinementSummary({ query: record.request.query, answer: inHand.result?.reasonedAnswer as string, findings: record.findings, synthesis });
    if (followUp !== null) {
      record.refinementCycleCount += 1;
      record.refinements.push(followUp);
      record.currentGoal = followUp;
      record.status = "AWAITING_MCP_DURING_REFINEMENT";
      await save(record);
      emit({ type: "progress", reasoningSessionId: record.reasoningSessionId, stage: "refinement", detail: followUp, cycle: record.refinementCycleCount });
      return step(() => execute(record, { contextData: { historicalConversation: history, hostProvidedPriorReasoningSummary: summaryOf(false) } }, signal));
    }
    if (record.findings.length === 0) return finalize(record, inHand, signal);
    // The follow-ups answered other questions: the final answer is the original question's, synthesised from them.
    record.synthesizing = true;
    record.currentGoal = record.request.query;
    record.status = "AWAITING_MCP_DURING_REFINEMENT";
    await save(record);
    emit({ type: "progress", reasoningSessionId: record.reasoningSessionId, stage: "synthesis", detail: `answering the original question from ${record.findings.length} follow-up finding(s)` });
    return step(() => execute(record, { contextData: { historicalConversation: history, hostProvidedPriorReasoningSummary: summaryOf(true) } }, signal));
  }

  /** Runs the tool the server asked for (or refuses it back to the server) and continues the task with the result. */
  async function runTool(record: ReasoningSessionRecord, response: ExecuteTaskResponse, signal: AbortSignal, step: Step) {
    const request = response.toolCallRequest;
    if (!request) throw new Fallback("malformed", "pending_tool_call without a toolCallRequest", "MALFORMED_RESPONSE");
    if (!options.executeTool) throw new Fallback("failed", `the server asked for the tool ${request.toolName}, but the host runs no tools`);
    if (record.toolCalls >= maxToolCalls) throw new Fallback("max_iterations", `more than ${maxToolCalls} tool calls`);
    record.toolCalls += 1;
    record.status = "AWAITING_TOOL_RESULT";
    record.pendingToolCall = request;
    await save(record);
    emit({ type: "progress", reasoningSessionId: record.reasoningSessionId, stage: "tool_call", detail: `running ${request.toolName}` });
    let result: unknown;
    let isError = false;
    if (!offeredTools.some((tool) => tool.name === request.toolName)) {
      result = `The tool '${request.toolName}' was not offered; available: ${offeredTools.map((tool) => tool.name).join(", ") || "none"}.`;
      isError = true;
    } else {
      try {
        result = await options.executeTool(request, { reasoningSessionId: record.reasoningSessionId, signal });
      } catch (error) {
        if (signal.aborted) throw error;
        result = error instanceof Error ? error.message : String(error);
        isError = true;
      }
    }
    emit({ type: "progress", reasoningSessionId: record.reasoningSessionId, stage: "tool_result", detail: `${request.toolName} ${isError ? "failed" : "answered"}` });
    record.pendingToolCall = null;
    record.status = record.lastCompleted ? "AWAITING_MCP_DURING_REFINEMENT" : "INITIAL_CALL_AWAITING_MCP";
    return step(() => execute(record, { toolResults: [{ toolCallId: request.toolCallId, result: result ?? null, ...(isError ? { isError: true } : {}) }] }, signal));
  }

  /**
   * Follows responses until an outcome: tool calls run and continue, completed
   * answers are refined, a question for the user suspends. A failure after an
   * answer to the original question is in hand finalizes with that answer.
   */
  async function follow(record: ReasoningSessionRecord, first: () => Promise<ExecuteTaskResponse>, signal: AbortSignal, hostSignal: AbortSignal | undefined): Promise<CoordinatorOutcome> {
    const step: Step = async (call) => {
      try {
        return await call();
      } catch (error) {
        // No answer in hand yet (or the host gave up): the fallback matrix decides, above.
        if (record.lastCompleted === null || hostSignal?.aborted) throw error;
        return { failed: signal.aborted && !(error instanceof Fallback) ? failureOf("timeout", `no outcome within ${bounds.turnMs} ms`, "TIMEOUT", { phase: "turn", deadlineMs: bounds.turnMs }) : failureFrom(error) };
      }
    };
    let next = await step(first);
    for (;;) {
      if ("failed" in next) return finalize(record, record.lastCompleted as ExecuteTaskResponse, signal, { refinementFailure: next.failed });
      const response = next;
      switch (response.status) {
        case "pending_tool_call":
          next = await runTool(record, response, signal, step);
          continue;
        case "pending_user_input": {
          const question = response.userInputRequest;
          if (!question) throw new Fallback("malformed", "pending_user_input without a userInputRequest", "MALFORMED_RESPONSE");
          record.status = "AWAITING_USER_INPUT";
          record.pendingUserInput = question;
          await save(record);
          emit({ type: "progress", reasoningSessionId: record.reasoningSessionId, stage: "user_input", detail: question });
          return { kind: "needs_user_input", question, text: userInputPrompt(question), reasoningSessionId: record.reasoningSessionId, decision: record.decision };
        }
        case "failed": {
          const detail = response.error ? `${response.error.reason} (${response.error.code}): ${response.error.message}` : "the task failed";
          if (record.lastCompleted) return finalize(record, record.lastCompleted, signal, { refinementFailure: failureOf("failed", detail) });
          throw new Fallback("failed", detail, response.error?.reason);
        }
        case "max_iterations_reached": {
          const failure = failureOf("max_iterations", "the server reached its iteration limit");
          // A partial answer to a follow-up answers another question: the answer in hand is the original question's.
          const answersTheQuery = record.currentGoal === record.request.query;
          const partial = answersTheQuery && response.result?.reasonedAnswer ? response : record.lastCompleted;
          if (partial) return finalize(record, partial, signal, answersTheQuery ? { failure } : { refinementFailure: failure });
          throw new Fallback("max_iterations", "the server reached its iteration limit with no answer");
        }
        case "completed": {
          if (!response.result?.reasonedAnswer) throw new Fallback("malformed", "the completed response has no reasonedAnswer", "MALFORMED_RESPONSE");
          const after = await afterCompleted(record, response, signal, step);
          if ("kind" in after) return after;
          next = after;
          continue;
        }
      }
    }
  }

  /** Runs the reasoning part of a query (first call, or a resumption) with the turn's deadline, the fallback matrix and endSession. */
  async function reason(record: ReasoningSessionRecord, first: (signal: AbortSignal) => Promise<ExecuteTaskResponse>, hostSignal: AbortSignal | undefined, standardInHand: StandardAnswer | null, started: number): Promise<CoordinatorOutcome> {
    const deadline = timeoutSignal(bounds.turnMs);
    const combined = anySignal([hostSignal, deadline.signal]);
    let outcome: CoordinatorOutcome;
    let serverSilent = false;
    try {
      outcome = await follow(record, () => first(combined.signal), combined.signal, hostSignal);
    } catch (error) {
      if (hostSignal?.aborted) {
        deadline.clear();
        combined.dispose();
        await endSession(record, true);
        throw isClientError(error) ? error : new DeliberateClientError({ code: "ABORTED", message: "The reasoning interaction was aborted.", cause: error });
      }
      if (deadline.timedOut()) emit({ type: "phase", phase: "turn", status: "timed_out", deadlineMs: bounds.turnMs });
      const failure = deadline.timedOut() ? failureOf("timeout", `no outcome within ${bounds.turnMs} ms`, "TIMEOUT", { phase: "turn", deadlineMs: bounds.turnMs }) : failureFrom(error);
      serverSilent = failure.kind === "timeout" || failure.kind === "connection";
      outcome = await fallback(record, failure, combined.signal, hostSignal, standardInHand);
    } finally {
      deadline.clear();
      combined.dispose();
    }
    // endSession is always attempted at the end (a session waiting for the user is not at its end); after a
    // timeout or a lost connection it is not waited for, so a silent server does not delay the answer.
    if (outcome.kind !== "needs_user_input") await endSession(record, serverSilent);
    return finish(outcome, started);
  }

  /** The matrix's row for a failure with no outcome yet: the answer in hand if there is one, else the standard approach. */
  async function fallback(record: ReasoningSessionRecord, failure: ReasoningFailure, signal: AbortSignal, hostSignal: AbortSignal | undefined, standardInHand: StandardAnswer | null): Promise<CoordinatorOutcome> {
    if (record.lastCompleted) {
      // An answer in hand beats the standard approach: present it, noting what went wrong after it.
      const present = fallbackAction(failure.kind, true) === "present_answer_in_hand" ? { failure } : { refinementFailure: failure };
      try {
        return await finalize(record, record.lastCompleted, signal, present);
      } catch {
        // The answer in hand is unusable after all: the standard approach.
      }
    }
    return standardOutcome(record.request, record.decision, hostSignal, failure, standardInHand);
  }

  function newRecord(request: CoordinatorRequest, decision: InvocationDecision, reasoningType: ReasoningType): ReasoningSessionRecord {
    const { signal: _signal, ...stored } = request;
    const capability = decision.capability?.capability ?? null;
    const id = newId();
    return {
      reasoningSessionId: id,
      request: stored,
      reasoningType,
      via: {
        executeTask: reasoningVia(capability, knowledgeGraphMethods.executeTask, executeTaskTool.name),
        endSession: reasoningVia(capability, knowledgeGraphMethods.endSession, endSessionTool.name),
      },
      cotVariation: options.preferredCoTVariation ?? null,
      status: "INITIAL_CALL_AWAITING_MCP",
      currentGoal: request.query,
      synthesizing: false,
      latestSessionState: null,
      refinementCycleCount: 0,
      refinements: [],
      findings: [],
      toolCalls: 0,
      lastCompleted: null,
      pendingToolCall: null,
      pendingUserInput: null,
      decision,
      createdAt: now(),
      updatedAt: now(),
    };
  }

  async function handle(request: CoordinatorRequest): Promise<CoordinatorOutcome> {
    const started = now();
    const { analysis, routed, previous } = await routeOf(request);
    const announce = (decision: InvocationDecision) =>
      emit({ type: "decided", route: decision.route, score: decision.analysis.score, reasoningType: decision.selection?.type ?? null, reasons: [decision.routeReason, ...(decision.selection?.reasons ?? [])] });
    const plain = (gate: GateResult, routeReason: string): InvocationDecision => ({ route: "standard", routeReason, gate, analysis, selection: null, capability: null });
    if (options.enabled === false || routed.route === "standard") {
      const decision = options.enabled === false ? plain({ passed: false, gate: "disabled", detail: "advanced reasoning is disabled for this agent" }, "gate: disabled") : plain({ passed: true }, routed.reason);
      announce(decision);
      return finish(await standardOutcome(request, decision, request.signal), started);
    }
    // Tiered: the standard answer first; the server is asked nothing unless that answer is weak (§1.3.1 step 3).
    let standardInHand: StandardAnswer | null = null;
    if (routed.route === "tiered") {
      standardInHand = await runStandard(request, request.signal);
      const escalation = standardInHand ? shouldEscalate(standardInHand, policy) : { escalate: true, reason: null, detail: "the standard attempt failed" };
      if (!escalation.escalate && standardInHand) {
        const decision = { ...plain({ passed: "not_checked", detail: "the standard answer stood" }, `${routed.reason}; ${escalation.detail}`), route: "tiered" as const };
        announce(decision);
        return finish(await standardOutcome(request, decision, request.signal, undefined, standardInHand), started);
      }
    }
    const decision = await checkGates(request, analysis, routed);
    announce(decision);
    if (decision.route === "standard" || !decision.selection?.type) return finish(await standardOutcome(request, decision, request.signal, undefined, standardInHand), started);
    const record = newRecord(request, decision, decision.selection.type);
    await save(record);
    emit({ type: "invoked", reasoningSessionId: record.reasoningSessionId, reasoningType: record.reasoningType, route: decision.route, serverName: decision.capability?.capability?.serverName ?? null });
    const followUp = decision.analysis.reasons.some((reason) => reason.signal === "follow_up") && previous.lastAnswer !== null;
    return reason(record, (signal) => execute(record, followUp ? { contextData: { hostProvidedPriorReasoningSummary: previous.lastAnswer } } : {}, signal), request.signal, standardInHand, started);
  }

  return {
    policy,
    bounds,
    decide,
    capabilities: (capabilityOptions) => capabilities.get(client.transport, client.reasoning, capabilityOptions),
    handle,
    async resume(input) {
      const started = now();
      const record = (await store.get(sessionKey(input.reasoningSessionId))) as ReasoningSessionRecord | undefined;
      if (record?.status !== "AWAITING_USER_INPUT") {
        throw new DeliberateClientError({
          code: "NOT_FOUND",
          message: `No reasoning session ${input.reasoningSessionId} is waiting for the user's answer.`,
          issues: [{ field: "reasoningSessionId", message: "not waiting for user input (finished, abandoned or unknown)" }],
        });
      }
      record.pendingUserInput = null;
      record.status = record.lastCompleted ? "AWAITING_MCP_DURING_REFINEMENT" : "INITIAL_CALL_AWAITING_MCP";
      await save(record);
      emit({ type: "progress", reasoningSessionId: record.reasoningSessionId, stage: "resumed", detail: "the user answered" });
      return reason(record, (signal) => execute(record, { userInput: input.userInput }, signal), input.signal, null, started);
    },
    async abandon(reasoningSessionId) {
      const record = (await store.get(sessionKey(reasoningSessionId))) as ReasoningSessionRecord | undefined;
      if (!record) return;
      await endSession(record);
    },
  };
}

/** One step of the interaction: a response, or the failure of a call made with an answer already in hand. */
type Step = (call: () => Promise<ExecuteTaskResponse>) => Promise<ExecuteTaskResponse | { failed: ReasoningFailure }>;

/** The band whose phrasing an answer gets: its own, one lower when it is the low-confidence row anyway. */
function hedgedBand(band: ConfidenceBand, confidence: number | null, lowConfidence: boolean, threshold: number): ConfidenceBand {
  if (!lowConfidence) return band;
  if (band === "high") return "moderate";
  if (band === "moderate" && confidence !== null && confidence < threshold) return "low";
  return band;
}

export type { Route, StandardAnswer };
