import { createHash } from "node:crypto";
import { isTransientDatabaseFault } from "@deliberate/base";
import { DeliberateError } from "@deliberate/contracts";
import type { Clock, IdGenerator } from "@deliberate/engine";
import type { ApiRepositories } from "../store/contribution.ts";
import type { Job, RecoveryMessages } from "../store/repositories/job.repository.ts";
import type { CallbackSettings } from "../config.ts";
import { invalidField, toErrorDetail, type ErrorDetail } from "../errors.ts";
import { agentIntentRequestSchema, type AgentIntentRequest } from "@deliberate/contracts";
import type { IntentDecider } from "../intent/decide-intent.ts";
import { compileOfferedTools } from "../intent/offered-tools.ts";
import type { Logger, SecretRegistry } from "../logger.ts";
import type { Telemetry } from "../telemetry.ts";
import type { CallbackGuard, CallbackTarget } from "./callback-guard.ts";
import { deliverCallback, retryDelayMs } from "./deliver-callback.ts";
import { requestDigest } from "./request-digest.ts";
import type { CancelRequest, CancelResponse, JobView } from "./job.schema.ts";
import type { JobOutcome } from "./worker-pool.ts";

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

/** The async side of agent intents: accept into the durable queue, run, call back, cancel, poll. */
export interface AgentIntentJobs {
  /**
   * Queues the request. With a correlation_id it is an idempotency key: the same request again returns the
   * job already queued under it (`replayed: true`), a different one is CONFLICT naming that job.
   */
  accept(request: AgentIntentRequest, context: { requestId?: string | undefined }): Promise<{ status: "accepted"; job_id: string; correlation_id: string | null; replayed: boolean }>;
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

export function createAgentIntentJobs(options: AgentIntentJobsOptions): AgentIntentJobs {
  // Keys from `llm.api_key` live here only, never in the database: a job that
  // carries one is pinned to this process and fails if the process goes away.
  const keys = new Map<string, string>();
  const iso = (offsetMs = 0) => new Date(options.clock.now().getTime() + offsetMs).toISOString();

  const recoveryMessages: RecoveryMessages = {
    pinnedLost: {
      code: "CANCELLED",
      message: "The job carried an API key in llm.api_key, which is kept only in the memory of the process that accepted it; that process stopped before finishing the job.",
      hint: "Submit the job again (or configure the provider key on the server so jobs survive restarts).",
      retryable: true,
    },
    attemptsExhausted: {
      code: "INTERNAL",
      message: `The job was interrupted ${options.maxAttempts} time(s) by workers that stopped; it is not retried again.`,
      hint: "Check the service logs for crashes, then submit the job again.",
      retryable: true,
    },
  };

  function forget(jobId: string): void {
    const key = keys.get(jobId);
    if (key === undefined) return;
    keys.delete(jobId);
    options.secrets.delete(key);
  }

  function viewOf(job: Job): JobView {
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
      callback: job.callback_url ? { url: job.callback_url, status: job.callback_status, attempts: job.callback_attempts, last_error: job.callback_error } : null,
    };
  }

  /**
   * Records a delivery attempt. While the database is unavailable the record waits for it (backing off to a
   * second; the delivery's lease is renewed meanwhile), so a callback sent is not sent again for want of its
   * record — unless the delivery is stopped (shutdown), when the lease lapses and another worker re-delivers.
   */
  async function recordDelivery(job: Job, status: "pending" | "delivered" | "failed", attempts: number, error: string | null, releaseLease = false, signal?: AbortSignal) {
    for (let wait = 50; ; wait = Math.min(1000, wait * 2)) {
      try {
        return await options.store.jobs.recordCallback({ id: job.id, owner: options.owner, now: iso(), status, attempts, error, releaseLease });
      } catch (fault) {
        if (!isTransientDatabaseFault(fault) || signal === undefined || signal.aborted) throw fault;
        await abortableDelay(wait, signal);
      }
    }
  }

  return {
    recoveryMessages,
    forget,

    async accept(request, context) {
      if (!request.callback_url) throw invalidField("callback_url", "is required for /agent_intent_async", "Send the URL to POST the result to; or poll GET /v1/jobs/{job_id}.");
      await options.guard.check(request.callback_url, "callback_url");
      compileOfferedTools(request.tools); // reject bad tools now, not in the callback
      const jobId = options.ids.next("job");
      const apiKey = request.llm?.api_key ?? undefined;
      // Stored without the key: the payload is written to the database.
      const { api_key: _key, ...llmWithoutKey } = request.llm ?? {};
      const payload: AgentIntentRequest = request.llm ? { ...request, llm: llmWithoutKey } : request;
      const correlationId = request.correlation_id ?? null;
      const job = {
        id: jobId,
        type: agentIntentJobType,
        correlation_id: correlationId,
        session_id: request.session_id ?? null,
        payload,
        callback_url: request.callback_url,
        max_attempts: options.maxAttempts,
        ...(apiKey !== undefined ? { pinned: { owner: options.owner, lease_until: iso(options.leaseMs) } } : {}),
        now: iso(),
      };
      // The key is remembered before the job can be claimed (a worker may take it at once).
      if (apiKey !== undefined) {
        keys.set(jobId, apiKey);
        options.secrets.add(apiKey);
      }
      if (correlationId !== null) {
        // correlation_id is an idempotency key: the same one returns the same job, never a second one.
        const outcome = await options.store.jobs.enqueueOnce({ ...job, idempotency: { key: `${agentIntentJobType}:${correlationId}`, digest: requestDigest(payload) } });
        if (!outcome.created) {
          // Not this job's key to keep (the secret stays registered for redaction: the held job may carry the same one).
          keys.delete(jobId);
          if (!outcome.same_request) throw correlationConflict(correlationId, outcome.job.id);
          // A canceled job is not what a retry wants back, and a second job would break the key: say so.
          if (outcome.job.status === "canceled") throw correlationCanceled(correlationId, outcome.job.id);
          options.telemetry.record({ event: "job.replayed", request_id: context.requestId, job_id: outcome.job.id, correlation_id: correlationId, data: { status: outcome.job.status } });
          return { status: "accepted", job_id: outcome.job.id, correlation_id: correlationId, replayed: true };
        }
      } else {
        await options.store.jobs.enqueue(job);
      }
      options.telemetry.record({
        event: "job.accepted",
        request_id: context.requestId,
        job_id: jobId,
        correlation_id: correlationId ?? undefined,
        session_id: request.session_id ?? undefined,
        data: { pinned: apiKey !== undefined },
      });
      options.onEnqueued?.();
      return { status: "accepted", job_id: jobId, correlation_id: correlationId, replayed: false };
    },

    async list(filter) {
      const jobs = await options.store.jobs.list({ correlationId: filter.correlationId, limit: filter.limit });
      return Promise.all(jobs.map((job) => viewOf(job)));
    },

    async cancel(request) {
      const correlationId = request.correlation_id ?? undefined;
      const jobId = request.job_id ?? undefined;
      if (correlationId === undefined && jobId === undefined) {
        throw invalidField("correlation_id", "is required (or job_id)", "Send the correlation_id given when the job was submitted.");
      }
      const canceled = await options.store.jobs.cancel({ ...(correlationId !== undefined ? { correlationId } : {}), ...(jobId !== undefined ? { id: jobId } : {}), now: iso() });
      for (const id of canceled) {
        forget(id);
        options.telemetry.record({ event: "job.canceled", job_id: id, correlation_id: correlationId });
      }
      if (canceled.length === 0) {
        const which = correlationId !== undefined ? `correlation_id ${correlationId}` : `job_id ${jobId}`;
        return { canceled, response: { ok: false, canceled, error: `No queued or processing job with ${which} (it may have finished already).` } };
      }
      return { canceled, response: { ok: true, canceled } };
    },

    async view(jobId) {
      return viewOf(await options.store.jobs.get(jobId));
    },

    async run(job, signal) {
      const timeout = AbortSignal.timeout(options.jobTimeoutMs);
      const combined = AbortSignal.any([signal, timeout]);
      try {
        if (job.type !== agentIntentJobType) {
          throw new DeliberateError({ code: "INTERNAL", message: `No runner for job type ${job.type}.` });
        }
        const parsed = agentIntentRequestSchema.safeParse(job.payload);
        if (!parsed.success) throw new DeliberateError({ code: "STORAGE", message: `Job ${job.id} has an unreadable payload.` });
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
            error: { code: "REQUEST_TIMEOUT", message: `The job took longer than ${options.jobTimeoutMs} ms and was stopped.`, hint: "Raise REASONING_API_REQUEST_TIMEOUT_MS.", retryable: true },
          };
        }
        const { detail, errorId } = toErrorDetail(error);
        // A database that was away is expected now and then: the worker puts such a job back in the queue.
        if (errorId !== undefined && detail.code === "STORAGE" && detail.retryable) options.logger.warn("job interrupted: the database is unavailable", { job_id: job.id, error_id: errorId, error });
        else if (errorId !== undefined) options.logger.error("job failed unexpectedly", { job_id: job.id, error_id: errorId, error });
        return { status: "failed", error: detail };
      }
    },

    async deliver(job, signal, drain = new AbortController().signal) {
      const url = job.callback_url;
      if (url === null) return;
      const body =
        job.status === "done"
          ? { ...job.result, job_id: job.id, correlation_id: job.correlation_id }
          : { status: "error", error: job.error, job_id: job.id, correlation_id: job.correlation_id };
      const text = JSON.stringify(body);
      let attempts = job.callback_attempts;
      const maxAttempts = options.callbacks.retries + 1;
      // A draining shutdown still makes an attempt (and lets a POST in flight finish) but waits out no retry
      // delay: it hands the callback back (pending, unleased) instead.
      const stopBetween = AbortSignal.any([signal, drain]);
      while (attempts < maxAttempts) {
        if (signal.aborted) {
          await recordDelivery(job, "pending", attempts, "delivery interrupted by shutdown", true);
          return;
        }
        let target: CallbackTarget;
        try {
          target = await options.guard.check(url, "callback_url");
        } catch (error) {
          const reason = DeliberateError.isInstance(error) ? error.message : String(error);
          await recordDelivery(job, "failed", attempts, reason);
          options.telemetry.record({ event: "callback.refused", level: "warn", job_id: job.id, correlation_id: job.correlation_id ?? undefined, data: { reason } });
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
          await recordDelivery(job, "delivered", attempts, null, false, signal);
          options.telemetry.record({ event: "callback.delivered", job_id: job.id, correlation_id: job.correlation_id ?? undefined, data: { attempts, status: attempt.status } });
          return;
        }
        if (signal.aborted) {
          await recordDelivery(job, "pending", attempts - 1, "delivery interrupted by shutdown", true);
          return;
        }
        const final = !attempt.retryable || attempts >= maxAttempts;
        await recordDelivery(job, final ? "failed" : "pending", attempts, attempt.error, false, signal);
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
          await recordDelivery(job, "pending", attempts, "delivery handed back at shutdown", true);
          return;
        }
      }
      // Out of attempts before this delivery began (e.g. retries lowered since): settle it, never leave it pending.
      if (attempts >= maxAttempts && job.callback_attempts >= maxAttempts) {
        await recordDelivery(job, "failed", attempts, `no delivery attempts left (${attempts} made, ${maxAttempts} allowed)`);
      }
    },
  };
}

function correlationConflict(correlationId: string, jobId: string): DeliberateError {
  return new DeliberateError({
    code: "CONFLICT",
    message: `correlation_id '${correlationId}' already names job ${jobId}, queued with a different request; a correlation_id is an idempotency key (the same one returns the same job).`,
    issues: [{ field: "correlation_id", message: `already used by job ${jobId} for a different request` }],
    hint: `Send a new correlation_id for a new request, or the identical request to get job ${jobId} back (GET /v1/jobs?correlation_id=${encodeURIComponent(correlationId)} lists it).`,
  });
}

function correlationCanceled(correlationId: string, jobId: string): DeliberateError {
  return new DeliberateError({
    code: "CONFLICT",
    message: `correlation_id '${correlationId}' names job ${jobId}, which was canceled; a correlation_id is an idempotency key, so it cannot queue the request again.`,
    issues: [{ field: "correlation_id", message: `job ${jobId} under it was canceled` }],
    hint: "Send the request again with a new correlation_id.",
  });
}

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

/**
 * The idempotency headers of a callback. Callbacks are delivered at least once (a replica that dies between
 * sending one and recording it leaves it to be sent again), so each carries what a receiver deduplicates by:
 * `Idempotency-Key` / `X-Deliberate-Delivery-Id`, the same for every delivery of a job's result (retries,
 * re-deliveries by another replica); `X-Deliberate-Job-Id`; `X-Deliberate-Delivery-Attempt`, counting this
 * job's delivery attempts from 1; `X-Deliberate-Job-Attempt`, the run that produced the result.
 */
export function callbackHeaders(job: Pick<Job, "id" | "attempts" | "finished_at">, deliveryAttempt: number): Record<string, string> {
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
  return `dlv_${createHash("sha256").update(`${job.id}\n${job.finished_at ?? ""}`).digest("hex").slice(0, 24)}`;
}
