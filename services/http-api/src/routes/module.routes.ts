import type { DeliberateEngine } from "@deliberate/engine";
import { Hono } from "hono";
import { z } from "zod";
import type { AppEnv } from "../app-env.ts";
import type { OperationCatalog } from "../openapi/operation.ts";
import { addModuleOperation } from "./module-operation.route.ts";
import { readJsonBody } from "./read-json.ts";
import { pascalCase } from "./tools.routes.ts";

/**
 * How long clients may keep the capability objects: they are fixed for the
 * process's life, so a few minutes is safe and a redeploy is picked up soon
 * (the client's capability cache honours it).
 */
export const capabilityCacheControl = "private, max-age=300";

/**
 * What the composed modules publish, generically (no route names a module):
 * `GET /v1/capabilities` (every capability object by key), `GET /v1/{key}/capabilities`
 * (one, e.g. /v1/reasoning/capabilities), and each protocol method as
 * `POST /v1/methods/{method}` (e.g. /v1/methods/reasoning/executeTask), which runs
 * the method's tool through the engine exactly like `POST /v1/tools/{tool}`, and every module operation at
 * `<method> /v1/{module}{path}` (e.g. GET /v1/self-improvement/history; see `addModuleOperation`).
 */
export function moduleRoutes(
  catalog: OperationCatalog,
  options: { engine: DeliberateEngine; caller?: string },
): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const { engine } = options;
  const capabilities = engine.capabilities;

  catalog.add(
    app,
    {
      method: "get",
      path: "/v1/capabilities",
      operationId: "listCapabilities",
      summary: "Every capability object the composed modules publish, by key",
      tags: ["modules"],
      response: {
        description: "Capability objects by key",
        body: { name: "Capabilities", schema: z.record(z.string(), z.unknown()) },
      },
    },
    (c) => {
      c.header("Cache-Control", capabilityCacheControl);
      return c.json(capabilities);
    },
  );
  for (const [key, value] of Object.entries(capabilities)) {
    catalog.add(
      app,
      {
        method: "get",
        path: `/v1/${key}/capabilities`,
        operationId: `capabilities_${key}`,
        summary: `The ${key} capability object`,
        tags: ["modules"],
        response: {
          description: `What the ${key} capability supports`,
          body: { name: `${pascalCase(key)}Capability`, schema: z.record(z.string(), z.unknown()) },
        },
      },
      (c) => {
        c.header("Cache-Control", capabilityCacheControl);
        return c.json(value as Record<string, unknown>);
      },
    );
  }

  for (const [method, toolName] of engine.methods) {
    const tool = engine.tools.find((definition) => definition.name === toolName);
    if (!tool) continue;
    const name = pascalCase(method);
    catalog.add(
      app,
      {
        method: "post",
        path: `/v1/methods/${method}`,
        operationId: `method_${method.replace(/[^A-Za-z0-9]+/g, "_")}`,
        summary: `${method} (the ${tool.name} tool)`,
        description: tool.description,
        tags: ["modules"],
        request: { name: `${name}Params`, schema: tool.inputSchema },
        response: { description: `${method} result`, body: { name: `${name}Result`, schema: tool.outputSchema } },
        errors: [404, 409, 422, ...(tool.usesModel ? [499, 502, 503, 504] : [])],
      },
      async (c) =>
        c.json(
          await engine.invoke(tool.name, await readJsonBody(c), {
            signal: c.get("signal"),
            ...(options.caller !== undefined ? { caller: options.caller } : {}),
          }),
        ),
    );
  }

  for (const operation of engine.operations)
    addModuleOperation(app, catalog, {
      engine,
      operation,
      ...(options.caller !== undefined ? { caller: options.caller } : {}),
    });
  return app;
}
