import { isTransientDatabaseFault } from "@deliberate/base";
import { DeliberateError } from "@deliberate/contracts";
import type { Job } from "../../store/repositories/job.repository.ts";
import type { CallbackTarget } from "../callback-guard.ts";
import { deliverCallback, retryDelayMs } from "../deliver-callback.ts";
import { callbackHeaders } from "./callback-headers.ts";
import type { AgentIntentJobContext } from "./job-context.ts";

type DeliveryStatus = "pending" | "delivered" | "failed";

/**
 * POSTs a finished job's callback with retries and records each attempt. `drain` (shutdown) cuts a retry
 * wait short and hands the callback back; `signal` aborts the POST in flight.
 */
export async function deliverJobCallback(
  context: AgentIntentJobContext,
  job: Job,
  signal: AbortSignal,
  drain: AbortSignal,
): Promise<void> {
  const { options } = context;
  const url = job.callback_url;
  if (url === null) return;
  const record = (
    status: DeliveryStatus,
    attempts: number,
    error: string | null,
    releaseLease = false,
    recordSignal?: AbortSignal,
  ) => recordDelivery(context, job, status, attempts, error, releaseLease, recordSignal);
  const text = JSON.stringify(callbackBody(job));
  let attempts = job.callback_attempts;
  const maxAttempts = options.callbacks.retries + 1;
  // A draining shutdown still makes an attempt (and lets a POST in flight finish) but waits out no retry
  // delay: it hands the callback back (pending, unleased) instead.
  const stopBetween = AbortSignal.any([signal, drain]);
  while (attempts < maxAttempts) {
    if (signal.aborted) {
      await record("pending", attempts, "delivery interrupted by shutdown", true);
      return;
    }
    let target: CallbackTarget;
    try {
      target = await options.guard.check(url, "callback_url");
    } catch (error) {
      const reason = DeliberateError.isInstance(error) ? error.message : String(error);
      await record("failed", attempts, reason);
      options.telemetry.record({
        event: "callback.refused",
        level: "warn",
        job_id: job.id,
        correlation_id: job.correlation_id ?? undefined,
        data: { reason },
      });
      return;
    }
    attempts += 1;
    const attempt = await deliverCallback({
      target,
      body: text,
      headers: callbackHeaders(job, attempts),
      timeoutMs: options.callbacks.timeoutMs,
      signal,
      secret: options.callbacks.secret,
    });
    if (attempt.ok) {
      await record("delivered", attempts, null, false, signal);
      options.telemetry.record({
        event: "callback.delivered",
        job_id: job.id,
        correlation_id: job.correlation_id ?? undefined,
        data: { attempts, status: attempt.status },
      });
      return;
    }
    if (signal.aborted) {
      await record("pending", attempts - 1, "delivery interrupted by shutdown", true);
      return;
    }
    const final = !attempt.retryable || attempts >= maxAttempts;
    await record(final ? "failed" : "pending", attempts, attempt.error, false, signal);
    options.telemetry.record({
      event: final ? "callback.failed" : "callback.retrying",
      level: "warn",
      job_id: job.id,
      correlation_id: job.correlation_id ?? undefined,
      data: { attempts, error: attempt.error },
    });
    if (final) return;
    await abortableDelay(retryDelayMs(attempts, options.callbacks.backoffMs, attempt.retryAfterMs), stopBetween);
    if (drain.aborted && !signal.aborted) {
      await record("pending", attempts, "delivery handed back at shutdown", true);
      return;
    }
  }
  // Out of attempts before this delivery began (e.g. retries lowered since): settle it, never leave it pending.
  if (attempts >= maxAttempts && job.callback_attempts >= maxAttempts) {
    await record("failed", attempts, `no delivery attempts left (${attempts} made, ${maxAttempts} allowed)`);
  }
}

/** The callback's JSON: the result (or the error) with the job's id and correlation id. */
function callbackBody(job: Job): Record<string, unknown> {
  return job.status === "done"
    ? { ...job.result, job_id: job.id, correlation_id: job.correlation_id }
    : { status: "error", error: job.error, job_id: job.id, correlation_id: job.correlation_id };
}

/**
 * Records a delivery attempt. While the database is unavailable the record waits for it (backing off to a
 * second; the delivery's lease is renewed meanwhile), so a callback sent is not sent again for want of its
 * record — unless the delivery is stopped (shutdown), when the lease lapses and another worker re-delivers.
 */
async function recordDelivery(
  context: AgentIntentJobContext,
  job: Job,
  status: DeliveryStatus,
  attempts: number,
  error: string | null,
  releaseLease: boolean,
  signal: AbortSignal | undefined,
) {
  const { options, iso } = context;
  for (let wait = 50; ; wait = Math.min(1000, wait * 2)) {
    try {
      return await options.store.jobs.recordCallback({
        id: job.id,
        owner: options.owner,
        now: iso(),
        status,
        attempts,
        error,
        releaseLease,
      });
    } catch (fault) {
      if (!isTransientDatabaseFault(fault) || signal === undefined || signal.aborted) throw fault;
      await abortableDelay(wait, signal);
    }
  }
}

/** Waits `milliseconds`, or less if `signal` aborts. */
function abortableDelay(milliseconds: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, milliseconds);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}
