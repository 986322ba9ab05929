import { readList } from "@deliberate/base";
import type { KnowledgeGraphOptions } from "@deliberate/knowledge-graph";
import { isLogLevel, type LogLevel, logLevels } from "@deliberate/logging";
import { parseProviderEnvironment, type ProviderSettings } from "@deliberate/providers";
import { type DatabaseTarget, databaseTargetFromEnvironment, defaultDatabasePath } from "@deliberate/store";
import type { HostPromptForm } from "@deliberate/engine";
import { type ModuleSettings, readModuleSettings } from "./default-modules.ts";
import type { EnvReader } from "./env-reader.ts";

/** Default of `HOST_COMPLETION_TTL_SECONDS`. */
export const defaultHostCompletionTtlSeconds = 3600;

/** The settings every service reads the same way (and reports the same way in `reasoning_metrics {query: "config"}`). */
export interface CommonSettings {
  /** `DATABASE_PATH`, default `deliberate/deliberate.db` under the user's data directory (SQLite). */
  databasePath: string;
  /** `DATABASE_URL=postgres://...` selects Postgres (replicas share it); otherwise SQLite at `databasePath`. */
  database: DatabaseTarget;
  /** `DATABASE_POOL_SIZE`, default 10: Postgres connections of this process. */
  databasePoolSize: number;
  /** `LOG_LEVEL`, default `info`. */
  logLevel: LogLevel;
  /** `DELIBERATE_PROVIDER`, `ANTHROPIC_API_KEY`, `OPENAI_*`, ...: the server's models. */
  providers: ProviderSettings;
  /** `HOST_COMPLETION_TTL_SECONDS`, default 3600: how long a host-executed call waits for its completions. */
  hostCompletionTtlSeconds: number;
  /** `DELIBERATE_HOST_PROMPTS`, default `compact`: how needs_completion steps carry their prompts (`full` for hosts written before 0.x's compact form). */
  hostPrompts: HostPromptForm;
  /** `DELIBERATE_MODULES`: extra modules to serve (comma-separated package names or file paths). */
  modules: string[];
  /** The knowledge-graph module's lifecycle and limits (`KNOWLEDGE_GRAPH_*`; the same object as `moduleSettings.knowledgeGraph`). */
  knowledgeGraph: Partial<KnowledgeGraphOptions>;
  /** The default modules' options, read from the variables each declares (e.g. `DELIBERATE_SELF_IMPROVEMENT_*`). */
  moduleSettings: ModuleSettings;
}

/** Reads the common settings; every problem is noted on `reader` (its `finish` throws them together). */
export function readCommonSettings(reader: EnvReader): CommonSettings {
  const { env } = reader;
  const logLevelValue = reader.text("LOG_LEVEL")?.toLowerCase();
  if (logLevelValue !== undefined && !isLogLevel(logLevelValue)) {
    reader.problem(`LOG_LEVEL must be one of ${logLevels.join(", ")} (got "${env["LOG_LEVEL"]}")`, ["LOG_LEVEL"]);
  }
  const fallbackDatabase: DatabaseTarget = { dialect: "sqlite", path: defaultDatabasePath({ env }) };
  const database = reader.attempt(() => databaseTargetFromEnvironment(env), fallbackDatabase);
  const moduleSettings = readModuleSettings(reader);
  return {
    databasePath: reader.text("DATABASE_PATH") ?? defaultDatabasePath({ env }),
    database,
    databasePoolSize: reader.integer("DATABASE_POOL_SIZE", 10, { min: 1, max: 1000 }),
    logLevel: logLevelValue !== undefined && isLogLevel(logLevelValue) ? logLevelValue : "info",
    // Only read when valid: the fallback is never served (finish throws first).
    providers: reader.attempt(() => parseProviderEnvironment(env), undefined as unknown as ProviderSettings),
    hostCompletionTtlSeconds: reader.integer("HOST_COMPLETION_TTL_SECONDS", defaultHostCompletionTtlSeconds, {
      min: 1,
      unit: "seconds",
    }),
    hostPrompts: reader.choice<HostPromptForm>("DELIBERATE_HOST_PROMPTS", ["compact", "full"]) ?? "compact",
    modules: readList(env["DELIBERATE_MODULES"]),
    knowledgeGraph: moduleSettings.knowledgeGraph,
    moduleSettings,
  };
}
