import { parseInput } from "@deliberate/contracts";
import type { IdGenerator } from "@deliberate/engine";
import { workflowDefinitions } from "@deliberate/reasoning";
import { Hono } from "hono";
import { z } from "zod";
import type { AppEnv } from "../app-env.ts";
import type { OperationTable } from "../pipeline/operation-table.ts";
import type { Telemetry } from "../telemetry.ts";
import { decideWorkflowIntent, summarizeWorkflow } from "../workflow/workflow-intent.ts";
import {
  workflowIntentRequestSchema,
  workflowIntentResponseSchema,
  workflowSummarySchema,
} from "../workflow/workflow-intent.schema.ts";
import { jsonBody } from "./read-json.ts";

const workflowInput = jsonBody((value: unknown) => parseInput(workflowIntentRequestSchema, value, "workflow_intent"));

/** POST /workflow_intent and GET /v1/workflows, over the workflow definitions kept as data in core. */
export function workflowRoutes(
  table: OperationTable,
  options: { ids: IdGenerator; telemetry: Telemetry },
): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  table.serve(app, {
    method: "post",
    path: "/workflow_intent",
    operationId: "workflowIntent",
    summary: "Next node of a guided workflow",
    description:
      "Stateless: omit current_node to start; then send the node just answered with every answer so far in outputs (keyed by save_as). The response renders the next node's instruction, or finishes.",
    tags: ["workflows"],
    request: {
      name: "WorkflowIntentRequest",
      schema: workflowIntentRequestSchema,
      example: {
        run_id: "r1",
        workflow_name: "chain_of_thought",
        current_node: "decompose",
        params: { problem: "Build auth" },
        outputs: { decomposition: "1. users 2. tokens" },
      },
    },
    response: {
      description: "The transition",
      body: { name: "WorkflowIntentResponse", schema: workflowIntentResponseSchema },
    },
    errors: [404],
    input: workflowInput,
    answer: (input, request) =>
      decideWorkflowIntent(input, { ids: options.ids, telemetry: options.telemetry, requestId: request.requestId }),
  });
  table.serve(app, {
    method: "get",
    path: "/v1/workflows",
    operationId: "listWorkflows",
    summary: "The guided workflows",
    tags: ["workflows"],
    response: {
      description: "Every workflow definition",
      body: { name: "WorkflowList", schema: z.object({ workflows: z.array(workflowSummarySchema) }) },
    },
    answer: () => ({ workflows: workflowDefinitions.map(summarizeWorkflow) }),
  });
  return app;
}
