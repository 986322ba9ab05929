import type { Job } from "../../store/repositories/job.repository.ts";
import type { ErrorDetail } from "../../errors.ts";
import type { JobView } from "../job.schema.ts";

/** A job as the API shows it (GET /v1/jobs). */
export function viewOf(job: Job): JobView {
  return {
    job_id: job.id,
    type: job.type,
    status: job.status,
    correlation_id: job.correlation_id,
    session_id: job.session_id,
    attempts: job.attempts,
    created_at: job.created_at,
    updated_at: job.updated_at,
    started_at: job.started_at,
    finished_at: job.finished_at,
    result: job.result,
    error: (job.error as ErrorDetail | null) ?? null,
    callback: job.callback_url
      ? {
          url: job.callback_url,
          status: job.callback_status,
          attempts: job.callback_attempts,
          last_error: job.callback_error,
        }
      : null,
  };
}
