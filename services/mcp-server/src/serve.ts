import { survivingDatabaseFaults } from "@deliberate/base";
import type { DeliberateModule } from "@deliberate/engine";
import { createRuntime, type RunningService } from "@deliberate/runtime";
import { checkDatabase, describeDatabaseTarget } from "@deliberate/store";
import { loadAppViewDocuments } from "@deliberate/viewer/app-views";
import { newConnectionCaller } from "./caller-identity.ts";
import type { ServerConfig } from "./config.ts";
import { createServer, createToolCallFastPath } from "./create-server.ts";
import { createLogMirror } from "./log-mirror.ts";
import { createLogger, createSecretRegistry } from "./logger.ts";
import { connectionHelp, logProviderChoice } from "./startup-messages.ts";
import { type RunningTransport, startStdioTransport } from "./stdio-transport.ts";

/**
 * Serves MCP with `config` over its transport (stdio, or Streamable HTTP with the session viewer when built): the
 * logger (secrets scrubbed, mirrored to clients), the runtime, the in-chat views; returns how to stop it.
 */
export async function serve(
  config: ServerConfig,
  modules: DeliberateModule[],
  scriptPath: string,
): Promise<RunningService> {
  const logMirror = createLogMirror();
  // Configured secrets are scrubbed from every line, on stderr and mirrored to clients alike.
  const secrets = createSecretRegistry([
    config.providers.anthropic.apiKey,
    config.providers.openai.apiKey,
    config.transport.kind === "http" ? config.transport.token : undefined,
  ]);
  const logger = createLogger({
    level: config.logLevel,
    secrets,
    sinks: [(line) => void process.stderr.write(line), logMirror.sink],
  });
  // A database fault some path failed to catch is logged, not fatal (anything else still ends the process).
  survivingDatabaseFaults(process, (level, message, fields) => logger[level](message, fields));
  const runtime = await createRuntime({ settings: config, modules, logger, transport: config.transport.kind });
  const { engine, store } = runtime;
  logger.info("database ready", {
    dialect: config.database.dialect,
    database: describeDatabaseTarget(config.database),
  });
  logProviderChoice(logger, config.providers);
  await runtime.start();
  let viewerUrl: string | undefined;
  // Over stdio this process serves one client: its calls (through the SDK or the fast path) are one caller.
  const connectionCaller = newConnectionCaller();
  // The in-chat views (MCP Apps), over stdio and HTTP alike; off, with a warning, when the viewer was not built.
  const appViews = loadAppViewDocuments();
  if (appViews === undefined)
    logger.warn(
      "In-chat views (MCP Apps) are off: the viewer's browser files are not built (pnpm --filter @deliberate/viewer build).",
    );
  const build = () =>
    createServer({
      engine,
      logger,
      logMirror,
      toolsets: config.toolsets,
      providers: config.providers,
      sessions: engine,
      connectionCaller,
      ...(appViews ? { appViews } : {}),
      ...(viewerUrl !== undefined ? { viewerUrl } : {}),
    });

  let transport: RunningTransport | undefined;
  let stopping: Promise<void> | undefined;
  const stop = (reason: string) =>
    (stopping ??= (async () => {
      logger.info("shutting down", { reason });
      await transport?.close().catch((error: unknown) => logger.warn("closing the transport failed", { error }));
      await runtime.close();
    })());

  if (config.transport.kind === "http") {
    // Loaded only in HTTP mode: stdio start-up skips the HTTP stack.
    const { startHttpTransport } = await import("./http-transport.ts");
    const { createEngineViewer, findViewerAssetsDirectory } = await import("@deliberate/viewer");
    // Served (and advertised) only when its browser files are there (dist/browser in a built or installed package).
    const viewer =
      findViewerAssetsDirectory() === undefined
        ? void logger.warn(
            "Session viewer not served: its browser files are missing (build with `pnpm --filter @deliberate/mcp-server... build`).",
          )
        : createEngineViewer(engine, {
            ...(config.transport.token !== undefined ? { token: config.transport.token } : {}),
            onError: (error) => logger.error("viewer failed", { error }),
          });
    const http = await startHttpTransport({
      config: config.transport,
      createServer: build,
      logger,
      ...(viewer !== undefined ? { viewer } : {}),
      checkDatabase: () => checkDatabase(store.db),
    });
    viewerUrl = http.viewerUrl;
    if (viewerUrl) logger.info(`Session viewer: ${viewerUrl}`, { url: viewerUrl });
    transport = http;
    for (const line of connectionHelp({ config, scriptPath, nodePath: process.execPath, url: http.url }))
      logger.info(line);
  } else {
    transport = startStdioTransport({
      createServer: build,
      logger,
      // The client went away: stop as on a signal (exit 0; still 1 when stopping outlasts its grace).
      onClosed: () => {
        setTimeout(() => process.exit(1), 5000).unref();
        void stop("stdin closed").then(() => process.exit(0));
      },
      fastPath: createToolCallFastPath({
        engine,
        logger,
        caller: connectionCaller,
        toolsets: config.toolsets,
        stepAside: logMirror.listening,
      }),
    });
    for (const line of connectionHelp({ config, scriptPath, nodePath: process.execPath })) logger.info(line);
  }
  return { stop };
}
