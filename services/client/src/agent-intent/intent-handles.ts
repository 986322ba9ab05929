import {
  type AgentIntentResponse,
  agentIntentResponseSchema,
  type CancelResponse,
  defaultOfferedTools,
  type JobAccepted,
  type JobView,
} from "@deliberate/contracts";
import { type ClientErrorCode, DeliberateClientError } from "../errors.ts";
import { sleep } from "../signals.ts";
import { checkResponse } from "../validation.ts";
import type {
  AcceptedIntent,
  AgentIntentCallOptions,
  AgentIntentRequestInput,
  QueuedIntent,
  WaitOptions,
} from "./intent-types.ts";
import type { OutboxDrain } from "./outbox-drain.ts";
import { isApiUnavailable, type OutboxEntry, type OutboxStore } from "./outbox.ts";
import { type HostTool, validateIntent } from "./tool-validation.ts";

/** The job calls a handle follows an async intent with. */
export interface JobOperations {
  waitForJob(jobId: string, options?: WaitOptions & { offered?: readonly HostTool[] }): Promise<AgentIntentResponse>;
  job(jobId: string, options?: AgentIntentCallOptions): Promise<JobView>;
  cancel(
    target: string | { correlation_id?: string; job_id?: string },
    options?: AgentIntentCallOptions,
  ): Promise<CancelResponse>;
}

/** A correlation id for an intent queued without one (the service's idempotency key). */
export function newCorrelationId(): string {
  const crypto = (globalThis as { crypto?: { randomUUID?: () => string } }).crypto;
  return `outbox-${crypto?.randomUUID ? crypto.randomUUID() : `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 12)}`}`;
}

/** The host's tools as `HostTool`s (names alone, or with their argument schema). */
export function hostTools(tools: ReadonlyArray<string | HostTool> | undefined): HostTool[] | undefined {
  return tools?.map((tool) => (typeof tool === "string" ? { name: tool } : tool));
}

/** A tool's input schema as an object: it may be given as JSON text, the form strict-mode clients send (the service parses it the same way). */
function inputSchemaObject(
  schema: string | Record<string, unknown> | null | undefined,
): Record<string, unknown> | null {
  if (typeof schema !== "string") return schema ?? null;
  try {
    const parsed: unknown = JSON.parse(schema);
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : null;
  } catch {
    return null; // not JSON: the service refuses the request, naming the field
  }
}

/**
 * What a decision is checked against: the request's tools, else the host's, else what the service offers a
 * request with no tools (plus a forced tool, which the service then takes by name).
 */
export function offeredToolsFor(request: AgentIntentRequestInput, hostOffered: HostTool[] | undefined): HostTool[] {
  if (request.tools)
    return request.tools.map((tool) => ({ name: tool.name, input_schema: inputSchemaObject(tool.input_schema) }));
  if (hostOffered) return hostOffered;
  const forced = request.forced_tool?.trim();
  const served = defaultOfferedTools.map((tool) => ({ name: tool.name, input_schema: tool.input_schema ?? null }));
  return forced && !served.some((tool) => tool.name === forced) ? [...served, { name: forced }] : served;
}

/** Polls a job until it finishes; resolves with its decision (checked against `offered` when given), or rejects with its error. */
export async function pollJob(input: {
  job: JobOperations["job"];
  jobId: string;
  intervalMs: number;
  timeoutMs: number;
  signal: AbortSignal | undefined;
  offered: readonly HostTool[] | undefined;
}): Promise<AgentIntentResponse> {
  const { jobId } = input;
  const deadline = Date.now() + input.timeoutMs;
  for (;;) {
    const view = await input.job(jobId, input.signal ? { signal: input.signal } : {});
    if (view.status === "done") {
      const result = checkResponse(agentIntentResponseSchema, view.result, `job ${jobId}`);
      if (input.offered) validateIntent(result, input.offered);
      return result;
    }
    if (view.status === "failed") {
      throw new DeliberateClientError({
        code: (view.error?.code ?? "INTERNAL") as ClientErrorCode,
        message: `Job ${jobId} failed: ${view.error?.message ?? "no detail"}`,
        issues: view.error?.issues ?? [],
        ...(view.error?.hint ? { hint: view.error.hint } : {}),
        retryable: view.error?.retryable ?? false,
      });
    }
    if (view.status === "canceled")
      throw new DeliberateClientError({ code: "CANCELLED", message: `Job ${jobId} was canceled.` });
    if (Date.now() + input.intervalMs > deadline) {
      throw new DeliberateClientError({
        code: "TIMEOUT",
        message: `Job ${jobId} was still ${view.status} after ${input.timeoutMs} ms.`,
        retryable: true,
        hint: "Wait longer, or cancel it.",
      });
    }
    try {
      await sleep(input.intervalMs, input.signal);
    } catch (reason) {
      throw new DeliberateClientError({
        code: "ABORTED",
        message: `Waiting for job ${jobId} was aborted.`,
        cause: reason,
      });
    }
  }
}

/** The handle of an intent the service accepted. */
export function acceptedHandle(
  operations: JobOperations,
  accepted: JobAccepted,
  offered: HostTool[] | undefined,
): AcceptedIntent {
  return {
    ...accepted,
    wait: (waitOptions) => operations.waitForJob(accepted.job_id, { ...waitOptions, ...(offered ? { offered } : {}) }),
    job: (jobOptions) => operations.job(accepted.job_id, jobOptions),
    cancel: (cancelOptions) => operations.cancel({ job_id: accepted.job_id }, cancelOptions),
  };
}

/** Keeps the intent in the outbox (durably, before this returns) and hands back a handle that follows it. */
export async function queueIntent(
  operations: JobOperations,
  queue: { drain: OutboxDrain; outbox: OutboxStore; retryMs: number },
  request: OutboxEntry["request"],
  error: DeliberateClientError,
  offered: HostTool[] | undefined,
): Promise<QueuedIntent> {
  const entry: OutboxEntry = {
    id: request.correlation_id,
    kind: "agent_intent_async",
    request,
    queuedAt: new Date().toISOString(),
    attempts: 1,
    state: "queued",
    nextAttemptAt: new Date(Date.now() + queue.retryMs).toISOString(),
    lastError: { code: error.code, message: error.message },
  };
  await queue.drain.enqueue(entry);
  const delivered = () => queue.drain.delivered(entry.id);
  return {
    status: "queued",
    job_id: null,
    correlation_id: entry.id,
    reason: { code: error.code, message: error.message },
    delivered,
    wait: async (waitOptions) =>
      operations.waitForJob((await delivered()).job_id, { ...waitOptions, ...(offered ? { offered } : {}) }),
    job: async (jobOptions) => operations.job((await delivered()).job_id, jobOptions),
    cancel: async (cancelOptions) => {
      const waiting = await queue.outbox.get(entry.id);
      const removed = waiting?.state === "queued";
      if (removed) await queue.outbox.delete(entry.id);
      try {
        // An earlier attempt may have reached the service after all: cancel there too.
        return await operations.cancel({ correlation_id: entry.id }, cancelOptions);
      } catch (cancelError) {
        if (removed && isApiUnavailable(cancelError)) return { ok: true, canceled: [] };
        throw cancelError;
      }
    },
  };
}
