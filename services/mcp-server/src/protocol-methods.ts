import { toDeliberateError } from "@deliberate/base";
import type { Engine } from "@deliberate/engine";
import type { ProviderSettings } from "@deliberate/providers";
import { type McpServer, ProtocolError, ProtocolErrorCode, type ServerContext } from "@modelcontextprotocol/server";
import { z } from "zod";
import { invokeOptionsFor } from "./request-options.ts";
import type { Logger } from "./logger.ts";
import { withUserElicitation } from "./user-elicitation.ts";

/** Any params object: the engine validates it against the method's tool, naming bad fields. */
const anyParams = z.looseObject({});

/**
 * The JSON-RPC error of a failed method call: invalid params (-32602) for
 * INVALID_INPUT, internal error (-32603) for INTERNAL, a server error (-32000)
 * otherwise; `data` is the same JSON error body tools return
 * ({ code, message, issues, hint, retryable }).
 */
export function toProtocolError(error: unknown): { error: ProtocolError; unexpected: boolean } {
  const deliberate = toDeliberateError(error);
  const body = deliberate.toJSON();
  const code =
    body.code === "INVALID_INPUT"
      ? ProtocolErrorCode.InvalidParams
      : body.code === "INTERNAL"
        ? ProtocolErrorCode.InternalError
        : -32000;
  return { error: new ProtocolError(code, body.message, body), unexpected: body.code === "INTERNAL" };
}

/**
 * Serves the composed modules' protocol methods (`method -> tool`) as custom
 * JSON-RPC requests: the params are the tool's input (minus `_meta`), the
 * result its output, through the same engine call as the tool (validation,
 * one invocation row, progress, cancellation, sampling or host execution).
 */
export function registerProtocolMethods(
  server: McpServer,
  options: {
    engine: Engine;
    methods: ReadonlyMap<string, string>;
    logger: Logger;
    providers: ProviderSettings | undefined;
    /** Runs a request's work so its log lines reach its client (see LogMirror). */
    during?: <T>(context: ServerContext, work: () => T) => T;
  },
): void {
  const during = options.during ?? ((_context, work) => work());
  for (const [method, tool] of options.methods) {
    server.server.setRequestHandler(
      method,
      { params: anyParams },
      (params: Record<string, unknown>, context: ServerContext) =>
        during(context, () => callMethod(server, options, method, tool, params, context)),
    );
  }
}

/** One protocol method call through the engine; failures become JSON-RPC errors (logged). */
async function callMethod(
  server: McpServer,
  options: { engine: Engine; logger: Logger; providers: ProviderSettings | undefined },
  method: string,
  tool: string,
  params: Record<string, unknown>,
  context: ServerContext,
): Promise<Record<string, unknown>> {
  const { _meta: _ignored, ...input } = params;
  const started = performance.now();
  const { options: invokeOptions, flush } = invokeOptionsFor(server, context, options.logger, options.providers);
  try {
    const invoke = withUserElicitation(server, context, options.logger, (name, args, callOptions) =>
      options.engine.invoke(name, args, callOptions),
    );
    const output = await invoke(tool, input, invokeOptions);
    options.logger.debug("method call succeeded", { method, latencyMs: Math.round(performance.now() - started) });
    await flush();
    return output;
  } catch (failure) {
    const { error, unexpected } = toProtocolError(failure);
    const fields = {
      method,
      code: (error.data as { code: string }).code,
      latencyMs: Math.round(performance.now() - started),
    };
    if (unexpected) options.logger.error("method call failed unexpectedly", { ...fields, error: failure });
    else options.logger.info("method call failed", { ...fields, detail: error.message });
    await flush();
    throw error;
  }
}
