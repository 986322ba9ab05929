import { publishedSchemas, submitTool, type ToolDefinition } from "@deliberate/contracts";
import type { DeliberateEngine, Engine, InvokeOptions } from "@deliberate/engine";
import { McpServer, type CallToolResult, type ServerContext } from "@modelcontextprotocol/server";
import { bindConnectionCaller } from "./caller-identity.ts";
import { registerModuleOperations } from "./module-operations.ts";
import { registerProtocolMethods } from "./protocol-methods.ts";
import { invokeOptionsFor } from "./request-options.ts";
import type { ProviderSettings } from "@deliberate/providers";
import { registerSessionResources, type SessionReader } from "./session-resources.ts";
import { silentLogger, type Logger } from "./logger.ts";
import { serverInfo, serverInstructions } from "./server-info.ts";
import { publishOnly } from "./tool-schemas.ts";
import type { ToolCallFastPath } from "./fast-tool-call-transport.ts";
import { toToolErrorResult, toolResultOf, toToolResult } from "./tool-result.ts";
import { withUserElicitation } from "./user-elicitation.ts";
import type { AppViewDocuments } from "@deliberate/viewer/app-views";
import { createAppViewResources } from "./app-view-resources.ts";
import { registerCompletions } from "./completions.ts";
import type { LogMirror } from "./log-mirror.ts";
import { registerPrompts } from "./server-prompts.ts";
import { sessionResourceTemplates } from "./session-resources.ts";
import { allToolsets, selectTools } from "./toolsets.ts";

export interface CreateServerOptions {
  /**
   * The toolsets whose tools are listed and callable (`DELIBERATE_TOOLSETS`); default all.
   * Unknown names throw (validate at start-up with `selectTools`).
   */
  toolsets?: readonly string[];
  /** Mirrors log lines to clients (`notifications/message`); the logger must write to its sink. */
  logMirror?: LogMirror;
  /**
   * The engine whose tools are served; every definition in `engine.tools` becomes an MCP tool.
   * Its composed modules' protocol methods (`methods`) and operations (`operations`, as `<module>/<operation>`) are served as custom JSON-RPC requests
   * and their published `capabilities` are advertised under `experimental` at initialize.
   */
  engine: Engine &
    Partial<
      Pick<DeliberateEngine, "methods" | "capabilities" | "prompts" | "toolsets" | "operations" | "runOperation">
    >;
  logger?: Logger;
  /**
   * Provider configuration. With no server-side provider, calls use the
   * client's sampling or host-executed completions (see keyless-models.ts);
   * omitted, the engine's own models always apply.
   */
  providers?: ProviderSettings;
  /** When given, sessions are served as resources (JSON, Markdown, Mermaid). */
  sessions?: SessionReader;
  /**
   * The in-chat views' documents by `ui://` URI (`loadAppViewDocuments` of @deliberate/viewer/app-views):
   * served as MCP Apps resources and linked from their tools (`_meta.ui.resourceUri`). Needs `sessions` (the views read them).
   */
  appViews?: AppViewDocuments;
  /** The session viewer's base URL, when it is served; Markdown exports link to it. */
  viewerUrl?: string;
  /**
   * The caller identity of calls on a connection that is not HTTP (stdio), shared with the
   * stdio fast path; default: one new identity per server instance. HTTP calls are identified
   * by their bearer token and MCP session instead (see caller-identity.ts).
   */
  connectionCaller?: string;
}

/** Runs a request's work so its log lines reach its client (see LogMirror). */
type DuringRequest = <T>(context: ServerContext, work: () => T) => T;

function registerTool(
  server: McpServer,
  definition: ToolDefinition,
  engine: Engine,
  logger: Logger,
  providers: ProviderSettings | undefined,
  during: DuringRequest,
  meta: Record<string, unknown> | undefined,
): void {
  // Converted on first use (and once per definition): nothing is converted at start-up.
  server.registerTool(
    definition.name,
    {
      title: definition.annotations.title,
      description: definition.description,
      inputSchema: publishOnly(() => publishedSchemas(definition).input),
      outputSchema: publishOnly(() => publishedSchemas(definition).output),
      annotations: { ...definition.annotations },
      ...(meta ? { _meta: meta } : {}),
    },
    async (rawArguments: unknown, context: ServerContext): Promise<CallToolResult> => {
      const call = async () => {
        const { options, flush } = invokeOptionsFor(server, context, logger, providers);
        const asking = {
          tools: engine.tools,
          invoke: withUserElicitation(server, context, logger, (name, args, invokeOptions) =>
            engine.invoke(name, args, invokeOptions),
          ),
        };
        const result = await callEngine(asking, logger, definition.name, rawArguments, options);
        await flush();
        return result;
      };
      return during(context, call);
    },
  );
}

/**
 * One call to the engine as an MCP result: the output, or the error as a tool result (logged). When the
 * options already answered the call from its output (the fast path's `onOutput`), that result is returned.
 */
async function callEngine(
  engine: Engine,
  logger: Logger,
  name: string,
  rawArguments: unknown,
  options: InvokeOptions & { readonly answered?: CallToolResult },
): Promise<CallToolResult> {
  const started = performance.now();
  try {
    const output = await engine.invoke(name, rawArguments, options);
    // Its fields are made only when the line is written (every model-free call passes here).
    if (logger.level === "debug")
      logger.debug("tool call succeeded", { tool: name, latencyMs: Math.round(performance.now() - started) });
    return options.answered ?? toToolResult(output);
  } catch (error) {
    const { result, body, unexpected, errorId } = toToolErrorResult(error);
    const fields = { tool: name, code: body.code, latencyMs: Math.round(performance.now() - started) };
    if (unexpected) logger.error("tool call failed unexpectedly", { ...fields, error_id: errorId, error });
    else logger.info("tool call failed", { ...fields, detail: body.message });
    return result;
  }
}

/**
 * The stdio fast path (`ToolCallFastPath`): the calls that need nothing of the
 * connection (no model, so no sampling or host completion; not
 * reasoning_submit, which resumes a model-backed call) are answered by the
 * engine directly, with the same result the registered tool gives.
 */
export function createToolCallFastPath(options: {
  engine: Engine & Partial<Pick<DeliberateEngine, "toolsets">>;
  logger?: Logger;
  caller?: string;
  toolsets?: readonly string[];
  /** While true, every call goes through the server (e.g. a client asked for log lines, which the fast path cannot send). */
  stepAside?: () => boolean;
}): ToolCallFastPath {
  const caller = options.caller;
  const logger = options.logger ?? silentLogger;
  const served = servedTools(options.engine, options.toolsets);
  const modelFree = new Set(
    served.filter((tool) => !tool.usesModel && tool.name !== submitTool.name).map((tool) => tool.name),
  );
  // The signal is read only if the call needs it (see LazyAbort).
  return (call) =>
    modelFree.has(call.name) && options.stepAside?.() !== true
      ? callEngine(
          options.engine,
          logger,
          call.name,
          call.arguments,
          new FastPathInvokeOptions(call.cancellation, caller, call.answer),
        )
      : undefined;
}

/**
 * A fast-path call's options, the signal read from its cancellation only when the call asks for it. A class,
 * not an object literal with `get signal() {...}`: V8 builds such a literal on a slow path (a hidden class
 * of its own per object), and that per-call garbage outlived young-generation collections.
 * `onOutput` answers the call as soon as its output is committed, before the engine records its invocation
 * row (batched telemetry, see the store's invocation batch): the row is then built after the line is written.
 */
class FastPathInvokeOptions implements InvokeOptions {
  // Declared only (no field emitted): set when known, so an absent caller is absent, not undefined.
  declare readonly caller?: string;
  /** The result given to `answer`, once the output came. */
  answered: CallToolResult | undefined = undefined;
  constructor(
    private readonly cancellation: { readonly signal: AbortSignal },
    caller: string | undefined,
    private readonly answer: (result: CallToolResult, structuredJson?: string) => void,
  ) {
    if (caller !== undefined) this.caller = caller;
  }
  get signal(): AbortSignal {
    return this.cancellation.signal;
  }
  onOutput(output: Record<string, unknown>): void {
    const json = JSON.stringify(output);
    const result = toolResultOf(output, json);
    this.answered = result;
    // The text is the structured content's JSON unless the result carries _meta: the line reuses it.
    this.answer(result, result._meta === undefined ? json : undefined);
  }
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
  const published = options.engine.capabilities ?? {};
  const capabilities = {
    tools: { listChanged: false },
    // Module capability objects (e.g. `reasoning`), for clients to discover at connection time.
    ...(Object.keys(published).length > 0 ? { experimental: published as Record<string, Record<string, never>> } : {}),
  };
  const server = new McpServer(serverInfo, { capabilities, instructions: serverInstructions });
  if (options.connectionCaller !== undefined) bindConnectionCaller(server, options.connectionCaller);
  const tools = servedTools(options.engine, options.toolsets);
  // Logging is offered when lines are mirrored; `logging/setLevel` then sets this client's threshold.
  const during: DuringRequest = options.logMirror ? options.logMirror.attach(server) : (_context, work) => work();
  const views =
    options.appViews && options.sessions
      ? createAppViewResources(options.appViews, new Set(tools.map((tool) => tool.name)))
      : undefined;
  for (const definition of tools)
    registerTool(
      server,
      definition,
      options.engine,
      logger,
      options.providers,
      during,
      views?.toolMeta(definition.name),
    );
  registerProtocolMethods(server, {
    engine: options.engine,
    methods: options.engine.methods ?? new Map(),
    logger,
    providers: options.providers,
    during,
  });
  const { operations, runOperation } = options.engine;
  if (operations !== undefined && runOperation !== undefined)
    registerModuleOperations(server, { engine: { operations, runOperation }, logger, during });
  withoutInheritedToolNames(server);
  if (options.sessions) registerSessionResources(server, options.sessions, logger, options.viewerUrl, views);
  const prompts = (options.engine.prompts ?? []).filter((prompt) => tools.some((tool) => tool.name === prompt.tool));
  registerPrompts(server, prompts, tools);
  registerCompletions(server, {
    prompts,
    ...(options.sessions ? { sessions: options.sessions } : {}),
    sessionTemplates: options.sessions ? sessionResourceTemplates : [],
  });
  return server;
}

/** The engine's tools in the requested toolsets (all of them when none are requested or the engine has no toolsets). */
function servedTools(
  engine: Engine & Partial<Pick<DeliberateEngine, "toolsets">>,
  toolsets: readonly string[] | undefined,
): readonly ToolDefinition[] {
  if (toolsets === undefined || engine.toolsets === undefined) return engine.tools;
  const selected = selectTools(
    { tools: engine.tools, toolsets: engine.toolsets },
    toolsets.length === 0 ? [allToolsets] : toolsets,
  );
  return engine.tools.filter((tool) => selected.has(tool.name));
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
