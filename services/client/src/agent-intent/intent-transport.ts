import type { z } from "zod";
import type { HttpConnection } from "../http/config.ts";
import { sendHttpRequest } from "../http/http-request.ts";
import { checkResponse } from "../validation.ts";
import type { AgentIntentCallOptions } from "./intent-types.ts";

/** GET and POST against the agent-intent API, each answer checked against its schema. */
export interface IntentTransport {
  get<S extends z.ZodType>(path: string, schema: S, callOptions?: AgentIntentCallOptions): Promise<z.output<S>>;
  /** `idempotent`: whether a transient failure may be retried (the request writes nothing twice). */
  post<S extends z.ZodType>(
    path: string,
    body: unknown,
    schema: S,
    idempotent: boolean,
    callOptions?: AgentIntentCallOptions,
  ): Promise<z.output<S>>;
}

/** The transport over one resolved connection. */
export function createIntentTransport(connection: HttpConnection): IntentTransport {
  return {
    async get(path, schema, callOptions = {}) {
      const response = await sendHttpRequest(
        connection,
        { method: "GET", path, idempotent: true, what: `GET ${path}` },
        callOptions,
      );
      return checkResponse(schema, response.body, `GET ${path}`);
    },
    async post(path, body, schema, idempotent, callOptions = {}) {
      const response = await sendHttpRequest(
        connection,
        { method: "POST", path, body, idempotent, what: `POST ${path}` },
        callOptions,
      );
      return checkResponse(schema, response.body, `POST ${path}`);
    },
  };
}
