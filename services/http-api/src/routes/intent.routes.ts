import { Hono } from "hono";
import { z } from "zod";
import type { AppEnv } from "../app-env.ts";
import { agentIntentRequestSchema, agentIntentResponseSchema, looseInteger, parseInput } from "@deliberate/contracts";
import type { IntentDecider } from "../intent/decide-intent.ts";
import { JsonAnswer } from "../pipeline/json-operation.ts";
import type { OperationTable } from "../pipeline/operation-table.ts";
import type { AgentIntentJobs } from "../queue/agent-intent-jobs.ts";
import { cancelRequestSchema, cancelResponseSchema, jobAcceptedSchema, jobViewSchema } from "../queue/job.schema.ts";
import { jsonBody } from "./read-json.ts";

const jobListQuerySchema = z.object({
  correlation_id: z.string().trim().min(1).describe("The correlation_id sent to /agent_intent_async (required)"),
  limit: looseInteger({ min: 1, max: 100 })
    .default(20)
    .describe("At most this many jobs, newest first (1-100, default 20)"),
});

/** GET /v1/jobs?correlation_id=: the jobs under one correlation id, newest first. */
const jobListSchema = z.object({ correlation_id: z.string(), jobs: z.array(jobViewSchema) }).meta({ title: "JobList" });

// In the published (strict-client) form: free-form objects as key/value pairs, a tool's schema as JSON text.
const example = {
  session_id: "s1",
  persona: [{ key: "name", value: "savant-engineer" }],
  goal_text: "Find auth logic",
  history: [],
  tools: [
    {
      name: "context.fts_search",
      description: "Full-text search over the repository",
      input_schema: JSON.stringify({ type: "object", properties: { query: { type: "string" } }, required: ["query"] }),
    },
  ],
};

const intentInput = (what: string) => jsonBody((value: unknown) => parseInput(agentIntentRequestSchema, value, what));
const cancelInput = jsonBody((value: unknown) => parseInput(cancelRequestSchema, value, "agent_intent_cancel"));

export interface IntentRoutesOptions {
  decider: IntentDecider;
  jobs: AgentIntentJobs;
  /** Aborts the model work of canceled jobs running in this process. */
  abortCanceled: (jobIds: readonly string[]) => void;
}

/** /agent_intent, /agent_intent_async, /agent_intent_cancel and GET /v1/jobs/{job_id}. */
export function intentRoutes(table: OperationTable, options: IntentRoutesOptions): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const request = { name: "AgentIntentRequest", schema: agentIntentRequestSchema, example };

  table.serve(app, {
    method: "post",
    path: "/agent_intent",
    operationId: "agentIntent",
    summary: "Decide the agent's next action",
    description:
      "A tool call (one of `tools`, arguments valid against its schema) or finish. max_steps reached ends the run; forced_tool short-circuits; otherwise the model decides with structured output constrained to the offered tools, or, with no model configured, a heuristic (decided_by says which).",
    tags: ["intents"],
    request,
    response: { description: "The decision", body: { name: "AgentIntentResponse", schema: agentIntentResponseSchema } },
    errors: [499, 502, 503, 504],
    input: intentInput("agent_intent"),
    // The request is the decision's options (its signal and request id): the signal is made only if read,
    // and the heuristic never reads it.
    answer: (input, request) => options.decider.decide(input, request),
  });

  table.serve(app, {
    method: "post",
    path: "/agent_intent_async",
    operationId: "agentIntentAsync",
    summary: "Queue a decision; the result is POSTed to callback_url",
    description:
      "Same body as /agent_intent plus a required callback_url (checked against REASONING_CALLBACK_ALLOWLIST: internal addresses are refused unless listed). The job is stored in the database and survives restarts; the callback carries AgentIntentResponse plus job_id and correlation_id, retried with backoff.\n\n" +
      "**correlation_id is an idempotency key.** Sending the same request again with the same correlation_id (a retry after a timeout or a dropped connection) returns the job already queued under it — same job_id, header `Idempotent-Replayed: true` — and queues nothing. A different request under a correlation_id already used, or any request under one whose job was canceled, is refused with 409 CONFLICT naming the job that holds it (the request is compared without `llm.api_key`, whatever its key order). Use a new correlation_id for a new request; `GET /v1/jobs?correlation_id=` lists the jobs under one.",
    tags: ["intents", "jobs"],
    request: {
      ...request,
      example: { ...example, callback_url: "https://agent.example.com/intents", correlation_id: "run-42-step-3" },
    },
    response: {
      status: 202,
      description:
        "Accepted (or, with `Idempotent-Replayed: true`, the job already accepted under this correlation_id)",
      body: { name: "JobAccepted", schema: jobAcceptedSchema },
    },
    errors: [409],
    input: intentInput("agent_intent_async"),
    answer: async (input, request) => {
      const { replayed, ...accepted } = await options.jobs.accept(input, { requestId: request.requestId });
      return new JsonAnswer(accepted, 202, replayed ? { "Idempotent-Replayed": "true" } : {});
    },
  });

  table.serve(app, {
    method: "post",
    path: "/agent_intent_cancel",
    operationId: "agentIntentCancel",
    summary: "Cancel queued and running jobs",
    description:
      "By correlation_id (or job_id). A running job's model call is aborted. ok is false when nothing was left to cancel.",
    tags: ["jobs"],
    request: { name: "CancelRequest", schema: cancelRequestSchema, example: { correlation_id: "run-42-step-3" } },
    response: { description: "What was canceled", body: { name: "CancelResponse", schema: cancelResponseSchema } },
    input: cancelInput,
    answer: async (input) => {
      const { response, canceled } = await options.jobs.cancel(input);
      options.abortCanceled(canceled);
      return response;
    },
  });

  table.serve(app, {
    method: "get",
    path: "/v1/jobs",
    operationId: "listJobs",
    summary: "List the jobs under a correlation_id",
    description:
      "Newest first, each as GET /v1/jobs/{job_id} shows it. A correlation_id names one job (it is an idempotency key); jobs queued before that rule may share one, and all are listed. `limit` is 1 to 100 (default 20).",
    tags: ["jobs"],
    query: jobListQuerySchema,
    response: { description: "The jobs", body: { name: "JobList", schema: jobListSchema } },
    errors: [400],
    input: (request) => parseInput(jobListQuerySchema, { ...request.query() }, "query"),
    answer: async ({ correlation_id, limit }) => ({
      correlation_id,
      jobs: await options.jobs.list({ correlationId: correlation_id, limit }),
    }),
  });

  table.serve(app, {
    method: "get",
    path: "/v1/jobs/:job_id",
    operationId: "getJob",
    summary: "Poll a job",
    tags: ["jobs"],
    parameters: { job_id: "The job_id returned by /agent_intent_async" },
    response: {
      description: "The job, with its result or error once finished",
      body: { name: "Job", schema: jobViewSchema },
    },
    errors: [404],
    answer: (_input, request) => options.jobs.view(request.param("job_id")),
  });
  return app;
}
