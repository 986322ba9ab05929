import { toJsonSchema } from "@deliberate/contracts";
import { errorResponseSchema } from "../errors.ts";
import type { NamedSchema, Operation } from "../pipeline/operation.ts";

type JsonObject = Record<string, unknown>;

export interface OpenApiInfo {
  title: string;
  version: string;
  description: string;
  /** Whether protected operations need the bearer token (REASONING_API_TOKEN is set). */
  bearerAuth: boolean;
  /** The base URL the document advertises in `servers` (default: relative `/`, the server that served it). */
  serverUrl?: string;
}

/** Descriptions of the error statuses (every status of `httpStatusByCode` has one). */
export const errorStatusDescriptions: Readonly<Record<number, string>> = {
  400: "Invalid input: the body names each bad field",
  401: "Missing or wrong bearer token",
  403: "Host or Origin not allowed (REASONING_API_ALLOWED_HOSTS / REASONING_API_ALLOWED_ORIGINS)",
  404: "Not found",
  409: "Conflict",
  413: "Body larger than REASONING_API_MAX_BODY_BYTES",
  415: "The body is not Content-Type: application/json in UTF-8",
  422: "A limit was exceeded",
  429: "Rate limited (or too many failed tokens); see Retry-After",
  499: "Cancelled by the client",
  500: "Internal error",
  502: "The model provider failed or answered outside the contract",
  503: "No model provider is configured, or the provider is rate limiting",
  504: "Timed out",
};

/**
 * JSON Schema of a zod schema as a component: local `$defs` are hoisted to
 * components and their refs rewritten.
 */
function componentsOf(named: NamedSchema, io: "input" | "output"): Record<string, JsonObject> {
  const { $defs: definitions, ...root } = toJsonSchema(named.schema, io) as JsonObject;
  const prefix = `${named.name}_`;
  const rewrite = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(rewrite);
    if (value === null || typeof value !== "object") return value;
    const copy: JsonObject = {};
    for (const [key, item] of Object.entries(value)) {
      if (key === "$ref" && typeof item === "string") {
        if (item === "#") copy[key] = `#/components/schemas/${named.name}`;
        else if (item.startsWith("#/$defs/"))
          copy[key] = `#/components/schemas/${prefix}${item.slice("#/$defs/".length)}`;
        else copy[key] = item;
      } else copy[key] = rewrite(item);
    }
    return copy;
  };
  const components: Record<string, JsonObject> = { [named.name]: rewrite(root) as JsonObject };
  for (const [name, definition] of Object.entries((definitions ?? {}) as Record<string, unknown>)) {
    components[`${prefix}${name}`] = rewrite(definition) as JsonObject;
  }
  return components;
}

/** `/v1/jobs/:job_id` -> `/v1/jobs/{job_id}`, with the parameter names. */
function openApiPath(path: string): { path: string; parameters: string[] } {
  const parameters: string[] = [];
  const converted = path.replace(/:([A-Za-z0-9_]+)/g, (_whole, name: string) => {
    parameters.push(name);
    return `{${name}}`;
  });
  return { path: converted, parameters };
}

/** An operation's query parameters, one per field of its `query` object. */
function queryParameters(operation: Operation): JsonObject[] {
  if (!operation.query) return [];
  const json = toJsonSchema(operation.query, "input") as {
    properties?: Record<string, JsonObject>;
    required?: string[];
  };
  return Object.entries(json.properties ?? {}).map(([name, property]) => {
    const { description, ...schema } = property;
    return {
      name,
      in: "query",
      required: (json.required ?? []).includes(name),
      schema,
      ...(typeof description === "string" ? { description } : {}),
    };
  });
}

/**
 * A request body's schema, inline under the operation rather than a shared
 * component: client generators (openapi-typescript among them) treat a
 * property with a default as always present in a component, which would
 * make callers send every defaulted field; under requestBody it stays
 * optional, as the input schema says. Local `$defs` still become components.
 */
function inlineRequestSchema(named: NamedSchema, schemas: Record<string, JsonObject>): JsonObject {
  const { [named.name]: root, ...definitions } = componentsOf(named, "input");
  for (const [name, definition] of Object.entries(definitions)) schemas[name] ??= definition;
  return { title: named.name, ...(root as JsonObject) };
}

/** Adds a schema (and its local `$defs`) to the components once; returns the reference to it. */
type RegisterSchema = (named: NamedSchema, io: "input" | "output") => { $ref: string };

/** What every operation's entry is written against: the document's settings and its shared components. */
interface DocumentParts {
  readonly info: OpenApiInfo;
  readonly schemas: Record<string, JsonObject>;
  readonly register: RegisterSchema;
  readonly errorRef: { $ref: string };
}

/** One operation's entry under its path and method; `parameters` are the names in its path. */
function operationEntry(operation: Operation, parameters: readonly string[], parts: DocumentParts): JsonObject {
  const { info } = parts;
  // Responses first: their schemas become components before the request's `$defs` (the components' order).
  const responses = operationResponses(operation, parts);
  return {
    operationId: operation.operationId,
    summary: operation.summary,
    ...(operation.description ? { description: operation.description } : {}),
    tags: [...operation.tags],
    parameters: [
      ...parameters.map((name) => ({
        name,
        in: "path",
        required: true,
        schema: { type: "string" },
        ...(operation.parameters?.[name] ? { description: operation.parameters[name] } : {}),
      })),
      ...queryParameters(operation),
      { $ref: "#/components/parameters/AcceptVersion" },
    ],
    ...(operation.request
      ? {
          requestBody: {
            required: true,
            content: {
              "application/json": {
                schema: inlineRequestSchema(operation.request, parts.schemas),
                ...(operation.request.example !== undefined ? { example: operation.request.example } : {}),
              },
            },
          },
        }
      : {}),
    responses,
    ...(operation.public || !info.bearerAuth ? { security: [] } : {}),
  };
}

/**
 * The success response (its body, a non-JSON content type, or the event stream of a streaming operation), then every
 * error status the operation can answer with the shared ErrorResponse body: its own, 401 when it needs the token,
 * 400/413/415 when it takes a body, 403 unless any Host is accepted, and always 429 and 500.
 */
function operationResponses(
  operation: Operation,
  { info, register, errorRef }: DocumentParts,
): Record<string, JsonObject> {
  const responses: Record<string, JsonObject> = {};
  const success = operation.response;
  const contentType = success.contentType ?? "application/json";
  const successContent: JsonObject = success.body
    ? { [contentType]: { schema: register(success.body, "output") } }
    : contentType === "application/json"
      ? {}
      : { [contentType]: { schema: { type: "string" } } };
  if (operation.streams) {
    successContent["text/event-stream"] = {
      schema: {
        type: "string",
        description:
          "Events: `progress` ({progress, total?, message?}), then `result` (the JSON body above) or `error` (ErrorResponse).",
      },
    };
  }
  responses[String(success.status ?? 200)] = {
    description: success.description,
    ...(Object.keys(successContent).length > 0 ? { content: successContent } : {}),
  };
  const errors = new Set<number>([
    ...(operation.errors ?? []),
    ...(operation.public ? [] : info.bearerAuth ? [401] : []),
    429,
    500,
  ]);
  if (operation.request) errors.add(400).add(413).add(415);
  if (!operation.anyHost) errors.add(403);
  for (const status of [...errors].sort((a, b) => a - b)) {
    responses[String(status)] = {
      description: errorStatusDescriptions[status] ?? "Error",
      content: { "application/json": { schema: errorRef } },
    };
  }
  return responses;
}

/** The OpenAPI 3.1 document of the operations, every schema generated from its zod source. */
export function buildOpenApiDocument(info: OpenApiInfo, operations: readonly Operation[]): JsonObject {
  const schemas: Record<string, JsonObject> = {};
  const register: RegisterSchema = (named, io) => {
    if (!(named.name in schemas)) Object.assign(schemas, componentsOf(named, io));
    return { $ref: `#/components/schemas/${named.name}` };
  };
  const errorRef = register({ name: "ErrorResponse", schema: errorResponseSchema }, "output");

  const paths: Record<string, Record<string, JsonObject>> = {};
  for (const operation of operations) {
    const { path, parameters } = openApiPath(operation.path);
    const item = paths[path] ?? {};
    item[operation.method] = operationEntry(operation, parameters, { info, schemas, register, errorRef });
    paths[path] = item;
  }

  return {
    openapi: "3.1.0",
    info: {
      title: info.title,
      version: info.version,
      description: info.description,
    },
    servers: [
      {
        url: info.serverUrl ?? "/",
        description: info.serverUrl ? "This service" : "The server that served this document",
      },
    ],
    jsonSchemaDialect: "https://json-schema.org/draft/2020-12/schema",
    tags: [
      { name: "intents", description: "Agent next-action decisions (spec: agent-intent-api)" },
      { name: "jobs", description: "The durable queue for async intents" },
      { name: "workflows", description: "Guided workflows and their transitions" },
      { name: "tools", description: "Every reasoning tool, generated from the tool registry" },
      { name: "sessions", description: "Reasoning sessions and their thoughts" },
      { name: "service", description: "Health and documentation" },
    ],
    paths,
    components: {
      schemas,
      parameters: {
        AcceptVersion: {
          name: "Accept-Version",
          in: "header",
          required: false,
          schema: { type: "string", enum: ["v1"], default: "v1" },
          description: "API version; v1 is the only (and default) version.",
        },
      },
      ...(info.bearerAuth
        ? { securitySchemes: { bearerAuth: { type: "http", scheme: "bearer", description: "REASONING_API_TOKEN" } } }
        : {}),
    },
    ...(info.bearerAuth ? { security: [{ bearerAuth: [] }] } : {}),
  };
}
