import { parseInput } from "@deliberate/contracts";
import type { ComposedOperation, DeliberateEngine } from "@deliberate/engine";
import type { Context, Hono } from "hono";
import { z } from "zod";
import type { AppEnv } from "../app-env.ts";
import { type ApiErrorCode, httpStatusByCode } from "../errors.ts";
import type { OperationCatalog } from "../openapi/operation.ts";
import { parseJsonText, readBodyText, readJsonBody, unsupportedMediaType } from "./read-json.ts";
import { pascalCase } from "./tools.routes.ts";

/** A schema's `.meta({ title })`, which names it in OpenAPI. */
function titleOf(schema: z.ZodType): string | undefined {
  const title = z.globalRegistry.get(schema)?.title;
  return typeof title === "string" && title !== "" ? title : undefined;
}

/** The request's part of an operation's input: every field but the path's (the query of a get, the body of a post). */
function requestPart(
  operation: ComposedOperation,
): { schema: z.ZodObject; name: string; optional: boolean } | undefined {
  const input = operation.input;
  if (!input) return undefined;
  const fields = Object.keys(input.shape).filter((field) => !operation.pathParameters.includes(field));
  if (fields.length === 0) return undefined;
  const schema = input.pick(Object.fromEntries(fields.map((field) => [field, true])) as never) as z.ZodObject;
  return {
    schema,
    name: titleOf(input) ?? `${pascalCase(operation.operationId)}Request`,
    optional: schema.safeParse({}).success,
  };
}

/**
 * A post's JSON body: required (415 unless JSON, INVALID_INPUT when empty or malformed) unless every field is
 * optional, when an empty body counts as `{}`. A body that is not an object is refused naming the body.
 */
async function readOperationBody(
  c: Context<AppEnv>,
  part: { schema: z.ZodObject; optional: boolean },
): Promise<Record<string, unknown>> {
  let value: unknown;
  if (part.optional) {
    const text = await readBodyText(c);
    if (text.trim() === "") return {};
    const unsupported = unsupportedMediaType(c.req.header("content-type"));
    if (unsupported) throw unsupported;
    value = parseJsonText(text);
  } else {
    value = await readJsonBody(c);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) parseInput(part.schema, value, "body");
  return value as Record<string, unknown>;
}

/**
 * Serves one module operation at `<method> /v1/<module><path>` through the operation catalog (so /openapi.json
 * documents it from the operation's schemas): path parameters and the query (get) or JSON body (post) make its
 * input, which the engine validates (INVALID_INPUT naming the field, as `query` or `body`); the answer is its JSON.
 */
export function addModuleOperation(
  app: Hono<AppEnv>,
  catalog: OperationCatalog,
  options: { engine: DeliberateEngine; operation: ComposedOperation; caller?: string },
): void {
  const { engine, operation } = options;
  const part = requestPart(operation);
  const fields = operation.input?.shape ?? {};
  const parameters = Object.fromEntries(
    operation.pathParameters.flatMap((name) => {
      const description = (fields[name] as z.ZodType | undefined)?.description;
      return description === undefined ? [] : [[name, description]];
    }),
  );
  const statuses = (operation.errors ?? []).map((code) => httpStatusByCode[code as ApiErrorCode] ?? 500);
  catalog.add(
    app,
    {
      method: operation.method,
      path: operation.httpPath,
      operationId: operation.operationId,
      summary: operation.summary,
      ...(operation.description ? { description: operation.description } : {}),
      tags: [operation.module],
      ...(part && operation.method === "get" ? { query: part.schema } : {}),
      ...(part && operation.method === "post" ? { request: { name: part.name, schema: part.schema } } : {}),
      ...(Object.keys(parameters).length > 0 ? { parameters } : {}),
      response: {
        description: operation.summary,
        body: {
          name: titleOf(operation.output) ?? `${pascalCase(operation.operationId)}Response`,
          schema: operation.output,
        },
      },
      errors: [...new Set([400, 401, ...statuses])],
    },
    async (c) => {
      const fromRequest = operation.method === "get" ? c.req.query() : part ? await readOperationBody(c, part) : {};
      const input = { ...fromRequest, ...(c.req.param() as Record<string, string>) };
      const output = await engine.runOperation(operation.qualifiedName, input, {
        inputName: operation.method === "get" ? "query" : "body",
        ...(options.caller !== undefined ? { caller: options.caller } : {}),
        ...(c.get("signal") ? { signal: c.get("signal") } : {}),
      });
      return c.json(output as object);
    },
  );
}
