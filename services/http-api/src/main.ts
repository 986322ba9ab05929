#!/usr/bin/env node
import { survivingDatabaseFaults } from "@deliberate/base";
import { redactSettings } from "@deliberate/providers";
import { createSelfImprovementModule, parseSelfImprovementEnvironment, type SelfImprovementOptions } from "@deliberate/self-improvement";
import { describeDatabaseTarget, sqliteDriverProblem } from "@deliberate/store";
import { findViewerAssetsDirectory } from "@deliberate/viewer";
import { type ApiConfig, ConfigError, parseApiEnvironment } from "./config.ts";
import { createApiService } from "./service.ts";

async function main(): Promise<void> {
  let config: ApiConfig;
  let selfImprovement: SelfImprovementOptions;
  try {
    config = parseApiEnvironment(process.env);
    selfImprovement = parseSelfImprovementEnvironment(process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`deliberate-api: ${error.message}\n`);
    process.exit(2);
  }
  // Started by another Node than the one that installed it: one line with the fix, before anything else.
  const driverProblem = config.database.dialect === "sqlite" ? sqliteDriverProblem() : undefined;
  if (driverProblem !== undefined) {
    process.stderr.write(`deliberate-api: ${driverProblem}\n`);
    process.exit(1);
  }
  // The self-improvement loop runs in every service (DELIBERATE_SELF_IMPROVEMENT_MODE=off stops its actions).
  const service = await createApiService({ config, modules: [createSelfImprovementModule(selfImprovement)] });
  const { logger } = service;
  // A database fault some path failed to catch is logged, not fatal (anything else still ends the process).
  survivingDatabaseFaults(process, (level, message, fields) => logger[level](message, fields));
  const url = await service.start();
  const providers = redactSettings(config.providers);
  const viewerServed = findViewerAssetsDirectory() !== undefined;
  if (!viewerServed) logger.warn("Session viewer not served: its browser files are missing (build with `pnpm --filter @deliberate/http-api... build`).");
  logger.info("deliberate-api listening", {
    url,
    docs: `${url}/docs`,
    ...(viewerServed ? { viewer: `${url}/ui` } : {}),
    database: describeDatabaseTarget(config.database),
    rate_limits: config.http.rateLimitStore,
    workers: config.queue.enabled ? config.queue.workers : 0,
  });
  logger.info(config.providers.provider === "none" ? "no model provider: agent intents use the heuristic, tools are host-executed" : "model provider selected", {
    provider: providers.provider,
    reason: providers.reason,
  });

  let stopping = false;
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.on(signal, () => {
      if (stopping) process.exit(130);
      stopping = true;
      logger.info("shutting down", { signal });
      setTimeout(() => process.exit(1), config.shutdownGraceMs + 5000).unref();
      service.stop().then(
        () => process.exit(0),
        (error: unknown) => {
          logger.error("shutdown failed", { error });
          process.exit(1);
        },
      );
    });
  }
}

main().catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), level: "error", message: `deliberate-api failed to start: ${message}` })}\n`);
  process.exit(1);
});
