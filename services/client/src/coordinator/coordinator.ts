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
import { type CachedCapability, createCapabilityCache } from "./capability-cache.ts";
import { createConversationSessions, type KeepSessionOptions, type KeptSession } from "./conversation-sessions.ts";
import type { CoordinatorEvent, CoordinatorEventListener } from "./events.ts";
import { classifyFailure, type FailureKind, failureOf, fallbackAction, type ReasoningFailure, unavailableMessage } from "./fallback.ts";
import { analyzeQuery, type QueryAnalysis } from "./heuristics.ts";
import { type CoordinatorPolicy, type CoordinatorPolicyOverrides, resolvePolicy } from "./policy.ts";
import { type ConfidenceBand, confidenceBand, defaultHedges, type HedgeTemplates, summarizeWork, userInputPrompt, type WorkSummary } from "./presentation.ts";
import { decideRoute, type GateResult, type Route, type StandardAnswer, shouldEscalate } from "./routing.ts";
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

/** Judges a completed answer (§1.3.3 Q&A refinement): enough, or one precise follow-up question. */
export type CritiqueFunction = (input: {
  query: string;
  answer: string;
  confidence: number | null;
  trace: ReasoningTrace | null;
  /** 0 for the first answer, then 1, ... */
  cycle: number;
  signal: AbortSignal;
}) => Promise<{ sufficient: true } | { followUp: string } | null | undefined> | { sufficient: true } | { followUp: string } | null | undefined;

/** Runs a tool the server asked for (status `pending_tool_call`); a throw is sent back as a failed tool result. */
export type ToolExecutor = (request: ToolCallRequest, context: { reasoningSessionId: string; signal: AbortSignal }) => Promise<unknown> | unknown;

export interface ReasoningCoordinatorOptions {
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
  /** Timeout of each reasoning call. Default the transport's. */
  callTimeoutMs?: number;
  /** Deadline of a whole reasoning interaction (every call, tool and critique). Default 5 minutes. */
  timeoutMs?: number;
  /** Timeout of the closing endSession (best effort). Default 5,000 ms. */
  endSessionTimeoutMs?: number;
  /**
   * Keep a conversation's reasoning session open across its turns (requests with a
   * `conversationId`): the next turn that reasons continues the same graph (by its signed
   * state) instead of rebuilding it. The session is ended by `endConversation`, when a turn
   * comes after `idleMs` (default 20 minutes) or past the server's `sessionExpiresAt`, and when
   * a turn falls back. Default off: every query ends its session (§1.3.3 C).
   */
  keepSessionAcrossTurns?: boolean | KeepSessionOptions;
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
  status:
    | "INITIAL_CALL_AWAITING_MCP"
    | "AWAITING_TOOL_RESULT"
    | "PERFORMING_QA_REFINEMENT_CYCLE"
    | "AWAITING_MCP_DURING_REFINEMENT"
    | "AWAITING_USER_INPUT"
    | "FINALIZING_ANSWER"
    | "SESSION_ENDED"
    | "SESSION_KEPT_OPEN";
  /** The goal of the latest call (the query, then each follow-up question). */
  currentGoal: string;
  latestSessionState: UpdatedSessionState | null;
  refinementCycleCount: number;
  /** The follow-up questions asked. */
  refinements: string[];
  toolCalls: number;
  /** The last completed response, the answer in hand while refining. */
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
  /** Ends the reasoning session a conversation kept open (`keepSessionAcrossTurns`), if any. */
  endConversation(conversationId: string): Promise<void>;
  /** The server's cached `reasoning` capability (refetched when expired or asked to). */
  capabilities(options?: { refresh?: boolean }): Promise<CachedCapability>;
  readonly policy: CoordinatorPolicy;
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
  ) {
    super(detail);
  }
}

/**
 * Creates the coordinator: decides when to use the reasoning server (gates,
 * documented heuristics with a score and reasons, tiered escalation, strong
 * signals direct), selects the reasoning type from the advertised capability,
 * handles every status (refinement loop on completed, host tools on
 * pending_tool_call, a resumable question on pending_user_input, the fallback
 * matrix on failed / max_iterations_reached / timeouts / malformed answers),
 * always attempts endSession at the end, and presents the answer (confidence
 * bands, "show my work", events).
 */
export function createReasoningCoordinator(options: ReasoningCoordinatorOptions): ReasoningCoordinator {
  const { client } = options;
  const policy = resolvePolicy(options.policy);
  const store = options.store ?? createMemoryStateStore(options.now ? { now: options.now } : {});
  const now = options.now ?? Date.now;
  const newId = options.newId ?? randomId;
  const hedges: HedgeTemplates = { ...defaultHedges, ...options.hedges };
  const maxRefinementCycles = options.maxRefinementCycles ?? 2;
  const maxToolCalls = options.maxToolCalls ?? 8;
  const interactionTimeoutMs = options.timeoutMs ?? 5 * 60_000;
  const endSessionTimeoutMs = options.endSessionTimeoutMs ?? 5_000;
  const healthTtlMs = options.healthTtlMs ?? 30_000;
  const capabilities = createCapabilityCache({ store, ...(options.capabilityTtlMs !== undefined ? { ttlMs: options.capabilityTtlMs } : {}), now });
  const offeredTools = options.executeTool ? (options.availableTools ?? []) : [];
  const keepOptions = options.keepSessionAcrossTurns === true ? {} : options.keepSessionAcrossTurns || undefined;
  const conversations = keepOptions ? createConversationSessions({ store, now, keep: keepOptions }) : null;

  const emit = (event: CoordinatorEvent) => {
    try {
      options.onEvent?.(event);
    } catch {
      // A listener's failure never changes an outcome.
    }
  };

  async function healthy(): Promise<{ ok: boolean; detail: string }> {
    const key = healthKey(client.transport.endpoint);
    const cached = (await store.get(key)) as { ok: boolean; detail: string } | undefined;
    if (cached && typeof cached.ok === "boolean") return cached;
    let result: { ok: boolean; detail: string };
    try {
      await client.transport.ping({ timeoutMs: Math.min(options.callTimeoutMs ?? 10_000, 10_000) });
      result = { ok: true, detail: "the server answered" };
    } catch (error) {
      result = { ok: false, detail: error instanceof Error ? error.message : String(error) };
    }
    await store.set(key, result, { ttlMs: healthTtlMs });
    return result;
  }

  async function previousTurnUsedReasoning(conversationId: string | undefined): Promise<{ used: boolean; lastAnswer: string | null }> {
    if (conversationId === undefined) return { used: false, lastAnswer: null };
    const record = (await store.get(conversationKey(conversationId))) as { usedReasoning?: boolean; lastAnswer?: string | null } | undefined;
    return { used: record?.usedReasoning === true, lastAnswer: record?.lastAnswer ?? null };
  }

  async function decide(request: CoordinatorRequest): Promise<InvocationDecision> {
    const previous = await previousTurnUsedReasoning(request.conversationId);
    const analysis = analyzeQuery(request.query, { intent: request.intent, taskType: request.taskType, previousTurnUsedReasoning: previous.used }, policy);
    const standardOnly = (gate: GateResult, routeReason: string, capability: CachedCapability | null = null, selection: TypeSelection | null = null): InvocationDecision => ({
      route: "standard",
      routeReason,
      gate,
      analysis,
      selection,
      capability,
    });
    if (options.enabled === false) return standardOnly({ passed: false, gate: "disabled", detail: "advanced reasoning is disabled for this agent" }, "gate: disabled");
    const routed = decideRoute(analysis, policy);
    if (routed.route === "standard") return standardOnly({ passed: true }, routed.reason);
    const health = await healthy();
    if (!health.ok) return standardOnly({ passed: false, gate: "unhealthy", detail: health.detail }, "gate: the reasoning server is not healthy");
    let capability: CachedCapability;
    try {
      capability = await capabilities.get(client.transport, client.reasoning);
    } catch (error) {
      return standardOnly({ passed: false, gate: "capability", detail: error instanceof Error ? error.message : String(error) }, "gate: the capabilities could not be read");
    }
    if (!capability.capability) return standardOnly({ passed: false, gate: "capability", detail: "the server advertises no reasoning capability" }, "gate: no reasoning capability", capability);
    const selection = selectReasoningType({ query: request.query, intent: request.intent, score: analysis.score, supported: capability.capability.supportedReasoningTypes }, policy);
    if (selection.type === null) return standardOnly({ passed: false, gate: "capability", detail: selection.reasons.at(-1) ?? "no type" }, "gate: no supported reasoning type", capability, selection);
    return { route: routed.route, routeReason: routed.reason, gate: { passed: true }, analysis, selection, capability };
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
    const response = await client.reasoning.executeTask(request, {
      via: record.via.executeTask,
      signal,
      ...(options.callTimeoutMs !== undefined ? { timeoutMs: options.callTimeoutMs } : {}),
    });
    if (response.taskId !== taskId) throw new Fallback("malformed", `the response is for task ${response.taskId}, not ${taskId}`, "MALFORMED_RESPONSE");
    if (response.reasoningSessionId !== null) record.reasoningSessionId = response.reasoningSessionId;
    if (response.updatedSessionState !== null) record.latestSessionState = response.updatedSessionState;
    return response;
  }

  async function endSession(record: ReasoningSessionRecord) {
    if (record.status === "SESSION_ENDED") return;
    try {
      // With its signed state: a session is ended by id alone only by the caller it is bound to.
      const named = { reasoningSessionId: record.reasoningSessionId, ...(record.latestSessionState !== null ? { sessionState: record.latestSessionState } : {}) };
      await client.reasoning.endSession(named, { via: record.via.endSession, timeoutMs: endSessionTimeoutMs });
      emit({ type: "progress", reasoningSessionId: record.reasoningSessionId, stage: "end_session", detail: "the session was ended" });
    } catch (error) {
      emit({ type: "progress", reasoningSessionId: record.reasoningSessionId, stage: "end_session_failed", detail: error instanceof Error ? error.message : String(error) });
    }
    record.status = "SESSION_ENDED";
    await store.delete(sessionKey(record.reasoningSessionId));
    if (conversations && record.request.conversationId !== undefined) await conversations.forget(record.request.conversationId);
  }

  /** At the end of a query: keeps the session open for the conversation's next turn when asked to, else ends it. */
  async function endOrKeep(record: ReasoningSessionRecord, outcome: CoordinatorOutcome) {
    const conversationId = record.request.conversationId;
    const keep = conversations && conversationId !== undefined && outcome.kind === "answer" && outcome.source === "reasoning" && record.latestSessionState !== null;
    if (!keep) return endSession(record);
    await conversations.keep(conversationId, { reasoningSessionId: record.reasoningSessionId, sessionState: record.latestSessionState as UpdatedSessionState, via: record.via }, record.lastCompleted?.sessionExpiresAt ?? null);
    record.status = "SESSION_KEPT_OPEN";
    await store.delete(sessionKey(record.reasoningSessionId));
    emit({ type: "progress", reasoningSessionId: record.reasoningSessionId, stage: "session_kept", detail: "the session stays open for the conversation's next turn" });
  }

  /** Continues the conversation's kept session in `record`, if it has a live one (an expired one is ended). */
  async function continueKept(record: ReasoningSessionRecord): Promise<KeptSession | null> {
    const conversationId = record.request.conversationId;
    if (!conversations || conversationId === undefined) return null;
    const found = await conversations.find(conversationId);
    if (!found) return null;
    if ("expired" in found) {
      await endSession({ ...record, reasoningSessionId: found.expired.reasoningSessionId, latestSessionState: found.expired.sessionState, via: found.expired.via });
      return null;
    }
    record.reasoningSessionId = found.live.reasoningSessionId;
    record.latestSessionState = found.live.sessionState;
    record.via = found.live.via;
    return found.live;
  }

  async function finalize(record: ReasoningSessionRecord, completed: ExecuteTaskResponse, signal: AbortSignal, extra: { failure?: ReasoningFailure; refinementFailure?: ReasoningFailure } = {}): Promise<CoordinatorOutcome> {
    const answer = completed.result?.reasonedAnswer;
    if (!answer) throw new Fallback("malformed", "the completed response has no reasonedAnswer", "MALFORMED_RESPONSE");
    record.status = "FINALIZING_ANSWER";
    const confidence = completed.result?.confidenceScore ?? null;
    const band = confidenceBand(confidence, policy.bands);
    const summary = summarizeWork({ response: completed, reasoningType: record.reasoningType, refinements: record.refinements, bands: policy.bands });
    let failure = extra.failure;
    let comparison: StandardAnswer | undefined;
    if (!failure && confidence !== null && confidence < policy.thresholds.lowConfidence) {
      failure = failureOf("low_confidence", `confidence ${confidence} < ${policy.thresholds.lowConfidence}`);
      if (policy.compareLowConfidenceWithStandard) comparison = (await runStandard(record.request, signal)) ?? undefined;
    }
    await rememberTurn(record.request.conversationId, true, answer);
    return {
      kind: "answer",
      source: "reasoning",
      text: hedges[band](answer),
      answer,
      confidence,
      band,
      summary,
      reasoningSessionId: record.reasoningSessionId,
      refinementCycles: record.refinementCycleCount,
      decision: record.decision,
      ...(failure ? { failure, notice: failure.userMessage } : {}),
      ...(extra.refinementFailure ? { refinementFailure: extra.refinementFailure } : {}),
      ...(comparison ? { comparison } : {}),
    };
  }

  /**
   * Follows responses until an outcome: tool calls run and continue, completed
   * answers are refined, a question for the user suspends. A failure after an
   * answer is in hand finalizes with that answer.
   */
  async function follow(record: ReasoningSessionRecord, first: () => Promise<ExecuteTaskResponse>, signal: AbortSignal, hostSignal: AbortSignal | undefined): Promise<CoordinatorOutcome> {
    const step = async (call: () => Promise<ExecuteTaskResponse>): Promise<ExecuteTaskResponse | { failed: ReasoningFailure }> => {
      try {
        return await call();
      } catch (error) {
        // No answer in hand yet (or the host gave up): the fallback matrix decides, above.
        if (record.lastCompleted === null || hostSignal?.aborted) throw error;
        const kind = signal.aborted ? "timeout" : error instanceof Fallback ? error.kind : classifyFailure(error);
        return { failed: failureOf(kind, error instanceof Error ? error.message : String(error)) };
      }
    };
    let next = await step(first);
    for (;;) {
      if ("failed" in next) return finalize(record, record.lastCompleted as ExecuteTaskResponse, signal, { refinementFailure: next.failed });
      const response = next;
      switch (response.status) {
        case "pending_tool_call": {
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
          next = await step(() => execute(record, { toolResults: [{ toolCallId: request.toolCallId, result: result ?? null, ...(isError ? { isError: true } : {}) }] }, signal));
          continue;
        }
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
          const partial = response.result?.reasonedAnswer ? response : record.lastCompleted;
          const failure = failureOf("max_iterations", "the server reached its iteration limit");
          if (partial) return finalize(record, partial, signal, { failure });
          throw new Fallback("max_iterations", "the server reached its iteration limit with no answer");
        }
        case "completed": {
          if (!response.result?.reasonedAnswer) throw new Fallback("malformed", "the completed response has no reasonedAnswer", "MALFORMED_RESPONSE");
          record.lastCompleted = response;
          if (!options.critique || record.refinementCycleCount >= maxRefinementCycles) return finalize(record, response, signal);
          record.status = "PERFORMING_QA_REFINEMENT_CYCLE";
          await save(record);
          const verdict = await options.critique({
            query: record.request.query,
            answer: response.result.reasonedAnswer,
            confidence: response.result.confidenceScore,
            trace: response.result.reasoningTrace,
            cycle: record.refinementCycleCount,
            signal,
          });
          if (!verdict || !("followUp" in verdict) || verdict.followUp.trim() === "") return finalize(record, response, signal);
          record.refinementCycleCount += 1;
          record.refinements.push(verdict.followUp);
          record.currentGoal = verdict.followUp;
          record.status = "AWAITING_MCP_DURING_REFINEMENT";
          await save(record);
          emit({ type: "progress", reasoningSessionId: record.reasoningSessionId, stage: "refinement", detail: verdict.followUp, cycle: record.refinementCycleCount });
          const summary = record.refinements.length > 1 ? `Findings so far: ${response.result.reasonedAnswer}` : response.result.reasonedAnswer;
          next = await step(() =>
            execute(
              record,
              { contextData: { historicalConversation: [record.request.history, `User: ${record.request.query}`].filter(Boolean).join("\n"), hostProvidedPriorReasoningSummary: summary } },
              signal,
            ),
          );
          continue;
        }
      }
    }
  }

  /** Runs the reasoning part of a query (first call, or a resumption) with the deadline, the fallback matrix and endSession. */
  async function reason(record: ReasoningSessionRecord, first: (signal: AbortSignal) => Promise<ExecuteTaskResponse>, hostSignal: AbortSignal | undefined, standardInHand: StandardAnswer | null, started: number): Promise<CoordinatorOutcome> {
    const deadline = timeoutSignal(interactionTimeoutMs);
    const combined = anySignal([hostSignal, deadline.signal]);
    let outcome: CoordinatorOutcome;
    try {
      outcome = await follow(record, () => first(combined.signal), combined.signal, hostSignal);
    } catch (error) {
      if (hostSignal?.aborted) {
        deadline.clear();
        combined.dispose();
        await endSession(record);
        throw isClientError(error) ? error : new DeliberateClientError({ code: "ABORTED", message: "The reasoning interaction was aborted.", cause: error });
      }
      const kind: FailureKind = deadline.timedOut() ? "timeout" : error instanceof Fallback ? error.kind : classifyFailure(error);
      const detail = deadline.timedOut() ? `no outcome within ${interactionTimeoutMs} ms` : error instanceof Error ? error.message : String(error);
      const code = error instanceof Fallback ? error.code : isClientError(error) ? error.code : undefined;
      const failure = failureOf(kind, detail, code);
      outcome = await fallback(record, failure, combined.signal, hostSignal, standardInHand);
    } finally {
      deadline.clear();
      combined.dispose();
    }
    // endSession is always attempted at the end (unless the conversation keeps the session); a session waiting for the user is not at its end.
    if (outcome.kind !== "needs_user_input") await endOrKeep(record, outcome);
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
      latestSessionState: null,
      refinementCycleCount: 0,
      refinements: [],
      toolCalls: 0,
      lastCompleted: null,
      pendingToolCall: null,
      pendingUserInput: null,
      decision,
      createdAt: now(),
      updatedAt: now(),
    };
  }

  return {
    policy,
    decide,
    capabilities: (capabilityOptions) => capabilities.get(client.transport, client.reasoning, capabilityOptions),
    async handle(request) {
      const started = now();
      const decision = await decide(request);
      emit({ type: "decided", route: decision.route, score: decision.analysis.score, reasoningType: decision.selection?.type ?? null, reasons: [decision.routeReason, ...(decision.selection?.reasons ?? [])] });
      if (decision.route === "standard" || !decision.selection?.type) return finish(await standardOutcome(request, decision, request.signal), started);
      let standardInHand: StandardAnswer | null = null;
      if (decision.route === "tiered") {
        standardInHand = await runStandard(request, request.signal);
        const escalation = standardInHand ? shouldEscalate(standardInHand, policy) : { escalate: true, reason: null, detail: "the standard attempt failed" };
        if (!escalation.escalate && standardInHand) return finish(await standardOutcome(request, decision, request.signal, undefined, standardInHand), started);
      }
      const record = newRecord(request, decision, decision.selection.type);
      const previous = await previousTurnUsedReasoning(request.conversationId);
      const kept = await continueKept(record);
      await save(record);
      emit({ type: "invoked", reasoningSessionId: record.reasoningSessionId, reasoningType: record.reasoningType, route: decision.route, serverName: decision.capability?.capability?.serverName ?? null });
      const followUp = decision.analysis.reasons.some((reason) => reason.signal === "follow_up") && previous.lastAnswer !== null;
      const call: Partial<ExecuteTaskRequestInput> = followUp ? { contextData: { hostProvidedPriorReasoningSummary: previous.lastAnswer } } : {};
      const first = async (signal: AbortSignal) => {
        if (!kept) return execute(record, call, signal);
        try {
          return await execute(record, call, signal);
        } catch (error) {
          // The kept session closed on the server meanwhile (expired, ended) or moved on: start a new one.
          if (!isClientError(error) || (error.code !== "NOT_FOUND" && error.code !== "CONFLICT")) throw error;
          emit({ type: "progress", reasoningSessionId: record.reasoningSessionId, stage: "session_restarted", detail: error.message });
          if (record.request.conversationId !== undefined) await conversations?.forget(record.request.conversationId);
          record.reasoningSessionId = newId();
          record.latestSessionState = null;
          await save(record);
          return execute(record, call, signal);
        }
      };
      return reason(record, first, request.signal, standardInHand, started);
    },
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
    async endConversation(conversationId) {
      const found = await conversations?.find(conversationId);
      if (!found) return;
      const kept = "live" in found ? found.live : found.expired;
      try {
        await client.reasoning.endSession({ reasoningSessionId: kept.reasoningSessionId, sessionState: kept.sessionState }, { via: kept.via.endSession, timeoutMs: endSessionTimeoutMs });
        emit({ type: "progress", reasoningSessionId: kept.reasoningSessionId, stage: "end_session", detail: "the conversation's session was ended" });
      } catch (error) {
        emit({ type: "progress", reasoningSessionId: kept.reasoningSessionId, stage: "end_session_failed", detail: error instanceof Error ? error.message : String(error) });
      }
      await conversations?.forget(conversationId);
    },
    async abandon(reasoningSessionId) {
      const record = (await store.get(sessionKey(reasoningSessionId))) as ReasoningSessionRecord | undefined;
      if (!record) return;
      await endSession(record);
    },
  };
}

export type { Route, StandardAnswer };
