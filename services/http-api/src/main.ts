#!/usr/bin/env node
import { survivingDatabaseFaults } from "@deliberate/base";
import { type RunningService, runMain } from "@deliberate/runtime";
import { sqliteDriverProblem } from "@deliberate/store";
import { parseApiEnvironment } from "./config.ts";
import { createApiService } from "./service.ts";
import { logStartup } from "./startup-messages.ts";

async function main(): Promise<RunningService> {
  // Every bad variable is named in one ConfigError (exit 2).
  const config = parseApiEnvironment(process.env);
  // Started by another Node than the one that installed it: one line with the fix, before anything else.
  const driverProblem = config.database.dialect === "sqlite" ? sqliteDriverProblem() : undefined;
  if (driverProblem !== undefined) {
    process.stderr.write(`deliberate-api: ${driverProblem}\n`);
    process.exit(1);
  }
  // The default modules (with their options from the variables they declare) are composed by createApiService.
  const service = await createApiService({ config });
  // A database fault some path failed to catch is logged, not fatal (anything else still ends the process).
  survivingDatabaseFaults(process, (level, message, fields) => service.logger[level](message, fields));
  logStartup(service.logger, config, await service.start());
  const stop = (signal: string) => {
    service.logger.info("shutting down", { signal });
    return service.stop();
  };
  return { stop, stopGraceMs: config.shutdownGraceMs + 5000 };
}

void runMain("deliberate-api", main);
