import type {
  AvailableTool,
  CoTVariation,
  ExecuteTaskResponse,
  ReasoningTrace,
  ReasoningType,
  ToolCallRequest,
  UpdatedSessionState,
} from "@deliberate/contracts";
import type { DeliberateClient } from "../client.ts";
import type { ReasoningVia } from "../reasoning-operations.ts";
import type { CoordinatorBounds, CoordinatorTimingOptions } from "./bounds.ts";
import type { CachedCapability } from "./capability-cache.ts";
import type { KeepSessionOptions } from "./conversation-sessions.ts";
import type { CoordinatorEventListener } from "./events.ts";
import type { ReasoningFailure } from "./fallback.ts";
import type { QueryAnalysis } from "./heuristics.ts";
import type { CoordinatorPolicy, CoordinatorPolicyOverrides } from "./policy.ts";
import type { ConfidenceBand, HedgeTemplates, WorkSummary } from "./presentation.ts";
import type { FollowUpFinding } from "./refinement.ts";
import type { GateResult, Route, StandardAnswer } from "./routing.ts";
import type { ReasoningStateStore } from "./state-store.ts";
import type { TypeSelection } from "./type-selection.ts";

// The coordinator's public types: what a host passes in, what it gets back, and the session record it may store.

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
export type StandardProcessor = (request: {
  query: string;
  history?: string;
  signal?: AbortSignal;
}) => Promise<StandardAnswer>;

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
}) =>
  | Promise<{ sufficient: true } | { followUp: string } | null | undefined>
  | { sufficient: true }
  | { followUp: string }
  | null
  | undefined;

/** Runs a tool the server asked for (status `pending_tool_call`); a throw is sent back as a failed tool result. */
export type ToolExecutor = (
  request: ToolCallRequest,
  context: { reasoningSessionId: string; signal: AbortSignal },
) => Promise<unknown> | unknown;

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
  | {
      kind: "needs_user_input";
      question: string;
      text: string;
      reasoningSessionId: string;
      decision: InvocationDecision;
    }
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
  /** Ends the reasoning session a conversation kept open (`keepSessionAcrossTurns`), if any. */
  endConversation(conversationId: string): Promise<void>;
  /** The server's cached `reasoning` capability (refetched when expired or asked to). */
  capabilities(options?: { refresh?: boolean }): Promise<CachedCapability>;
  readonly policy: CoordinatorPolicy;
  /** The deadlines in force, and the bound they give for a server that stops answering (`unresponsiveFallbackMs`). */
  readonly bounds: CoordinatorBounds;
}
