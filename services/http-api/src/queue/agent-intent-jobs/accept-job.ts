import { type AgentIntentRequest, DeliberateError } from "@deliberate/contracts";
import { invalidField } from "../../errors.ts";
import { compileOfferedTools } from "../../intent/offered-tools.ts";
import { requestDigest } from "../request-digest.ts";
import { type AgentIntentJobContext, agentIntentJobType } from "./job-context.ts";

/** What accepting a request answers. */
export interface AcceptedJob {
  status: "accepted";
  job_id: string;
  correlation_id: string | null;
  replayed: boolean;
}

/**
 * Queues the request. With a correlation_id it is an idempotency key: the same request again returns the
 * job already queued under it (`replayed: true`), a different one is CONFLICT naming that job.
 */
export async function acceptJob(
  context: AgentIntentJobContext,
  request: AgentIntentRequest,
  requestId: string | undefined,
): Promise<AcceptedJob> {
  const { options, keys, iso } = context;
  if (!request.callback_url)
    throw invalidField(
      "callback_url",
      "is required for /agent_intent_async",
      "Send the URL to POST the result to; or poll GET /v1/jobs/{job_id}.",
    );
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
    const outcome = await options.store.jobs.enqueueOnce({
      ...job,
      idempotency: { key: `${agentIntentJobType}:${correlationId}`, digest: requestDigest(payload) },
    });
    if (!outcome.created) {
      // Not this job's key to keep (the secret stays registered for redaction: the held job may carry the same one).
      keys.delete(jobId);
      if (!outcome.same_request) throw correlationConflict(correlationId, outcome.job.id);
      // A canceled job is not what a retry wants back, and a second job would break the key: say so.
      if (outcome.job.status === "canceled") throw correlationCanceled(correlationId, outcome.job.id);
      options.telemetry.record({
        event: "job.replayed",
        request_id: requestId,
        job_id: outcome.job.id,
        correlation_id: correlationId,
        data: { status: outcome.job.status },
      });
      return { status: "accepted", job_id: outcome.job.id, correlation_id: correlationId, replayed: true };
    }
  } else {
    await options.store.jobs.enqueue(job);
  }
  options.telemetry.record({
    event: "job.accepted",
    request_id: requestId,
    job_id: jobId,
    correlation_id: correlationId ?? undefined,
    session_id: request.session_id ?? undefined,
    data: { pinned: apiKey !== undefined },
  });
  options.onEnqueued?.();
  return { status: "accepted", job_id: jobId, correlation_id: correlationId, replayed: false };
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
