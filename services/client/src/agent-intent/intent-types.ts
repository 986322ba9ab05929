import type { agentIntentRequestSchema, JobAccepted } from "@deliberate/contracts";
import type { z } from "zod";
import type { AgentIntentResponse, CancelResponse, JobView } from "@deliberate/contracts";
import type { DeliberateClientError } from "../errors.ts";

// The agent-intent client's call and handle types (shared by the client and the handles it returns).

/** `AgentIntentRequest` as the caller writes it (every field optional; `null` counts as absent). */
export type AgentIntentRequestInput = z.input<typeof agentIntentRequestSchema>;
/** Options of one call. */
export interface AgentIntentCallOptions {
  signal?: AbortSignal;
  /** This call's timeout (per attempt); default the client's. */
  timeoutMs?: number;
  /** Overrides the client's `validateTools` for this call. */
  validateTools?: boolean;
}

export interface WaitOptions {
  signal?: AbortSignal;
  /** Poll interval; default the client's `pollIntervalMs`. */
  intervalMs?: number;
  /** Give up after this long (TIMEOUT); default the client's `waitTimeoutMs`. */
  timeoutMs?: number;
}

/** Ways to follow an async decision. */
export interface IntentHandle {
  /** Polls `GET /v1/jobs/{job_id}` until the job finishes (a queued intent: until it is delivered, then so); resolves with the checked decision. */
  wait(options?: WaitOptions): Promise<AgentIntentResponse>;
  /** The job as it is now (a queued intent: once it is delivered). */
  job(options?: AgentIntentCallOptions): Promise<JobView>;
  /** Cancels this job (a queued intent still in the outbox: removes it, and cancels by correlation id). */
  cancel(options?: AgentIntentCallOptions): Promise<CancelResponse>;
}

/** An async decision the API accepted: the job. */
export interface AcceptedIntent extends JobAccepted, IntentHandle {}

/** An async decision the API could not take now, kept in the outbox until it can (the queue fallback). */
export interface QueuedIntent extends IntentHandle {
  status: "queued";
  job_id: null;
  correlation_id: string;
  /** Why it was queued (the send's error). */
  reason: { code: string; message: string };
  /** Resolves with the job once the outbox delivered it (in this process). */
  delivered(): Promise<JobAccepted>;
}

/** What `agentIntentAsync` answers: accepted, or queued in the outbox (only with an `outbox`). */
export type AsyncIntent = AcceptedIntent | QueuedIntent;

export interface AgentIntentAsyncOptions extends AgentIntentCallOptions {
  /**
   * Called with the decision once the job finishes (the client polls for it),
   * or with the error; the server also POSTs the result to `callback_url`.
   */
  onResult?: (
    result: AgentIntentResponse | DeliberateClientError,
    job: { job_id: string | null; correlation_id: string | null },
  ) => void;
  /** Polling settings for `onResult`. */
  wait?: WaitOptions;
}
