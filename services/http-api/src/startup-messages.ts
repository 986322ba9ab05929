import { redactSettings } from "@deliberate/providers";
import { describeDatabaseTarget } from "@deliberate/store";
import { findViewerAssetsDirectory } from "@deliberate/viewer";
import type { ApiConfig } from "./config.ts";
import type { Logger } from "./logger.ts";

/** The start-up lines: where the API listens (docs, viewer when built, database, rate limits, workers) and its model provider. */
export function logStartup(logger: Logger, config: ApiConfig, url: string): void {
  const providers = redactSettings(config.providers);
  // Served (and advertised) only when its browser files are there (dist/browser in a built or installed package).
  const viewerServed = findViewerAssetsDirectory() !== undefined;
  if (!viewerServed)
    logger.warn(
      "Session viewer not served: its browser files are missing (build with `pnpm --filter @deliberate/http-api... build`).",
    );
  logger.info("deliberate-api listening", {
    url,
    docs: `${url}/docs`,
    ...(viewerServed ? { viewer: `${url}/ui` } : {}),
    database: describeDatabaseTarget(config.database),
    rate_limits: config.http.rateLimitStore,
    workers: config.queue.enabled ? config.queue.workers : 0,
  });
  logger.info(
    config.providers.provider === "none"
      ? "no model provider: agent intents use the heuristic, tools are host-executed"
      : "model provider selected",
    {
      provider: providers.provider,
      reason: providers.reason,
    },
  );
}
