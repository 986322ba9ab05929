import { agentIntentRequestSchema, DeliberateError } from "@deliberate/contracts";
import type { Job } from "../../store/repositories/job.repository.ts";
import { toErrorDetail } from "../../errors.ts";
import type { JobOutcome } from "../worker-pool/pool-state.ts";
import { type AgentIntentJobContext, agentIntentJobType } from "./job-context.ts";

/**
 * Decides one queued agent intent within the job timeout. Never throws: every failure becomes the job's
 * error (REQUEST_TIMEOUT when the timeout, not the worker, stopped it).
 */
export async function runAgentIntentJob(
  context: AgentIntentJobContext,
  job: Job,
  signal: AbortSignal,
): Promise<JobOutcome> {
  const { options, keys, recoveryMessages } = context;
  const timeout = AbortSignal.timeout(options.jobTimeoutMs);
  const combined = AbortSignal.any([signal, timeout]);
  try {
    if (job.type !== agentIntentJobType) {
      throw new DeliberateError({ code: "INTERNAL", message: `No runner for job type ${job.type}.` });
    }
    const parsed = agentIntentRequestSchema.safeParse(job.payload);
    if (!parsed.success)
      throw new DeliberateError({ code: "STORAGE", message: `Job ${job.id} has an unreadable payload.` });
    const request = parsed.data;
    if (job.pinned) {
      const key = keys.get(job.id);
      if (key === undefined) return { status: "failed", error: recoveryMessages.pinnedLost };
      request.llm = { ...request.llm, api_key: key };
    }
    const response = await options.decider.decide(request, { signal: combined, jobId: job.id });
    return { status: "done", result: response };
  } catch (error) {
    if (timeout.aborted && !signal.aborted) {
      return {
        status: "failed",
        error: {
          code: "REQUEST_TIMEOUT",
          message: `The job took longer than ${options.jobTimeoutMs} ms and was stopped.`,
          hint: "Raise REASONING_API_REQUEST_TIMEOUT_MS.",
          retryable: true,
        },
      };
    }
    const { detail, errorId } = toErrorDetail(error);
    // A database that was away is expected now and then: the worker puts such a job back in the queue.
    if (errorId !== undefined && detail.code === "STORAGE" && detail.retryable)
      options.logger.warn("job interrupted: the database is unavailable", { job_id: job.id, error_id: errorId, error });
    else if (errorId !== undefined)
      options.logger.error("job failed unexpectedly", { job_id: job.id, error_id: errorId, error });
    return { status: "failed", error: detail };
  }
}
