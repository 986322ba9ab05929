import { createHash } from "node:crypto";
import type { Job } from "../../store/repositories/job.repository.ts";

/**
 * The idempotency headers of a callback. Callbacks are delivered at least once (a replica that dies between
 * sending one and recording it leaves it to be sent again), so each carries what a receiver deduplicates by:
 * `Idempotency-Key` / `X-Deliberate-Delivery-Id`, the same for every delivery of a job's result (retries,
 * re-deliveries by another replica); `X-Deliberate-Job-Id`; `X-Deliberate-Delivery-Attempt`, counting this
 * job's delivery attempts from 1; `X-Deliberate-Job-Attempt`, the run that produced the result.
 */
export function callbackHeaders(
  job: Pick<Job, "id" | "attempts" | "finished_at">,
  deliveryAttempt: number,
): Record<string, string> {
  const deliveryId = callbackDeliveryId(job);
  return {
    "idempotency-key": deliveryId,
    "x-deliberate-delivery-id": deliveryId,
    "x-deliberate-job-id": job.id,
    "x-deliberate-delivery-attempt": String(deliveryAttempt),
    "x-deliberate-job-attempt": String(job.attempts),
  };
}

/** `dlv_` and a digest of the job id and the moment its result was recorded: one result, one delivery id. */
export function callbackDeliveryId(job: Pick<Job, "id" | "finished_at">): string {
  return `dlv_${createHash("sha256")
    .update(`${job.id}\n${job.finished_at ?? ""}`)
    .digest("hex")
    .slice(0, 24)}`;
}
