import { ConfigError } from "@deliberate/base";
import { createEnvReader, type ModuleSettings, readCommonSettings } from "@deliberate/runtime";
import { isLoopbackHost } from "@deliberate/contracts";
import type { KnowledgeGraphOptions } from "@deliberate/knowledge-graph";
import type { ProviderSettings } from "@deliberate/providers";
import type { DatabaseTarget } from "@deliberate/store";
import type { LogLevel } from "./logger.ts";
import type { HostPromptForm } from "@deliberate/engine";
import { readBindAddress } from "./config/bind-address.ts";
import { type HttpSettings, readApiAuth, readHttpSettings } from "./config/http-settings.ts";
import {
  type CallbackSettings,
  type QueueSettings,
  readCallbackAllowlist,
  readCallbackSettings,
  readQueueSettings,
} from "./config/queue-settings.ts";

type Environment = Record<string, string | undefined>;

/** Everything the service reads from its environment, parsed once at start-up. */
export interface ApiConfig {
  /** `HOST` (or the spec's `UVICORN_HOST`), default 127.0.0.1. */
  host: string;
  /** `PORT` (or `UVICORN_PORT`), default 9000; 0 picks a free port. */
  port: number;
  /** `DATABASE_PATH`, default `deliberate/deliberate.db` under the user's data directory: sessions, tools, the queue and telemetry (SQLite). */
  databasePath: string;
  /**
   * Where the store lives: `DATABASE_URL=postgres://...` selects Postgres (the
   * queue, sessions and rate limits are then shared by every replica on it);
   * otherwise SQLite at `databasePath`.
   */
  database: DatabaseTarget;
  /** `DATABASE_POOL_SIZE`, default 10: Postgres connections of this process. */
  databasePoolSize: number;
  /** `DELIBERATE_MODULES`: extra modules to serve (comma-separated package names or file paths). */
  modules: string[];
  /** The knowledge-graph module's lifecycle and limits (`KNOWLEDGE_GRAPH_*`). */
  knowledgeGraph: Partial<KnowledgeGraphOptions>;
  /** `LOG_LEVEL`, default info. */
  logLevel: LogLevel;
  /** `HOST_COMPLETION_TTL_SECONDS`, default 3600: how long a host-executed call waits for its completions. */
  hostCompletionTtlSeconds: number;
  /** The default modules' options, from the variables each module declares (`DELIBERATE_SELF_IMPROVEMENT_*`, ...). */
  moduleSettings: ModuleSettings;
  /** `DELIBERATE_HOST_PROMPTS`, default `compact`: how needs_completion steps carry their prompts (`full` for hosts written before 0.x's compact form). */
  hostPrompts: HostPromptForm;
  /** `REASONING_LOG_FILE`: mirror every JSON log line to this file. */
  logFile: string | undefined;
  /** `REASONING_LOG_STDOUT=1`: mirror every JSON log line to stdout. */
  logStdout: boolean;
  http: HttpSettings;
  queue: QueueSettings;
  callbacks: CallbackSettings;
  providers: ProviderSettings;
  /** `REASONING_SHUTDOWN_GRACE_MS`, default 10,000: how long shutdown waits for requests and jobs in flight. */
  shutdownGraceMs: number;
}

export { defaultHost, defaultPort } from "./config/bind-address.ts";
export type { HttpSettings } from "./config/http-settings.ts";
export type { CallbackSettings, QueueSettings } from "./config/queue-settings.ts";

/** True for this machine's loopback names (shared with the MCP server: `isLoopbackHost` of @deliberate/contracts). */
export { isLoopbackHost };

/**
 * Parses the environment into a typed config, collecting every problem.
 *
 * @throws ConfigError naming every invalid variable (one error for all of them).
 */
export function parseApiEnvironment(env: Environment): ApiConfig {
  const reader = createEnvReader(env);
  const common = readCommonSettings(reader);
  // Each step notes its problems in turn; the order below is the order they are reported in.
  const { host, port } = readBindAddress(reader);
  const auth = readApiAuth(reader, host);
  const allowlist = readCallbackAllowlist(reader);
  const http = readHttpSettings(reader, { host, auth, database: common.database });
  const queue = readQueueSettings(reader);
  const callbacks = readCallbackSettings(reader, allowlist);
  const shutdownGraceMs = reader.integer("REASONING_SHUTDOWN_GRACE_MS", 10_000, { min: 0 });
  const logStdout = reader.flag("REASONING_LOG_STDOUT", false);

  reader.finish();
  return {
    host,
    port,
    databasePath: common.databasePath,
    database: common.database,
    databasePoolSize: common.databasePoolSize,
    modules: common.modules,
    knowledgeGraph: common.knowledgeGraph,
    logLevel: common.logLevel,
    hostCompletionTtlSeconds: common.hostCompletionTtlSeconds,
    moduleSettings: common.moduleSettings,
    hostPrompts: common.hostPrompts,
    logFile: reader.text("REASONING_LOG_FILE"),
    logStdout,
    http,
    queue,
    callbacks,
    providers: common.providers,
    shutdownGraceMs,
  };
}

export { ConfigError };
