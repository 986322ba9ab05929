import {
  type AgentIntentResponse,
  agentIntentRequestSchema,
  agentIntentResponseSchema,
  type CancelResponse,
  type Health,
  healthSchema,
  type JobAccepted,
  type JobView,
  type WorkflowIntentResponse,
  type WorkflowSummary,
  workflowIntentRequestSchema,
  workflowIntentResponseSchema,
  workflowSummarySchema,
} from "@deliberate/contracts";
import { z } from "zod";
import { validateWith } from "../validation.ts";
import type { DeliberateClientError } from "../errors.ts";
import { type HttpConnection, type HttpConnectionOptions, resolveHttpConnection } from "../http/config.ts";
import { sendAgentIntentAsync } from "./agent-intent-async.ts";
import { createIntentOutbox, intentOutboxView } from "./intent-outbox.ts";
import { createIntentTransport } from "./intent-transport.ts";
import type {
  AcceptedIntent,
  AgentIntentAsyncOptions,
  AgentIntentCallOptions,
  AgentIntentRequestInput,
  AsyncIntent,
  IntentHandle,
  QueuedIntent,
  WaitOptions,
} from "./intent-types.ts";
import { hostTools, offeredToolsFor } from "./intent-handles.ts";
import { createJobOperations } from "./job-operations.ts";
import type { OutboxEntry, OutboxStore } from "./outbox.ts";
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

/** The client of `deliberate-api`'s agent-intent endpoints, with the Ruby client's features. */
export interface AgentIntentClient {
  readonly connection: HttpConnection;
  /** `POST /agent_intent`: the next action, checked against the offered tools. Retried on transient failures. */
  agentIntent(request: AgentIntentRequestInput, options?: AgentIntentCallOptions): Promise<AgentIntentResponse>;
  /** `POST /agent_intent_async` (requires `callback_url`): the job; follow it with `wait()`, or `onResult`. */
  agentIntentAsync(
    request: AgentIntentRequestInput & { callback_url: string },
    options?: AgentIntentAsyncOptions,
  ): Promise<AsyncIntent>;
  /** `GET /v1/jobs/{job_id}`. */
  job(jobId: string, options?: AgentIntentCallOptions): Promise<JobView>;
  /** Polls a job until it finishes; resolves with its decision (checked), or rejects with its error. */
  waitForJob(jobId: string, options?: WaitOptions & { offered?: readonly HostTool[] }): Promise<AgentIntentResponse>;
  /** `POST /agent_intent_cancel`: by correlation id (a string or `{ correlation_id }`) or `{ job_id }`. */
  cancel(
    target: string | { correlation_id?: string; job_id?: string },
    options?: AgentIntentCallOptions,
  ): Promise<CancelResponse>;
  /** `POST /workflow_intent`: the next node of a guided workflow. */
  workflowIntent(
    request: WorkflowIntentRequestInput,
    options?: AgentIntentCallOptions,
  ): Promise<WorkflowIntentResponse>;
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

export type {
  AcceptedIntent,
  AgentIntentAsyncOptions,
  AgentIntentCallOptions,
  AgentIntentRequestInput,
  AsyncIntent,
  IntentHandle,
  QueuedIntent,
  WaitOptions,
};

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
  const transport = createIntentTransport(connection);
  const defaultTools = hostTools(options.availableTools);
  const validateByDefault = options.validateTools ?? true;
  const drain = createIntentOutbox(options, connection);
  const offeredFor = (request: AgentIntentRequestInput): HostTool[] => offeredToolsFor(request, defaultTools);
  const jobs = createJobOperations(transport, {
    pollIntervalMs: options.pollIntervalMs ?? 250,
    waitTimeoutMs: options.waitTimeoutMs ?? 60_000,
    validateByDefault,
    defaultTools,
  });
  const outbox = drain
    ? { drain, store: options.outbox as OutboxStore, retryMs: options.outboxRetryMs ?? 1_000 }
    : null;
  return {
    connection,
    outbox: outbox ? intentOutboxView(outbox.drain, outbox.store) : null,
    async agentIntent(request, callOptions = {}) {
      validateWith(agentIntentRequestSchema, request, "agent_intent");
      // A decision writes nothing the caller sees twice: repeating it after a dropped answer is harmless.
      const result = await transport.post("/agent_intent", request, agentIntentResponseSchema, true, callOptions);
      if (callOptions.validateTools ?? validateByDefault) validateIntent(result, offeredFor(request));
      return result;
    },
    agentIntentAsync: (request, callOptions = {}) =>
      sendAgentIntentAsync({ transport, jobs, outbox, validateByDefault, offeredFor }, request, callOptions),
    job: jobs.job,
    waitForJob: jobs.waitForJob,
    cancel: jobs.cancel,
    async workflowIntent(request, callOptions) {
      validateWith(workflowIntentRequestSchema, request, "workflow_intent");
      return transport.post("/workflow_intent", request, workflowIntentResponseSchema, true, callOptions);
    },
    async workflows(callOptions) {
      return (await transport.get("/v1/workflows", workflowListSchema, callOptions)).workflows;
    },
    async health(callOptions) {
      return transport.get("/healthz", healthSchema, callOptions);
    },
  };
}
