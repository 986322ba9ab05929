import type { ReasoningType } from "@deliberate/contracts";
import type { CoordinatorPhase } from "./bounds.ts";
import type { FailureKind } from "./fallback.ts";
import type { ConfidenceBand } from "./presentation.ts";
import type { Route } from "./routing.ts";

/** Where a reasoning interaction is, for "agent is performing advanced analysis..." indicators (§1.4.5). */
export type ProgressStage =
  | "tool_call"
  | "tool_result"
  | "refinement"
  | "synthesis"
  | "user_input"
  | "resumed"
  | "end_session"
  | "end_session_failed"
  /** The conversation keeps the session open for its next turn (`keepSessionAcrossTurns`). */
  | "session_kept"
  /** The kept session could not be continued (it closed on the server); a new one started. */
  | "session_restarted";

/** Events for the host UI and logs. Listener errors are swallowed: they never change an outcome. */
export type CoordinatorEvent =
  | { type: "decided"; route: Route; score: number; reasoningType: ReasoningType | null; reasons: string[] }
  | {
      type: "invoked";
      reasoningSessionId: string;
      reasoningType: ReasoningType;
      route: Route;
      serverName: string | null;
    }
  | { type: "progress"; reasoningSessionId: string; stage: ProgressStage; detail: string; cycle?: number }
  /**
   * A phase with a deadline of its own started or ended: `deadlineMs` is the bound it had (the configured one), so a
   * host (or a test) can see that a hung server was given up by a bound, and which.
   */
  | {
      type: "phase";
      phase: CoordinatorPhase;
      status: "started" | "ok" | "timed_out" | "failed";
      deadlineMs: number;
      detail?: string;
    }
  | {
      type: "completed";
      outcome: "reasoning" | "standard" | "needs_user_input" | "unavailable";
      reasoningSessionId: string | null;
      band: ConfidenceBand | null;
      failure: FailureKind | null;
      durationMs: number;
    };

export type CoordinatorEventListener = (event: CoordinatorEvent) => void;
