import { agentIntentRequestSchema, jobAcceptedSchema } from "@deliberate/contracts";
import { DeliberateClientError } from "../errors.ts";
import { validateWith } from "../validation.ts";
import { acceptedHandle, type JobOperations, newCorrelationId, queueIntent } from "./intent-handles.ts";
import type { IntentTransport } from "./intent-transport.ts";
import type { AgentIntentAsyncOptions, AgentIntentRequestInput, AsyncIntent } from "./intent-types.ts";
import type { OutboxDrain } from "./outbox-drain.ts";
import { isApiUnavailable, type OutboxEntry, type OutboxStore } from "./outbox.ts";
import type { HostTool } from "./tool-validation.ts";

/** What an async intent needs of its client. */
export interface AsyncIntentDeps {
  transport: IntentTransport;
  jobs: JobOperations;
  /** The queue fallback, when the client has an outbox. */
  outbox: { drain: OutboxDrain; store: OutboxStore; retryMs: number } | null;
  validateByDefault: boolean;
  offeredFor(request: AgentIntentRequestInput): HostTool[];
}

/**
 * `POST /agent_intent_async`: the accepted job's handle, or (with an outbox, when the API is unavailable) a
 * queued one. With `onResult` the handle is followed to its end and the result reported.
 */
export async function sendAgentIntentAsync(
  deps: AsyncIntentDeps,
  request: AgentIntentRequestInput & { callback_url: string },
  callOptions: AgentIntentAsyncOptions,
): Promise<AsyncIntent> {
  const checked = validateWith(agentIntentRequestSchema, request, "agent_intent_async");
  if (!request.callback_url) {
    throw new DeliberateClientError({
      code: "INVALID_INPUT",
      message: "callback_url is required for /agent_intent_async.",
      issues: [{ field: "callback_url", message: "is required" }],
      hint: "Send the URL the service POSTs the result to; follow the job with wait() as well if you like.",
    });
  }
  const offered = (callOptions.validateTools ?? deps.validateByDefault) ? deps.offeredFor(request) : undefined;
  const { outbox } = deps;
  // With an outbox, every async intent carries a correlation id: the service's idempotency key, so a queued
  // intent sent again (after a timeout that did reach the service) is one job.
  const body = outbox && !checked.correlation_id ? { ...checked, correlation_id: newCorrelationId() } : checked;
  let handle: AsyncIntent;
  try {
    const accepted = await deps.transport.post("/agent_intent_async", body, jobAcceptedSchema, false, callOptions);
    handle = acceptedHandle(deps.jobs, accepted, offered);
  } catch (error) {
    if (!outbox || !isApiUnavailable(error) || callOptions.signal?.aborted) throw error;
    handle = await queueIntent(
      deps.jobs,
      { drain: outbox.drain, outbox: outbox.store, retryMs: outbox.retryMs },
      body as OutboxEntry["request"],
      error as DeliberateClientError,
      offered,
    );
  }
  if (callOptions.onResult) reportResult(handle, callOptions.onResult, callOptions.wait);
  return handle;
}

/** Follows the handle to its end and calls `onResult` with the decision or the error. */
function reportResult(
  handle: AsyncIntent,
  onResult: NonNullable<AgentIntentAsyncOptions["onResult"]>,
  wait: AgentIntentAsyncOptions["wait"],
): void {
  const about = () => ({ job_id: handle.job_id, correlation_id: handle.correlation_id });
  handle.wait(wait).then(
    async (result) => onResult(result, handle.status === "queued" ? await handle.delivered() : about()),
    (error: unknown) =>
      onResult(
        DeliberateClientError.isInstance(error)
          ? error
          : new DeliberateClientError({ code: "INTERNAL", message: String(error), cause: error }),
        about(),
      ),
  );
}
