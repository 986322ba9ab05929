#!/usr/bin/env node
import { realpathSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { setFlagsFromString } from "node:v8";
import { survivingDatabaseFaults } from "@deliberate/base";
import { composeModules, createEngine, createTaskRunner, loadModules } from "@deliberate/engine";
import { dialogModule } from "@deliberate/dialog";
import { createKnowledgeGraphModule } from "@deliberate/knowledge-graph";
import { reasoningModule } from "@deliberate/reasoning";
import { createModelRouter, redactSettings, unknownModeModels } from "@deliberate/providers";
import { createSelfImprovementModule, parseSelfImprovementEnvironment } from "@deliberate/self-improvement";
import { checkDatabase, defaultInvocationBatch, describeDatabaseTarget, openStore, sqliteDriverProblem } from "@deliberate/store";
import { ConfigError, parseCommandLine, usage } from "./config.ts";
import { newConnectionCaller } from "./caller-identity.ts";
import { createServer, createToolCallFastPath } from "./create-server.ts";
import { createLogger, createSecretRegistry } from "./logger.ts";
import { createLogMirror } from "./log-mirror.ts";
import { loadAppViewDocuments } from "@deliberate/viewer/app-views";
import { describeToolsets, selectTools } from "./toolsets.ts";
import { serverInfo } from "./server-info.ts";
import { startStdioTransport, type RunningTransport } from "./stdio-transport.ts";
import { clientConfigSnippet, connectionHelp, logProviderChoice } from "./startup-messages.ts";

/** The command as started (dist/main.js, which runs the bundle with its code cache; links resolved), else this file. */
function commandPath(): string {
  const started = process.argv[1];
  if (started === undefined) return fileURLToPath(import.meta.url);
  try {
    return realpathSync(started);
  } catch {
    return resolve(started);
  }
}

// Callers' JSON Schemas (a task's available tools) carry patterns that run on text they choose: a regular
// expression that backtracks too much runs again on V8's linear-time engine (same answer), so none can hold
// the process; what that engine cannot run is refused with the schema (unsafePatterns in @deliberate/contracts).
setFlagsFromString("--enable-experimental-regexp-engine-on-excessive-backtracks");

async function main(): Promise<void> {
  let parsed: ReturnType<typeof parseCommandLine>;
  let selfImprovement: ReturnType<typeof parseSelfImprovementEnvironment>;
  try {
    parsed = parseCommandLine({ argv: process.argv.slice(2), env: process.env });
    selfImprovement = parseSelfImprovementEnvironment(process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`deliberate-mcp: ${error.message}\n`);
    process.exit(2);
  }
  if (parsed.action === "help") return void process.stdout.write(`${usage}\n`);
  if (parsed.action === "version") return void process.stdout.write(`${serverInfo.version}\n`);
  const { config } = parsed;
  // The self-improvement loop runs in every service (DELIBERATE_SELF_IMPROVEMENT_MODE=off stops its actions).
  const modules = [
    reasoningModule,
    dialogModule,
    createKnowledgeGraphModule(config.knowledgeGraph),
    createSelfImprovementModule(selfImprovement),
    ...(await loadModules(config.modules)),
  ];
  // Unknown toolset names stop the start, naming the ones there are.
  const composed = composeModules(modules);
  const toolsetSource = { tools: [...composed.handlers.values()].map((handler) => handler.definition), toolsets: composed.toolsets };
  try {
    selectTools(toolsetSource, config.toolsets);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`deliberate-mcp: ${error.message}\n`);
    process.exit(2);
  }
  // A client that launches the server with another Node than the one that installed it: one line with the fix.
  const driverProblem = config.database.dialect === "sqlite" ? sqliteDriverProblem() : undefined;
  if (parsed.action === "print-config") {
    // The snippet names this Node (process.execPath): refuse when it cannot run the server, with the fix.
    if (driverProblem !== undefined) {
      process.stderr.write(`deliberate-mcp: ${driverProblem}\n`);
      process.exit(1);
    }
    const snippet = clientConfigSnippet({ client: parsed.client, config, scriptPath: commandPath(), nodePath: process.execPath, env: process.env });
    process.stdout.write(snippet);
    if (snippet.includes('"<')) process.stderr.write("Replace each <NAME> placeholder with its value (secrets are not printed).\n");
    process.stderr.write(
      `Serving toolsets ${config.toolsets.join(",")}. Set DELIBERATE_TOOLSETS (comma-separated, or all) to choose others:\n${describeToolsets(toolsetSource)
        .map((line) => `  ${line}\n`)
        .join("")}`,
    );
    return;
  }
  if (driverProblem !== undefined) {
    process.stderr.write(`deliberate-mcp: ${driverProblem}\n`);
    process.exit(1);
  }
  const logMirror = createLogMirror();
  // Configured secrets are scrubbed from every line, on stderr and mirrored to clients alike.
  const secrets = createSecretRegistry([config.providers.anthropic.apiKey, config.providers.openai.apiKey, config.transport.kind === "http" ? config.transport.token : undefined]);
  const logger = createLogger({ level: config.logLevel, secrets, sinks: [(line) => void process.stderr.write(line), logMirror.sink] });
  // A database fault some path failed to catch is logged, not fatal (anything else still ends the process).
  survivingDatabaseFaults(process, (level, message, fields) => logger[level](message, fields));

  // Invocation rows are batched (a crash loses at most the last 16, 31 in a burst, none older than 20 ms); tools' state commits before each response.
  const store = await openStore({
    target: config.database,
    poolSize: config.databasePoolSize,
    modules,
    // A connection the server dropped (restart, fail-over) is replaced; calls meanwhile get a retryable STORAGE error.
    onConnectionError: (error) => logger.warn("database connection lost; it is replaced when next needed", { error }),
    invocationBatch: { ...defaultInvocationBatch, onError: (error, rows) => logger.warn("invocation rows not written", { error, rows }) },
  });
  logger.info("database ready", { dialect: config.database.dialect, database: describeDatabaseTarget(config.database) });
  logProviderChoice(logger, config.providers);
  const engine = createEngine({
    store,
    modules,
    models: createModelRouter(config.providers),
    suspendedCallTtlMs: config.hostCompletionTtlSeconds * 1000,
    configSnapshot: {
      providers: redactSettings(config.providers),
      database: describeDatabaseTarget(config.database),
      transport: config.transport.kind,
      log_level: config.logLevel,
      host_completion_ttl_seconds: config.hostCompletionTtlSeconds,
    },
    onInvocation: (event) => logger.debug("invocation", { ...event }),
  });
  for (const warning of unknownModeModels(config.providers, engine.modes)) logger.warn(warning);
  const tasks = createTaskRunner({ engine, log: (level, message, fields) => logger[level](message, fields) });
  await tasks.start();
  let viewerUrl: string | undefined;
  // Over stdio this process serves one client: its calls (through the SDK or the fast path) are one caller.
  const connectionCaller = newConnectionCaller();
  // The in-chat views (MCP Apps), over stdio and HTTP alike; off, with a warning, when the viewer was not built.
  const appViews = loadAppViewDocuments();
  if (appViews === undefined) logger.warn("In-chat views (MCP Apps) are off: the viewer's browser files are not built (pnpm --filter @deliberate/viewer build).");
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
  let stopping = false;
  const shutdown = async (reason: string, exitCode = 0) => {
    if (stopping) return;
    stopping = true;
    logger.info("shutting down", { reason });
    setTimeout(() => process.exit(exitCode === 0 ? 1 : exitCode), 5000).unref();
    await transport?.close().catch((error: unknown) => logger.warn("closing the transport failed", { error }));
    await tasks.stop().catch((error: unknown) => logger.warn("stopping the background tasks failed", { error }));
    await store.close().catch((error: unknown) => logger.warn("closing the database failed", { error }));
    process.exit(exitCode);
  };
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.on(signal, () => (stopping ? process.exit(130) : void shutdown(signal)));
  }

  const scriptPath = commandPath();
  if (config.transport.kind === "http") {
    // Loaded only in HTTP mode: stdio start-up skips the HTTP stack.
    const { startHttpTransport } = await import("./http-transport.ts");
    const { createEngineViewer, findViewerAssetsDirectory } = await import("@deliberate/viewer");
    // Served (and advertised) only when its browser files are there (dist/browser in a built or installed package).
    const viewer =
      findViewerAssetsDirectory() === undefined
        ? void logger.warn("Session viewer not served: its browser files are missing (build with `pnpm --filter @deliberate/mcp-server... build`).")
        : createEngineViewer(engine, {
            ...(config.transport.token !== undefined ? { token: config.transport.token } : {}),
            onError: (error) => logger.error("viewer failed", { error }),
          });
    const http = await startHttpTransport({ config: config.transport, createServer: build, logger, ...(viewer !== undefined ? { viewer } : {}), checkDatabase: () => checkDatabase(store.db) });
    viewerUrl = http.viewerUrl;
    if (viewerUrl) logger.info(`Session viewer: ${viewerUrl}`, { url: viewerUrl });
    transport = http;
    for (const line of connectionHelp({ config, scriptPath, nodePath: process.execPath, url: http.url })) logger.info(line);
  } else {
    transport = startStdioTransport({
      createServer: build,
      logger,
      onClosed: () => void shutdown("stdin closed"),
      fastPath: createToolCallFastPath({ engine, logger, caller: connectionCaller, toolsets: config.toolsets, stepAside: logMirror.listening }),
    });
    for (const line of connectionHelp({ config, scriptPath, nodePath: process.execPath })) logger.info(line);
  }
}

main().catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), level: "error", message: `deliberate-mcp failed to start: ${message}` })}\n`);
  process.exit(1);
});
