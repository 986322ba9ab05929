import type { InvokeOptions, ProgressUpdate } from "@deliberate/engine";
import type { ProviderSettings } from "@deliberate/providers";
import type { McpServer, ServerContext } from "@modelcontextprotocol/server";
import { callerOf } from "./caller-identity.ts";
import { modelsForCall } from "./keyless-models.ts";
import type { Logger } from "./logger.ts";

/**
 * Forwards engine progress as `notifications/progress` when the request
 * carries a progress token. MCP requires progress to increase with every
 * notification, so an update that does not (e.g. a nested tool restarting its
 * own count) is logged and dropped instead of sent. `flush` waits for every
 * notification sent so far, so none can arrive after the call's result (a
 * client drops progress for a request it has already finished).
 */
function progressForwarder(
  context: ServerContext,
  logger: Logger,
): { progress?: (update: ProgressUpdate) => void; flush: () => Promise<void> } {
  const progressToken = context.mcpReq._meta?.progressToken;
  if (progressToken === undefined) return { flush: async () => {} };
  let last = Number.NEGATIVE_INFINITY;
  let sent: Promise<void> = Promise.resolve();
  const progress = (update: ProgressUpdate) => {
    if (!(update.progress > last)) {
      logger.debug("progress update dropped: not increasing", { progress: update.progress, last });
      return;
    }
    last = update.progress;
    const notification = context.mcpReq
      .notify({
        method: "notifications/progress",
        params: {
          progressToken,
          progress: update.progress,
          ...(update.total !== undefined ? { total: update.total } : {}),
          ...(update.message !== undefined ? { message: update.message } : {}),
        },
      })
      .catch((error: unknown) => logger.debug("progress notification not sent", { error }));
    sent = sent.then(() => notification);
  };
  // After the last notification, yield a turn so the result is a separate write: the SDK client
  // handles notifications a tick late and drops progress for requests already answered.
  return { progress, flush: () => sent.then(() => new Promise<void>((resolve) => setImmediate(resolve))) };
}

/**
 * The engine options of one request: its abort signal, progress forwarding,
 * the caller's identity and, with no server-side model, the client's sampling
 * or host execution. Shared by tools and protocol methods.
 */
export function invokeOptionsFor(
  server: McpServer,
  context: ServerContext,
  logger: Logger,
  providers: ProviderSettings | undefined,
): { options: InvokeOptions; flush: () => Promise<void> } {
  const { progress, flush } = progressForwarder(context, logger);
  // Push-style sampling exists only on 2025-era connections (no per-request envelope).
  const models = providers
    ? modelsForCall(providers, {
        offered: Boolean(server.server.getClientCapabilities()?.sampling) && context.mcpReq.envelope === undefined,
        request: (request, options) =>
          context.mcpReq.requestSampling(request, options.signal ? { signal: options.signal } : {}),
      })
    : undefined;
  const caller = callerOf(server, context);
  return {
    options: {
      signal: context.mcpReq.signal,
      ...(progress ? { progress } : {}),
      ...(models ? { models } : {}),
      ...(caller !== undefined ? { caller } : {}),
    },
    flush,
  };
}
