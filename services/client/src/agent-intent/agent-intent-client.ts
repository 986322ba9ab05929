import {
  type AgentIntentResponse,
  agentIntentRequestSchema,
  agentIntentResponseSchema,
  type CancelResponse,
  cancelRequestSchema,
  cancelResponseSchema,
  defaultOfferedTools,
  type Health,
  healthSchema,
  type JobAccepted,
  type JobView,
  jobAcceptedSchema,
  jobViewSchema,
  type WorkflowIntentResponse,
  type WorkflowSummary,
  workflowIntentRequestSchema,
  workflowIntentResponseSchema,
  workflowSummarySchema,
} from "@deliberate/contracts";
import { z } from "zod";
import { checkResponse, validateWith } from "../validation.ts";
import { type ClientErrorCode, DeliberateClientError } from "../errors.ts";
import { type HttpConnection, type HttpConnectionOptions, resolveHttpConnection } from "../http/config.ts";
import { sendHttpRequest } from "../http/http-request.ts";
import { sleep } from "../signals.ts";
import { createOutboxDrain, type OutboxDrain } from "./outbox-drain.ts";
import { isApiUnavailable, type OutboxEntry, type OutboxStore } from "./outbox.ts";
import { type HostTool, validateIntent } from "./tool-validation.ts";

/** `AgentIntentRequest` as the caller writes it (every field optional; `null` counts as absent). */
export type AgentIntentRequestInput = z.input<typeof agentIntentRequestSchema>;
/** `WorkflowIntentRequest` as the caller writes it. */
export type WorkflowIntentRequestInput = z.input<typeof workflowIntentRequestSchema>;

export interface AgentIntentClientOptions extends HttpConnectionOptions {
  /**
   * The tools the host can run, for checking decisions when a request lists no
   * `tools` (the Ruby client checks against its Multiplexer). Names, or names
   * with the JSON Schema of their arguments. When neither is given, decisions are
   * checked against what the service offers a request with no tools
   * (`defaultOfferedTools`: context.fts_search {query}).
   */
  availableTools?: ReadonlyArray<string | HostTool>;
  /** Check decisions against the offered tools (INTENT_VALIDATION); default true, whatever the tool lists. */
  validateTools?: boolean;
  /**
   * The queue fallback: where an async intent waits when the API cannot take it
   * (no connection, timeout, 408/429/502/503/504), to be sent when the API
   * returns. `createFileOutbox({ directory })` from `@deliberate/client/node`
   * keeps it on disk (nothing lost on a restart), or supply your own store.
   * Without it, such a failure is the caller's error.
   */
  outbox?: OutboxStore;
  /** First wait before the outbox tries again (doubled per attempt); default 1,000 ms. */
  outboxRetryMs?: number;
  /** Longest wait between outbox attempts; default 30,000 ms. */
  outboxMaxRetryMs?: number;
  /** Called when a queued intent reached the API (its job accepted). */
  onOutboxDelivered?: (entry: OutboxEntry, accepted: JobAccepted) => void;
  /** Called when the API refused a queued intent (4xx): it stays in the store as `rejected`, and is not sent again. */
  onOutboxRejected?: (entry: OutboxEntry, error: DeliberateClientError) => void;
  /** How often `wait()` polls a job; default 250 ms. */
  pollIntervalMs?: number;
  /** How long `wait()` waits for a job; default 60,000 ms. */
  waitTimeoutMs?: number;
}

/** Options of one call. */
export interface AgentIntentCallOptions {
  signal?: AbortSignal;
  /** This call's timeout (per attempt); default the client's. */
  timeoutMs?: number;
  /** Overrides the client's `validateTools` for this call. */
  validateTools?: boolean;
}

export interface WaitOptions {
  signal?: AbortSignal;
  /** Poll interval; default the client's `pollIntervalMs`. */
  intervalMs?: number;
  /** Give up after this long (TIMEOUT); default the client's `waitTimeoutMs`. */
  timeoutMs?: number;
}

/** Ways to follow an async decision. */
export interface IntentHandle {
  /** Polls `GET /v1/jobs/{job_id}` until the job finishes (a queued intent: until it is delivered, then so); resolves with the checked decision. */
  wait(options?: WaitOptions): Promise<AgentIntentResponse>;
  /** The job as it is now (a queued intent: once it is delivered). */
  job(options?: AgentIntentCallOptions): Promise<JobView>;
  /** Cancels this job (a queued intent still in the outbox: removes it, and cancels by correlation id). */
  cancel(options?: AgentIntentCallOptions): Promise<CancelResponse>;
}

/** An async decision the API accepted: the job. */
export interface AcceptedIntent extends JobAccepted, IntentHandle {}

/** An async decision the API could not take now, kept in the outbox until it can (the queue fallback). */
export interface QueuedIntent extends IntentHandle {
  status: "queued";
  job_id: null;
  correlation_id: string;
  /** Why it was queued (the send's error). */
  reason: { code: string; message: string };
  /** Resolves with the job once the outbox delivered it (in this process). */
  delivered(): Promise<JobAccepted>;
}

/** What `agentIntentAsync` answers: accepted, or queued in the outbox (only with an `outbox`). */
export type AsyncIntent = AcceptedIntent | QueuedIntent;

export interface AgentIntentAsyncOptions extends AgentIntentCallOptions {
  /**
   * Called with the decision once the job finishes (the client polls for it),
   * or with the error; the server also POSTs the result to `callback_url`.
   */
  onResult?: (result: AgentIntentResponse | DeliberateClientError, job: { job_id: string | null; correlation_id: string | null }) => void;
  /** Polling settings for `onResult`. */
  wait?: WaitOptions;
}

/** The client of `deliberate-api`'s agent-intent endpoints, with the Ruby client's features. */
export interface AgentIntentClient {
  readonly connection: HttpConnection;
  /** `POST /agent_intent`: the next action, checked against the offered tools. Retried on transient failures. */
  agentIntent(request: AgentIntentRequestInput, options?: AgentIntentCallOptions): Promise<AgentIntentResponse>;
  /** `POST /agent_intent_async` (requires `callback_url`): the job; follow it with `wait()`, or `onResult`. */
  agentIntentAsync(request: AgentIntentRequestInput & { callback_url: string }, options?: AgentIntentAsyncOptions): Promise<AsyncIntent>;
  /** `GET /v1/jobs/{job_id}`. */
  job(jobId: string, options?: AgentIntentCallOptions): Promise<JobView>;
  /** Polls a job until it finishes; resolves with its decision (checked), or rejects with its error. */
  waitForJob(jobId: string, options?: WaitOptions & { offered?: readonly HostTool[] }): Promise<AgentIntentResponse>;
  /** `POST /agent_intent_cancel`: by correlation id (a string or `{ correlation_id }`) or `{ job_id }`. */
  cancel(target: string | { correlation_id?: string; job_id?: string }, options?: AgentIntentCallOptions): Promise<CancelResponse>;
  /** `POST /workflow_intent`: the next node of a guided workflow. */
  workflowIntent(request: WorkflowIntentRequestInput, options?: AgentIntentCallOptions): Promise<WorkflowIntentResponse>;
  /** `GET /v1/workflows`. */
  workflows(options?: AgentIntentCallOptions): Promise<WorkflowSummary[]>;
  /** `GET /healthz`: `{ status: "ok" }`, or a rejection (CONNECTION_FAILED, TIMEOUT, ...). */
  health(options?: AgentIntentCallOptions): Promise<Health>;
  /** The outbox of the queue fallback (null without `outbox`): send what is due now, see what waits, stop its timer. */
  readonly outbox: {
    /** Tries every queued intent now, oldest first (stopping while the API is still away). */
    flush(): Promise<{ delivered: number; rejected: number; remaining: number }>;
    pending(): Promise<OutboxEntry[]>;
    close(): void;
  } | null;
}

const workflowListSchema = z.object({ workflows: z.array(workflowSummarySchema) });

function newCorrelationId(): string {
  const crypto = (globalThis as { crypto?: { randomUUID?: () => string } }).crypto;
  return `outbox-${crypto?.randomUUID ? crypto.randomUUID() : `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 12)}`}`;
}

function hostTools(tools: ReadonlyArray<string | HostTool> | undefined): HostTool[] | undefined {
  return tools?.map((tool) => (typeof tool === "string" ? { name: tool } : tool));
}

/**
 * Creates the agent-intent client. Settings come from the options, else
 * `REASONING_API_URL`, `REASONING_API_TOKEN`, `REASONING_API_TIMEOUT_MS`
 * (default 5,000), `REASONING_API_RETRIES` (default 2) and
 * `REASONING_API_VERSION` (default `v1`, sent as `Accept-Version`).
 *
 * ```ts
 * const intents = createAgentIntentClient();
 * const intent = await intents.agentIntent({ session_id: "s1", goal_text: "List Makefile targets", tools });
 * if (intent.finish) console.log(intent.final_text); else run(intent.tool_name, intent.tool_args);
 * ```
 */
export function createAgentIntentClient(options: AgentIntentClientOptions = {}): AgentIntentClient {
  const connection = resolveHttpConnection(options);
  const defaultTools = hostTools(options.availableTools);
  const validateByDefault = options.validateTools ?? true;
  const pollIntervalMs = options.pollIntervalMs ?? 250;
  const waitTimeoutMs = options.waitTimeoutMs ?? 60_000;
  const drain: OutboxDrain | null = options.outbox
    ? createOutboxDrain({
        store: options.outbox,
        // One attempt each time: the outbox's own backoff spaces the retries.
        send: async (entry) => {
          const response = await sendHttpRequest({ ...connection, retries: 0 }, { method: "POST", path: "/agent_intent_async", body: entry.request, idempotent: false, what: "POST /agent_intent_async" });
          return checkResponse(jobAcceptedSchema, response.body, "POST /agent_intent_async");
        },
        retryMs: options.outboxRetryMs ?? 1_000,
        maxRetryMs: options.outboxMaxRetryMs ?? 30_000,
        ...(options.onOutboxDelivered ? { onDelivered: options.onOutboxDelivered } : {}),
        ...(options.onOutboxRejected ? { onRejected: options.onOutboxRejected } : {}),
      })
    : null;

  // What the decision is checked against: the request's tools, else the host's, else what the service offers a
  // request with no tools (plus a forced tool, which the service then takes by name).
  const offeredFor = (request: AgentIntentRequestInput): HostTool[] => {
    if (request.tools) return request.tools.map((tool) => ({ name: tool.name, input_schema: tool.input_schema ?? null }));
    if (defaultTools) return defaultTools;
    const forced = request.forced_tool?.trim();
    const served = defaultOfferedTools.map((tool) => ({ name: tool.name, input_schema: tool.input_schema ?? null }));
    return forced && !served.some((tool) => tool.name === forced) ? [...served, { name: forced }] : served;
  };

  async function get<S extends z.ZodType>(path: string, schema: S, callOptions: AgentIntentCallOptions = {}): Promise<z.output<S>> {
    const response = await sendHttpRequest(connection, { method: "GET", path, idempotent: true, what: `GET ${path}` }, callOptions);
    return checkResponse(schema, response.body, `GET ${path}`);
  }

  async function post<S extends z.ZodType>(path: string, body: unknown, schema: S, idempotent: boolean, callOptions: AgentIntentCallOptions = {}): Promise<z.output<S>> {
    const response = await sendHttpRequest(connection, { method: "POST", path, body, idempotent, what: `POST ${path}` }, callOptions);
    return checkResponse(schema, response.body, `POST ${path}`);
  }

  async function job(jobId: string, callOptions?: AgentIntentCallOptions): Promise<JobView> {
    return get(`/v1/jobs/${encodeURIComponent(jobId)}`, jobViewSchema, callOptions);
  }

  async function waitForJob(jobId: string, waitOptions: WaitOptions & { offered?: readonly HostTool[] } = {}): Promise<AgentIntentResponse> {
    const deadline = Date.now() + (waitOptions.timeoutMs ?? waitTimeoutMs);
    const interval = waitOptions.intervalMs ?? pollIntervalMs;
    for (;;) {
      const view = await job(jobId, waitOptions.signal ? { signal: waitOptions.signal } : {});
      if (view.status === "done") {
        const result = checkResponse(agentIntentResponseSchema, view.result, `job ${jobId}`);
        if (validateByDefault) validateIntent(result, waitOptions.offered ?? defaultTools);
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
      if (view.status === "canceled") throw new DeliberateClientError({ code: "CANCELLED", message: `Job ${jobId} was canceled.` });
      if (Date.now() + interval > deadline) {
        throw new DeliberateClientError({ code: "TIMEOUT", message: `Job ${jobId} was still ${view.status} after ${waitOptions.timeoutMs ?? waitTimeoutMs} ms.`, retryable: true, hint: "Wait longer, or cancel it." });
      }
      try {
        await sleep(interval, waitOptions.signal);
      } catch (reason) {
        throw new DeliberateClientError({ code: "ABORTED", message: `Waiting for job ${jobId} was aborted.`, cause: reason });
      }
    }
  }

  async function cancel(target: string | { correlation_id?: string; job_id?: string }, callOptions?: AgentIntentCallOptions): Promise<CancelResponse> {
    const body = typeof target === "string" ? { correlation_id: target } : target;
    validateWith(cancelRequestSchema, body, "agent_intent_cancel");
    if (!body.correlation_id && !body.job_id) {
      throw new DeliberateClientError({ code: "INVALID_INPUT", message: "Name what to cancel: correlation_id or job_id.", issues: [{ field: "correlation_id", message: "send correlation_id or job_id" }] });
    }
    return post("/agent_intent_cancel", body, cancelResponseSchema, true, callOptions);
  }

  function acceptedHandle(accepted: JobAccepted, offered: HostTool[] | undefined): AcceptedIntent {
    return {
      ...accepted,
      wait: (waitOptions) => waitForJob(accepted.job_id, { ...waitOptions, ...(offered ? { offered } : {}) }),
      job: (jobOptions) => job(accepted.job_id, jobOptions),
      cancel: (cancelOptions) => cancel({ job_id: accepted.job_id }, cancelOptions),
    };
  }

  /** Keeps the intent in the outbox (durably, before this returns) and hands back a handle that follows it. */
  async function queueIntent(outbox: OutboxDrain, request: OutboxEntry["request"], error: DeliberateClientError, offered: HostTool[] | undefined): Promise<QueuedIntent> {
    const entry: OutboxEntry = {
      id: request.correlation_id,
      kind: "agent_intent_async",
      request,
      queuedAt: new Date().toISOString(),
      attempts: 1,
      state: "queued",
      nextAttemptAt: new Date(Date.now() + (options.outboxRetryMs ?? 1_000)).toISOString(),
      lastError: { code: error.code, message: error.message },
    };
    await outbox.enqueue(entry);
    const delivered = () => outbox.delivered(entry.id);
    return {
      status: "queued",
      job_id: null,
      correlation_id: entry.id,
      reason: { code: error.code, message: error.message },
      delivered,
      wait: async (waitOptions) => waitForJob((await delivered()).job_id, { ...waitOptions, ...(offered ? { offered } : {}) }),
      job: async (jobOptions) => job((await delivered()).job_id, jobOptions),
      cancel: async (cancelOptions) => {
        const waiting = await options.outbox?.get(entry.id);
        const removed = waiting?.state === "queued";
        if (removed) await options.outbox?.delete(entry.id);
        try {
          // An earlier attempt may have reached the service after all: cancel there too.
          return await cancel({ correlation_id: entry.id }, cancelOptions);
        } catch (cancelError) {
          if (removed && isApiUnavailable(cancelError)) return { ok: true, canceled: [] };
          throw cancelError;
        }
      },
    };
  }

  return {
    connection,
    outbox: drain
      ? {
          flush: () => drain.flush(true),
          pending: async () => (await (options.outbox as OutboxStore).list()).filter((entry) => entry.state === "queued"),
          close: () => drain.close(),
        }
      : null,
    async agentIntent(request, callOptions = {}) {
      validateWith(agentIntentRequestSchema, request, "agent_intent");
      // A decision writes nothing the caller sees twice: repeating it after a dropped answer is harmless.
      const result = await post("/agent_intent", request, agentIntentResponseSchema, true, callOptions);
      if (callOptions.validateTools ?? validateByDefault) validateIntent(result, offeredFor(request));
      return result;
    },
    async agentIntentAsync(request, callOptions = {}) {
      const checked = validateWith(agentIntentRequestSchema, request, "agent_intent_async");
      if (!request.callback_url) {
        throw new DeliberateClientError({
          code: "INVALID_INPUT",
          message: "callback_url is required for /agent_intent_async.",
          issues: [{ field: "callback_url", message: "is required" }],
          hint: "Send the URL the service POSTs the result to; follow the job with wait() as well if you like.",
        });
      }
      const offered = (callOptions.validateTools ?? validateByDefault) ? offeredFor(request) : undefined;
      // With an outbox, every async intent carries a correlation id: the service's idempotency key, so a queued
      // intent sent again (after a timeout that did reach the service) is one job.
      const body = drain && !checked.correlation_id ? { ...checked, correlation_id: newCorrelationId() } : checked;
      let handle: AsyncIntent;
      try {
        const accepted = await post("/agent_intent_async", body, jobAcceptedSchema, false, callOptions);
        handle = acceptedHandle(accepted, offered);
      } catch (error) {
        if (!drain || !isApiUnavailable(error) || callOptions.signal?.aborted) throw error;
        handle = await queueIntent(drain, body as OutboxEntry["request"], error as DeliberateClientError, offered);
      }
      if (callOptions.onResult) {
        const onResult = callOptions.onResult;
        const about = () => ({ job_id: handle.job_id, correlation_id: handle.correlation_id });
        handle.wait(callOptions.wait).then(
          async (result) => onResult(result, handle.status === "queued" ? await handle.delivered() : about()),
          (error: unknown) => onResult(DeliberateClientError.isInstance(error) ? error : new DeliberateClientError({ code: "INTERNAL", message: String(error), cause: error }), about()),
        );
      }
      return handle;
    },
    job,
    waitForJob,
    cancel,
    async workflowIntent(request, callOptions) {
      validateWith(workflowIntentRequestSchema, request, "workflow_intent");
      return post("/workflow_intent", request, workflowIntentResponseSchema, true, callOptions);
    },
    async workflows(callOptions) {
      return (await get("/v1/workflows", workflowListSchema, callOptions)).workflows;
    },
    async health(callOptions) {
      return get("/healthz", healthSchema, callOptions);
    },
  };
}
