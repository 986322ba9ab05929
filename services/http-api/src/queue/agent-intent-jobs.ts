import type { AgentIntentRequest } from "@deliberate/contracts";
import type { Job, RecoveryMessages } from "../store/repositories/job.repository.ts";
import { acceptJob, type AcceptedJob } from "./agent-intent-jobs/accept-job.ts";
import { deliverJobCallback } from "./agent-intent-jobs/deliver-job-callback.ts";
import { type AgentIntentJobsOptions, createJobContext } from "./agent-intent-jobs/job-context.ts";
import { viewOf } from "./agent-intent-jobs/job-view.ts";
import { runAgentIntentJob } from "./agent-intent-jobs/run-job.ts";
import { invalidField } from "../errors.ts";
import type { CancelRequest, CancelResponse, JobView } from "./job.schema.ts";
import type { JobOutcome } from "./worker-pool.ts";

export { callbackDeliveryId, callbackHeaders } from "./agent-intent-jobs/callback-headers.ts";
export { agentIntentJobType, type AgentIntentJobsOptions } from "./agent-intent-jobs/job-context.ts";

/** The async side of agent intents: accept into the durable queue, run, call back, cancel, poll. */
export interface AgentIntentJobs {
  /**
   * Queues the request. With a correlation_id it is an idempotency key: the same request again returns the
   * job already queued under it (`replayed: true`), a different one is CONFLICT naming that job.
   */
  accept(request: AgentIntentRequest, context: { requestId?: string | undefined }): Promise<AcceptedJob>;
  /** Jobs with this correlation id, newest first. */
  list(filter: { correlationId: string; limit: number }): Promise<JobView[]>;
  cancel(request: CancelRequest): Promise<{ response: CancelResponse; canceled: string[] }>;
  view(jobId: string): Promise<JobView>;
  run(job: Job, signal: AbortSignal): Promise<JobOutcome>;
  /** POSTs the callback with retries; `drain` (shutdown) cuts a retry wait short and hands the callback back, `signal` aborts the POST. */
  deliver(job: Job, signal: AbortSignal, drain?: AbortSignal): Promise<void>;
  /** Forgets the in-memory key of a pinned job. */
  forget(jobId: string): void;
  readonly recoveryMessages: RecoveryMessages;
}

/** The async side of agent intents, its steps (accept, run, deliver) in `agent-intent-jobs/`. */
export function createAgentIntentJobs(options: AgentIntentJobsOptions): AgentIntentJobs {
  const context = createJobContext(options);
  const { iso, forget } = context;
  return {
    recoveryMessages: context.recoveryMessages,
    forget,
    accept: (request, { requestId }) => acceptJob(context, request, requestId),
    async list(filter) {
      const jobs = await options.store.jobs.list({ correlationId: filter.correlationId, limit: filter.limit });
      return jobs.map((job) => viewOf(job));
    },
    async cancel(request) {
      const correlationId = request.correlation_id ?? undefined;
      const jobId = request.job_id ?? undefined;
      if (correlationId === undefined && jobId === undefined) {
        throw invalidField(
          "correlation_id",
          "is required (or job_id)",
          "Send the correlation_id given when the job was submitted.",
        );
      }
      const canceled = await options.store.jobs.cancel({
        ...(correlationId !== undefined ? { correlationId } : {}),
        ...(jobId !== undefined ? { id: jobId } : {}),
        now: iso(),
      });
      for (const id of canceled) {
        forget(id);
        options.telemetry.record({ event: "job.canceled", job_id: id, correlation_id: correlationId });
      }
      if (canceled.length === 0) {
        const which = correlationId !== undefined ? `correlation_id ${correlationId}` : `job_id ${jobId}`;
        return {
          canceled,
          response: {
            ok: false,
            canceled,
            error: `No queued or processing job with ${which} (it may have finished already).`,
          },
        };
      }
      return { canceled, response: { ok: true, canceled } };
    },
    async view(jobId) {
      return viewOf(await options.store.jobs.get(jobId));
    },
    run: (job, signal) => runAgentIntentJob(context, job, signal),
    deliver: (job, signal, drain = new AbortController().signal) => deliverJobCallback(context, job, signal, drain),
  };
}
