import type { DeliberateEngine } from "@deliberate/engine";
import type { McpServer, ServerContext } from "@modelcontextprotocol/server";
import { z } from "zod";
import { callerOf } from "./caller-identity.ts";
import type { Logger } from "./logger.ts";
import { toProtocolError } from "./protocol-methods.ts";

/** Any params object: the engine validates it against the operation's input, naming bad fields. */
const anyParams = z.looseObject({});

/**
 * Serves every composed module's operations as custom JSON-RPC requests named `<module>/<operation>` (e.g.
 * `self-improvement/status`, `self-improvement/rollbackAction` with `{ action_id, reason }`): the params are the
 * operation's whole input (path fields included), the result its answer, a failure the same JSON-RPC error as a
 * protocol method's. They are requests, not tools: they act on the service (approve, roll back, pause), which is
 * the operator's to do through a client, not a model's to choose in a conversation. A JSON-RPC result is an
 * object, so an answer that is a list comes as `{ items: [...] }` (any other non-object as `{ value }`).
 */
export function registerModuleOperations(
  server: McpServer,
  options: {
    engine: Pick<DeliberateEngine, "operations" | "runOperation">;
    logger: Logger;
    /** Runs a request's work so its log lines reach its client (see LogMirror). */
    during?: <T>(context: ServerContext, work: () => T) => T;
  },
): void {
  const during = options.during ?? ((_context, work) => work());
  for (const operation of options.engine.operations) {
    server.server.setRequestHandler(
      operation.qualifiedName,
      { params: anyParams },
      (params: Record<string, unknown>, context: ServerContext) =>
        during(context, async () => {
          const { _meta: _ignored, ...input } = params;
          const caller = callerOf(server, context);
          try {
            const answer = await options.engine.runOperation(operation.qualifiedName, input, {
              signal: context.mcpReq.signal,
              ...(caller !== undefined ? { caller } : {}),
            });
            return asResultObject(answer);
          } catch (failure) {
            const { error, unexpected } = toProtocolError(failure);
            const fields = { operation: operation.qualifiedName, code: (error.data as { code: string }).code };
            if (unexpected) options.logger.error("operation failed unexpectedly", { ...fields, error: failure });
            else options.logger.info("operation failed", { ...fields, detail: error.message });
            throw error;
          }
        }),
    );
  }
}

/** The answer as a JSON-RPC result (an object): a list as `{ items }`, another non-object as `{ value }`. */
function asResultObject(answer: unknown): Record<string, unknown> {
  if (Array.isArray(answer)) return { items: answer };
  if (typeof answer !== "object" || answer === null) return { value: answer };
  return answer as Record<string, unknown>;
}
