import { sessionSchema, thoughtSchema } from "@deliberate/contracts";
import type { DeliberateEngine } from "@deliberate/engine";
import { Hono } from "hono";
import { z } from "zod";
import type { AppEnv } from "../app-env.ts";
import type { OperationCatalog } from "../openapi/operation.ts";

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
    timelines: z.array(z.record(z.string(), z.unknown())).optional().describe("The session's timelines, each with its branches"),
    search_nodes: z.array(z.record(z.string(), z.unknown())).optional().describe("The session's Monte Carlo search nodes"),
  })
  .meta({ title: "SessionRecord" });

const sessionThoughtsSchema = z.object({ session_id: z.string(), thoughts: z.array(thoughtSchema) }).meta({ title: "SessionThoughts" });

/** GET /v1/sessions/{id} (everything recorded) and /v1/sessions/{id}/thoughts. */
export function sessionRoutes(catalog: OperationCatalog, options: { engine: DeliberateEngine }): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  catalog.add(
    app,
    {
      method: "get",
      path: "/v1/sessions/:session_id",
      operationId: "getSession",
      summary: "A session with its thoughts, branches, checkpoints, graph, timelines and search nodes",
      tags: ["sessions"],
      parameters: { session_id: "A session_id returned by a tool" },
      response: { description: "The session", body: { name: "SessionRecord", schema: sessionRecordSchema } },
      errors: [404],
    },
    async (c) => c.json(await options.engine.readSession(c.req.param("session_id") ?? "")),
  );
  catalog.add(
    app,
    {
      method: "get",
      path: "/v1/sessions/:session_id/thoughts",
      operationId: "getSessionThoughts",
      summary: "A session's thoughts, oldest first",
      tags: ["sessions"],
      parameters: { session_id: "A session_id returned by a tool" },
      response: { description: "The thoughts", body: { name: "SessionThoughts", schema: sessionThoughtsSchema } },
      errors: [404],
    },
    async (c) => {
      const record = await options.engine.readSession(c.req.param("session_id") ?? "");
      return c.json({ session_id: record.session.id, thoughts: record.thoughts });
    },
  );
  return app;
}
