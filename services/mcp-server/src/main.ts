#!/usr/bin/env node
import { setFlagsFromString } from "node:v8";
import { composeModules, loadModules } from "@deliberate/engine";
import { defaultModules, type RunningService, runMain } from "@deliberate/runtime";
import { sqliteDriverProblem } from "@deliberate/store";
import { commandPath } from "./command-path.ts";
import { parseCommandLine, usage } from "./config.ts";
import { printConfig } from "./print-config.ts";
import { serve } from "./serve.ts";
import { serverInfo } from "./server-info.ts";
import { selectTools } from "./toolsets.ts";

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
  const toolsetSource = {
    tools: [...composed.handlers.values()].map((handler) => handler.definition),
    toolsets: composed.toolsets,
  };
  selectTools(toolsetSource, config.toolsets);
  // A client that launches the server with another Node than the one that installed it: one line with the fix.
  const driverProblem = config.database.dialect === "sqlite" ? sqliteDriverProblem() : undefined;
  if (driverProblem !== undefined) {
    process.stderr.write(`deliberate-mcp: ${driverProblem}\n`);
    process.exit(1);
  }
  // The snippet names this Node (process.execPath), checked above.
  if (parsed.action === "print-config")
    return void printConfig({ client: parsed.client, config, scriptPath: commandPath(), toolsets: toolsetSource });
  return serve(config, modules, commandPath());
}

void runMain("deliberate-mcp", main);
