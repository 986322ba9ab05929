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
import { type ClientErrorCode, DeliberateClientError } from "../errors.ts";
import { type HttpConnection, type HttpConnectionOptions, resolveHttpConnection } from "../http/config.ts";
import { sendHttpRequest } from "../http/http-request.ts";
import { sleep } from "../signals.ts";
import { type HostTool, validateIntent } from "./tool-validation.ts";

/** `AgentIntentRequest` as the caller writes it (every field optional; `null` counts as absent). */
export type AgentIntentRequestInput = z.input<typeof agentIntentRequestSchema>;
/** `WorkflowIntentRequest` as the caller writes it. */
export type WorkflowIntentRequestInput = z.input<typeof workflowIntentRequestSchema>;

export interface AgentIntentClientOptions extends HttpConnectionOptions {
  /**
   * The tools the host can run, for checking decisions when a request lists no
   * `tools` (the Ruby client checks against its Multiplexer). Names, or names
   * with the JSON Schema of their arguments.
   */
  availableTools?: ReadonlyArray<string | HostTool>;
  /** Check decisions against the offered tools (INTENT_VALIDATION); default true. */
  validateTools?: boolean;
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

/** An accepted async decision: the job, and ways to follow it. */
export interface AsyncIntent extends JobAccepted {
  /** Polls `GET /v1/jobs/{job_id}` until the job finishes; resolves with the checked decision. */
  wait(options?: WaitOptions): Promise<AgentIntentResponse>;
  /** The job as it is now. */
  job(options?: AgentIntentCallOptions): Promise<JobView>;
  /** Cancels this job. */
  cancel(options?: AgentIntentCallOptions): Promise<CancelResponse>;
}

export interface AgentIntentAsyncOptions extends AgentIntentCallOptions {
  /**
   * Called with the decision once the job finishes (the client polls for it),
   * or with the error; the server also POSTs the result to `callback_url`.
   */
  onResult?: (result: AgentIntentResponse | DeliberateClientError, job: JobAccepted) => void;
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
}

const workflowListSchema = z.object({ workflows: z.array(workflowSummarySchema) });

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

  const offeredFor = (request: AgentIntentRequestInput): HostTool[] | undefined =>
    request.tools ? request.tools.map((tool) => ({ name: tool.name, input_schema: tool.input_schema ?? null })) : defaultTools;

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

  return {
    connection,
    async agentIntent(request, callOptions = {}) {
      validateWith(agentIntentRequestSchema, request, "agent_intent");
      // A decision writes nothing the caller sees twice: repeating it after a dropped answer is harmless.
      const result = await post("/agent_intent", request, agentIntentResponseSchema, true, callOptions);
      if (callOptions.validateTools ?? validateByDefault) validateIntent(result, offeredFor(request));
      return result;
    },
    async agentIntentAsync(request, callOptions = {}) {
      validateWith(agentIntentRequestSchema, request, "agent_intent_async");
      if (!request.callback_url) {
        throw new DeliberateClientError({
          code: "INVALID_INPUT",
          message: "callback_url is required for /agent_intent_async.",
          issues: [{ field: "callback_url", message: "is required" }],
          hint: "Send the URL the service POSTs the result to; follow the job with wait() as well if you like.",
        });
      }
      const accepted = await post("/agent_intent_async", request, jobAcceptedSchema, false, callOptions);
      const offered = callOptions.validateTools ?? validateByDefault ? offeredFor(request) : undefined;
      const handle: AsyncIntent = {
        ...accepted,
        wait: (waitOptions) => waitForJob(accepted.job_id, { ...waitOptions, ...(offered ? { offered } : {}) }),
        job: (jobOptions) => job(accepted.job_id, jobOptions),
        cancel: (cancelOptions) => cancel({ job_id: accepted.job_id }, cancelOptions),
      };
      if (callOptions.onResult) {
        const onResult = callOptions.onResult;
        handle.wait(callOptions.wait).then(
          (result) => onResult(result, accepted),
          (error: unknown) => onResult(DeliberateClientError.isInstance(error) ? error : new DeliberateClientError({ code: "INTERNAL", message: String(error), cause: error }), accepted),
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
