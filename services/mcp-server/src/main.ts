#!/usr/bin/env node
import { realpathSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { setFlagsFromString } from "node:v8";
import { survivingDatabaseFaults } from "@deliberate/base";
import { composeModules, type DeliberateModule, loadModules } from "@deliberate/engine";
import { createRuntime, defaultModules, type RunningService, runMain } from "@deliberate/runtime";
import { checkDatabase, describeDatabaseTarget, sqliteDriverProblem } from "@deliberate/store";
import { parseCommandLine, type ServerConfig, usage } from "./config.ts";
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

async function main(): Promise<RunningService | undefined> {
  const parsed = parseCommandLine({ argv: process.argv.slice(2), env: process.env });
  if (parsed.action === "help") return void process.stdout.write(`${usage}\n`);
  if (parsed.action === "version") return void process.stdout.write(`${serverInfo.version}\n`);
  const { config } = parsed;
  const modules = [...defaultModules(config), ...(await loadModules(config.modules))];
  // Unknown toolset names stop the start (exit 2), naming the ones there are.
  const composed = composeModules(modules);
  const toolsetSource = { tools: [...composed.handlers.values()].map((handler) => handler.definition), toolsets: composed.toolsets };
  selectTools(toolsetSource, config.toolsets);
  // A client that launches the server with another Node than the one that installed it: one line with the fix.
  const driverProblem = config.database.dialect === "sqlite" ? sqliteDriverProblem() : undefined;
  if (driverProblem !== undefined) {
    process.stderr.write(`deliberate-mcp: ${driverProblem}\n`);
    process.exit(1);
  }
  if (parsed.action === "print-config") {
    // The snippet names this Node (process.execPath), checked above.
    const snippet = clientConfigSnippet({ client: parsed.client, config, scriptPath: commandPath(), nodePath: process.execPath, env: process.env });
    process.stdout.write(snippet);
    if (snippet.includes('"<')) process.stderr.write("Replace each <NAME> placeholder with its value (secrets are not printed).\n");
    process.stderr.write(
      `Serving toolsets ${config.toolsets.join(",")}. Set DELIBERATE_TOOLSETS (comma-separated, or all) to choose others:\n${describeToolsets(toolsetSource)
        .map((line) => `  ${line}\n`)
        .join("")}`,
    );
    return undefined;
  }
  return serve(config, modules);
}

async function serve(config: ServerConfig, modules: DeliberateModule[]): Promise<RunningService> {
  const logMirror = createLogMirror();
  // Configured secrets are scrubbed from every line, on stderr and mirrored to clients alike.
  const secrets = createSecretRegistry([config.providers.anthropic.apiKey, config.providers.openai.apiKey, config.transport.kind === "http" ? config.transport.token : undefined]);
  const logger = createLogger({ level: config.logLevel, secrets, sinks: [(line) => void process.stderr.write(line), logMirror.sink] });
  // A database fault some path failed to catch is logged, not fatal (anything else still ends the process).
  survivingDatabaseFaults(process, (level, message, fields) => logger[level](message, fields));
  const runtime = await createRuntime({ settings: config, modules, logger, transport: config.transport.kind });
  const { engine, store } = runtime;
  logger.info("database ready", { dialect: config.database.dialect, database: describeDatabaseTarget(config.database) });
  logProviderChoice(logger, config.providers);
  await runtime.start();
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
  let stopping: Promise<void> | undefined;
  const stop = (reason: string) =>
    (stopping ??= (async () => {
      logger.info("shutting down", { reason });
      await transport?.close().catch((error: unknown) => logger.warn("closing the transport failed", { error }));
      await runtime.close();
    })());

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
      // The client went away: stop as on a signal (exit 0; still 1 when stopping outlasts its grace).
      onClosed: () => {
        setTimeout(() => process.exit(1), 5000).unref();
        void stop("stdin closed").then(() => process.exit(0));
      },
      fastPath: createToolCallFastPath({ engine, logger, caller: connectionCaller, toolsets: config.toolsets, stepAside: logMirror.listening }),
    });
    for (const line of connectionHelp({ config, scriptPath, nodePath: process.execPath })) logger.info(line);
  }
  return { stop };
}

void runMain("deliberate-mcp", main);
