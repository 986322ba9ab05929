import {
  defaultSessionPageSize,
  maxSessionPageSize,
  parseInput,
  sessionPageQuerySchema,
  sessionPageSchema,
  sessionSchema,
  thoughtSchema,
} from "@deliberate/contracts";
import type { DeliberateEngine } from "@deliberate/engine";
import { Hono } from "hono";
import { z } from "zod";
import type { AppEnv } from "../app-env.ts";
import type { OperationTable } from "../pipeline/operation-table.ts";

const sessionRecordSchema = z
  .object({
    session: sessionSchema,
    thoughts: z.array(thoughtSchema),
    branches: z.array(z.record(z.string(), z.unknown())),
    checkpoints: z.array(z.record(z.string(), z.unknown())),
    graph: z
      .object({
        graph: z.record(z.string(), z.unknown()),
        nodes: z.array(z.record(z.string(), z.unknown())),
        edges: z.array(z.record(z.string(), z.unknown())),
      })
      .optional()
      .describe("The session's graph of thoughts, when it has one"),
    timelines: z
      .array(z.record(z.string(), z.unknown()))
      .optional()
      .describe("The session's timelines, each with its branches"),
    search_nodes: z
      .array(z.record(z.string(), z.unknown()))
      .optional()
      .describe("The session's Monte Carlo search nodes"),
    page: sessionPageSchema,
  })
  .meta({ title: "SessionRecord" });

const sessionThoughtsSchema = z
  .object({ session_id: z.string(), thoughts: z.array(thoughtSchema), page: sessionPageSchema })
  .meta({ title: "SessionThoughts" });

const pageDescription = `Every list (thoughts, branches, checkpoints, graph nodes and edges, timelines, search nodes, knowledge-graph entities and relations) is cut to ?offset&limit: ${defaultSessionPageSize} items by default, at most ${maxSessionPageSize}; page.totals gives each list's size and page.next_offset the next page.`;

/** The page asked for by ?limit&offset (INVALID_INPUT naming the parameter otherwise). */
function pageQuery(query: Record<string, string>) {
  return parseInput(
    sessionPageQuerySchema,
    {
      ...(query["limit"] !== undefined ? { limit: query["limit"] } : {}),
      ...(query["offset"] !== undefined ? { offset: query["offset"] } : {}),
    },
    "query",
  );
}

/** GET /v1/sessions/{id} (everything recorded) and /v1/sessions/{id}/thoughts. */
export function sessionRoutes(table: OperationTable, options: { engine: DeliberateEngine }): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  table.serve(app, {
    method: "get",
    path: "/v1/sessions/:session_id",
    operationId: "getSession",
    summary: "A session with its thoughts, branches, checkpoints, graph, timelines and search nodes",
    description: pageDescription,
    tags: ["sessions"],
    parameters: { session_id: "A session_id returned by a tool" },
    query: sessionPageQuerySchema,
    response: { description: "The session", body: { name: "SessionRecord", schema: sessionRecordSchema } },
    errors: [400, 404],
    input: (request) => pageQuery(request.query()),
    answer: async (window, request) => options.engine.readSessionPage(request.param("session_id"), window),
  });
  table.serve(app, {
    method: "get",
    path: "/v1/sessions/:session_id/thoughts",
    operationId: "getSessionThoughts",
    summary: "A session's thoughts, oldest first",
    description: `?offset&limit page the thoughts: ${defaultSessionPageSize} by default, at most ${maxSessionPageSize}; page.next_offset is the next page.`,
    tags: ["sessions"],
    parameters: { session_id: "A session_id returned by a tool" },
    query: sessionPageQuerySchema,
    response: { description: "The thoughts", body: { name: "SessionThoughts", schema: sessionThoughtsSchema } },
    errors: [400, 404],
    input: (request) => pageQuery(request.query()),
    answer: async (window, request) => options.engine.readThoughtPage(request.param("session_id"), window),
  });
  return app;
}
