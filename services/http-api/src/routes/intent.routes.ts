import { Hono } from "hono";
import type { AppEnv } from "../app-env.ts";
import { agentIntentRequestSchema, agentIntentResponseSchema } from "@deliberate/contracts";
import type { IntentDecider } from "../intent/decide-intent.ts";
import type { OperationCatalog } from "../openapi/operation.ts";
import type { AgentIntentJobs } from "../queue/agent-intent-jobs.ts";
import { cancelRequestSchema, cancelResponseSchema, jobAcceptedSchema, jobViewSchema } from "../queue/job.schema.ts";
import { readBody } from "./read-json.ts";

const example = {
  session_id: "s1",
  persona: { name: "savant-engineer" },
  goal_text: "Find auth logic",
  history: [],
  tools: [
    {
      name: "context.fts_search",
      description: "Full-text search over the repository",
      input_schema: { type: "object", properties: { query: { type: "string" } }, required: ["query"] },
    },
  ],
};

export interface IntentRoutesOptions {
  decider: IntentDecider;
  jobs: AgentIntentJobs;
  /** Aborts the model work of canceled jobs running in this process. */
  abortCanceled: (jobIds: readonly string[]) => void;
}

/** /agent_intent, /agent_intent_async, /agent_intent_cancel and GET /v1/jobs/{job_id}. */
export function intentRoutes(catalog: OperationCatalog, options: IntentRoutesOptions): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const request = { name: "AgentIntentRequest", schema: agentIntentRequestSchema, example };

  catalog.add(
    app,
    {
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
    },
    async (c) => {
      const body = await readBody(c, agentIntentRequestSchema, "agent_intent");
      return c.json(await options.decider.decide(body, { signal: c.get("signal"), requestId: c.get("requestId") }));
    },
  );

  catalog.add(
    app,
    {
      method: "post",
      path: "/agent_intent_async",
      operationId: "agentIntentAsync",
      summary: "Queue a decision; the result is POSTed to callback_url",
      description:
        "Same body as /agent_intent plus a required callback_url (checked against REASONING_CALLBACK_ALLOWLIST: internal addresses are refused unless listed). The job is stored in the database and survives restarts; the callback carries AgentIntentResponse plus job_id and correlation_id, retried with backoff.",
      tags: ["intents", "jobs"],
      request: { ...request, example: { ...example, callback_url: "https://agent.example.com/intents", correlation_id: "run-42-step-3" } },
      response: { status: 202, description: "Accepted", body: { name: "JobAccepted", schema: jobAcceptedSchema } },
    },
    async (c) => {
      const body = await readBody(c, agentIntentRequestSchema, "agent_intent_async");
      return c.json(await options.jobs.accept(body, { requestId: c.get("requestId") }), 202);
    },
  );

  catalog.add(
    app,
    {
      method: "post",
      path: "/agent_intent_cancel",
      operationId: "agentIntentCancel",
      summary: "Cancel queued and running jobs",
      description: "By correlation_id (or job_id). A running job's model call is aborted. ok is false when nothing was left to cancel.",
      tags: ["jobs"],
      request: { name: "CancelRequest", schema: cancelRequestSchema, example: { correlation_id: "run-42-step-3" } },
      response: { description: "What was canceled", body: { name: "CancelResponse", schema: cancelResponseSchema } },
    },
    async (c) => {
      const body = await readBody(c, cancelRequestSchema, "agent_intent_cancel");
      const { response, canceled } = await options.jobs.cancel(body);
      options.abortCanceled(canceled);
      return c.json(response);
    },
  );

  catalog.add(
    app,
    {
      method: "get",
      path: "/v1/jobs/:job_id",
      operationId: "getJob",
      summary: "Poll a job",
      tags: ["jobs"],
      parameters: { job_id: "The job_id returned by /agent_intent_async" },
      response: { description: "The job, with its result or error once finished", body: { name: "Job", schema: jobViewSchema } },
      errors: [404],
    },
    async (c) => c.json(await options.jobs.view(c.req.param("job_id") ?? "")),
  );
  return app;
}
