import type { Clock, IdGenerator } from "@deliberate/engine";
import type { ApiRepositories } from "../../store/contribution.ts";
import type { RecoveryMessages } from "../../store/repositories/job.repository.ts";
import type { CallbackSettings } from "../../config.ts";
import type { IntentDecider } from "../../intent/decide-intent.ts";
import type { Logger, SecretRegistry } from "../../logger.ts";
import type { Telemetry } from "../../telemetry.ts";
import type { CallbackGuard } from "../callback-guard.ts";

/** The job type these steps run. */
export const agentIntentJobType = "agent_intent";

export interface AgentIntentJobsOptions {
  store: Pick<ApiRepositories, "jobs">;
  decider: IntentDecider;
  guard: CallbackGuard;
  callbacks: CallbackSettings;
  /** This process's identity in the queue. */
  owner: string;
  leaseMs: number;
  maxAttempts: number;
  /** A job's decision is aborted after this long (REQUEST_TIMEOUT). */
  jobTimeoutMs: number;
  clock: Clock;
  ids: IdGenerator;
  secrets: SecretRegistry;
  telemetry: Telemetry;
  logger: Logger;
  /** Called after an enqueue so idle workers start at once. */
  onEnqueued?: () => void;
}

/** What the accept, run and deliver steps share. */
export interface AgentIntentJobContext {
  readonly options: AgentIntentJobsOptions;
  /**
   * Keys from `llm.api_key` live here only, never in the database: a job that
   * carries one is pinned to this process and fails if the process goes away.
   */
  readonly keys: Map<string, string>;
  readonly recoveryMessages: RecoveryMessages;
  /** The queue's clock as an ISO timestamp, `offsetMs` from now. */
  iso(offsetMs?: number): string;
  /** Forgets the in-memory key of a pinned job (and stops redacting it). */
  forget(jobId: string): void;
}

/** A context with no keys yet. */
export function createJobContext(options: AgentIntentJobsOptions): AgentIntentJobContext {
  const keys = new Map<string, string>();
  return {
    options,
    keys,
    recoveryMessages: recoveryMessagesFor(options.maxAttempts),
    iso: (offsetMs = 0) => new Date(options.clock.now().getTime() + offsetMs).toISOString(),
    forget(jobId) {
      const key = keys.get(jobId);
      if (key === undefined) return;
      keys.delete(jobId);
      options.secrets.delete(key);
    },
  };
}

/** The errors recovery records on jobs a stopped process left behind. */
function recoveryMessagesFor(maxAttempts: number): RecoveryMessages {
  return {
    pinnedLost: {
      code: "CANCELLED",
      message:
        "The job carried an API key in llm.api_key, which is kept only in the memory of the process that accepted it; that process stopped before finishing the job.",
      hint: "Submit the job again (or configure the provider key on the server so jobs survive restarts).",
      retryable: true,
    },
    attemptsExhausted: {
      code: "INTERNAL",
      message: `The job was interrupted ${maxAttempts} time(s) by workers that stopped; it is not retried again.`,
      hint: "Check the service logs for crashes, then submit the job again.",
      retryable: true,
    },
  };
}
