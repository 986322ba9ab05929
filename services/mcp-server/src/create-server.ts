import { publishedSchemas, type ToolDefinition } from "@deliberate/contracts";
import type { Engine, ProgressUpdate } from "@deliberate/engine";
import { McpServer, type CallToolResult, type ServerContext } from "@modelcontextprotocol/server";
import type { ProviderSettings } from "@deliberate/providers";
import { modelsForCall } from "./keyless-models.ts";
import { registerSessionResources, type SessionReader } from "./session-resources.ts";
import { silentLogger, type Logger } from "./logger.ts";
import { serverInfo, serverInstructions } from "./server-info.ts";
import { publishOnly } from "./tool-schemas.ts";
import { toToolErrorResult, toToolResult } from "./tool-result.ts";

export interface CreateServerOptions {
  /** The engine whose tools are served; every definition in `engine.tools` becomes an MCP tool. */
  engine: Engine;
  logger?: Logger;
  /**
   * Provider configuration. With no server-side provider, calls use the
   * client's sampling or host-executed completions (see keyless-models.ts);
   * omitted, the engine's own models always apply.
   */
  providers?: ProviderSettings;
  /** When given, sessions are served as resources (JSON, Markdown, Mermaid). */
  sessions?: SessionReader;
  /** The session viewer's base URL, when it is served; Markdown exports link to it. */
  viewerUrl?: string;
}

/**
 * Forwards engine progress as `notifications/progress` when the request
 * carries a progress token. MCP requires progress to increase with every
 * notification, so an update that does not (e.g. a nested tool restarting its
 * own count) is logged and dropped instead of sent. `flush` waits for every
 * notification sent so far, so none can arrive after the call's result (a
 * client drops progress for a request it has already finished).
 */
function progressForwarder(context: ServerContext, logger: Logger): { progress?: (update: ProgressUpdate) => void; flush: () => Promise<void> } {
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

function registerTool(server: McpServer, definition: ToolDefinition, engine: Engine, logger: Logger, providers: ProviderSettings | undefined): void {
  const schemas = publishedSchemas(definition);
  server.registerTool(
    definition.name,
    {
      title: definition.annotations.title,
      description: definition.description,
      inputSchema: publishOnly(schemas.input),
      outputSchema: publishOnly(schemas.output),
      annotations: { ...definition.annotations },
    },
    async (rawArguments: unknown, context: ServerContext): Promise<CallToolResult> => {
      const started = performance.now();
      const { progress, flush } = progressForwarder(context, logger);
      // Push-style sampling exists only on 2025-era connections (no per-request envelope).
      const models = providers
        ? modelsForCall(providers, {
            offered: Boolean(server.server.getClientCapabilities()?.sampling) && context.mcpReq.envelope === undefined,
            request: (request, options) => context.mcpReq.requestSampling(request, options.signal ? { signal: options.signal } : {}),
          })
        : undefined;
      try {
        const output = await engine.invoke(definition.name, rawArguments, {
          signal: context.mcpReq.signal,
          ...(progress ? { progress } : {}),
          ...(models ? { models } : {}),
        });
        logger.debug("tool call succeeded", { tool: definition.name, latencyMs: Math.round(performance.now() - started) });
        await flush();
        return toToolResult(output);
      } catch (error) {
        const { result, body, unexpected, errorId } = toToolErrorResult(error);
        const fields = { tool: definition.name, code: body.code, latencyMs: Math.round(performance.now() - started) };
        if (unexpected) logger.error("tool call failed unexpectedly", { ...fields, error_id: errorId, error });
        else logger.info("tool call failed", { ...fields, detail: body.message });
        await flush();
        return result;
      }
    },
  );
}

/**
 * Creates the MCP server for an engine: every tool definition the engine
 * publishes is registered generically (name, title, description, input and
 * output JSON Schema derived from its zod schemas, annotations); calls go to
 * `engine.invoke` with the request's abort signal and progress forwarding.
 * Returns a fresh instance per call, as the SDK's serving entries expect of a
 * server factory.
 */
export function createServer(options: CreateServerOptions): McpServer {
  const logger = options.logger ?? silentLogger;
  const server = new McpServer(serverInfo, { capabilities: { tools: { listChanged: false } }, instructions: serverInstructions });
  for (const definition of options.engine.tools) registerTool(server, definition, options.engine, logger, options.providers);
  withoutInheritedToolNames(server);
  if (options.sessions) registerSessionResources(server, options.sessions, logger, options.viewerUrl);
  return server;
}

/**
 * The SDK looks tools up in a plain object, so `constructor`, `__proto__` or
 * `toString` would resolve to Object.prototype members and be reported
 * "disabled". With no prototype they are what they are: unknown tools
 * ("Tool constructor not found", like any other unknown name).
 */
function withoutInheritedToolNames(server: McpServer): void {
  const registry = (server as unknown as { _registeredTools?: object })._registeredTools;
  if (registry !== undefined) Object.setPrototypeOf(registry, null);
}
