import {
  type AgentIntentResponse,
  agentIntentRequestSchema,
  agentIntentResponseSchema,
  type CancelResponse,
  cancelRequestSchema,
  cancelResponseSchema,
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
import { DeliberateClientError } from "../errors.ts";
import { type HttpConnection, type HttpConnectionOptions, resolveHttpConnection } from "../http/config.ts";
import { sendHttpRequest } from "../http/http-request.ts";
import type { AcceptedIntent, AgentIntentCallOptions, AgentIntentRequestInput, AsyncIntent, IntentHandle, QueuedIntent, WaitOptions } from "./intent-types.ts";
import { acceptedHandle, hostTools, type JobOperations, newCorrelationId, offeredToolsFor, pollJob, queueIntent } from "./intent-handles.ts";
import { createOutboxDrain, type OutboxDrain } from "./outbox-drain.ts";
import { isApiUnavailable, type OutboxEntry, type OutboxStore } from "./outbox.ts";
import { type HostTool, validateIntent } from "./tool-validation.ts";

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

export type { AcceptedIntent, AgentIntentCallOptions, AgentIntentRequestInput, AsyncIntent, IntentHandle, QueuedIntent, WaitOptions };

const workflowListSchema = z.object({ workflows: z.array(workflowSummarySchema) });


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

  const offeredFor = (request: AgentIntentRequestInput): HostTool[] => offeredToolsFor(request, defaultTools);

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

  function waitForJob(jobId: string, waitOptions: WaitOptions & { offered?: readonly HostTool[] } = {}): Promise<AgentIntentResponse> {
    return pollJob({ job, jobId, intervalMs: waitOptions.intervalMs ?? pollIntervalMs, timeoutMs: waitOptions.timeoutMs ?? waitTimeoutMs, signal: waitOptions.signal, offered: validateByDefault ? (waitOptions.offered ?? defaultTools) : undefined });
  }

  async function cancel(target: string | { correlation_id?: string; job_id?: string }, callOptions?: AgentIntentCallOptions): Promise<CancelResponse> {
    const body = typeof target === "string" ? { correlation_id: target } : target;
    validateWith(cancelRequestSchema, body, "agent_intent_cancel");
    if (!body.correlation_id && !body.job_id) {
      throw new DeliberateClientError({ code: "INVALID_INPUT", message: "Name what to cancel: correlation_id or job_id.", issues: [{ field: "correlation_id", message: "send correlation_id or job_id" }] });
    }
    return post("/agent_intent_cancel", body, cancelResponseSchema, true, callOptions);
  }

  const jobOperations: JobOperations = { waitForJob, job, cancel };

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
        handle = acceptedHandle(jobOperations, accepted, offered);
      } catch (error) {
        if (!drain || !isApiUnavailable(error) || callOptions.signal?.aborted) throw error;
        handle = await queueIntent(jobOperations, { drain, outbox: options.outbox as OutboxStore, retryMs: options.outboxRetryMs ?? 1_000 }, body as OutboxEntry["request"], error as DeliberateClientError, offered);
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
