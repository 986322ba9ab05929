import { ConfigError } from "@deliberate/base";
import { createEnvReader, type ModuleSettings, readCommonSettings } from "@deliberate/runtime";
import { isIP } from "node:net";
import { defaultMaxBodyBytes, isLoopbackHost } from "@deliberate/contracts";
import type { KnowledgeGraphOptions } from "@deliberate/knowledge-graph";
import type { ProviderSettings } from "@deliberate/providers";
import type { DatabaseTarget } from "@deliberate/store";
import type { LogLevel } from "./logger.ts";
import type { HostPromptForm } from "@deliberate/engine";

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

/** Request hygiene. */
export interface HttpSettings {
  /** `REASONING_API_TOKEN`: when set, every route except health and docs needs `Authorization: Bearer <token>`. */
  apiToken: string | undefined;
  /** `REASONING_API_MAX_BODY_BYTES`, default 1 MiB (413 above). */
  maxBodyBytes: number;
  /** `REASONING_API_RATE_LIMIT`, default 600 requests per window per client (429 above); 0 turns it off. */
  rateLimit: number;
  /** `REASONING_API_RATE_WINDOW_MS`, default 60,000. */
  rateWindowMs: number;
  /** `REASONING_API_REQUEST_TIMEOUT_MS`, default 120,000: aborts the model work of a request (504). */
  requestTimeoutMs: number;
  /** `REASONING_TRUST_PROXY=1`: take the client address from X-Forwarded-For (rate limiting). */
  trustProxy: boolean;
  /** `REASONING_API_FAST_PATH`, default 1: the hottest routes are answered below Hono with the same checks; 0 serves every request through Hono. */
  fastPath: boolean;
  /**
   * `REASONING_API_RATE_LIMIT_STORE`: `database` counts in the `rate_limits`
   * table, so the limit holds across replicas (the default on Postgres);
   * `memory` counts per process (the default on SQLite).
   */
  rateLimitStore: "memory" | "database";
  /**
   * `REASONING_API_ALLOWED_HOSTS`: `Host` header names accepted besides the
   * loopback ones (plus a named bind address); `*` accepts any (needs a token).
   * Anything else is refused with 403 (DNS-rebinding protection).
   */
  allowedHosts: string[];
  /** `REASONING_API_ALLOWED_ORIGINS`: browser `Origin` hostnames accepted besides the loopback ones (403 otherwise). */
  allowedOrigins: string[];
  /** `REASONING_API_AUTH_FAILURE_LIMIT`, default 10: wrong or missing tokens per client per window before 429. */
  authFailureLimit: number;
  /** `REASONING_API_AUTH_FAILURE_WINDOW_MS`, default 300,000: the window of the auth failure limit (also the lockout). */
  authFailureWindowMs: number;
  /** `REASONING_API_HEADERS_TIMEOUT_MS`, default 10,000: a client must send its request headers within this (408, then closed). */
  headersTimeoutMs: number;
  /** `REASONING_API_BODY_TIMEOUT_MS`, default 30,000: the whole request, body included, must arrive within this (408, then closed). */
  bodyTimeoutMs: number;
}

/** The durable queue and its in-process worker pool. */
export interface QueueSettings {
  /** `REASONING_QUEUE_WORKER=0` disables the workers (jobs are still accepted and stored). */
  enabled: boolean;
  /** `REASONING_QUEUE_WORKERS`, default 4: jobs processed at once by this process. */
  workers: number;
  /** `REASONING_QUEUE_POLL_MS`, default 50: how often idle workers look for jobs. */
  pollMs: number;
  /** `REASONING_QUEUE_LEASE_MS`, default 30,000: a job held by a process that stops renewing it is taken back after this. */
  leaseMs: number;
  /** `REASONING_QUEUE_MAX_ATTEMPTS`, default 3: processing attempts before a job whose workers keep dying fails. */
  maxAttempts: number;
  /** `REASONING_QUEUE_STATUS_MS`, default 60,000: the status line is logged at least this often (and on change). */
  statusMs: number;
  /** `REASONING_QUEUE_STATUS_POLL_MS`, default 1,000: how often counts are checked for changes. */
  statusPollMs: number;
}

/** Delivery of async results to callback URLs. */
export interface CallbackSettings {
  /**
   * `REASONING_CALLBACK_ALLOWLIST`: comma-separated host names or IP addresses
   * that may be called back even though they resolve to private, loopback,
   * link-local or otherwise internal addresses (which are refused otherwise).
   */
  allowlist: string[];
  /** `REASONING_CALLBACK_TIMEOUT_MS`, default 10,000 per attempt. */
  timeoutMs: number;
  /** `REASONING_CALLBACK_RETRIES`, default 5: attempts after the first on 5xx, 408, 429 and network errors. */
  retries: number;
  /** `REASONING_CALLBACK_BACKOFF_MS`, default 500: first retry delay, doubled each time (with jitter). */
  backoffMs: number;
  /** `REASONING_CALLBACK_SECRET`: when set, each callback carries `X-Deliberate-Signature: sha256=<HMAC of the body>`. */
  secret: string | undefined;
}


export const defaultPort = 9000;
export const defaultHost = "127.0.0.1";

/** Reads a variable; empty or blank counts as unset. */
function read(env: Environment, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === "" ? undefined : value;
}

/** True for this machine's loopback names (shared with the MCP server: `isLoopbackHost` of @deliberate/contracts). */
export { isLoopbackHost };

/** The host name of a host or origin setting's item (`api.example.com`, `https://api.example.com:8443`), lower-cased. */
function hostnameOf(item: string): string | undefined {
  try {
    const { hostname } = new URL(item.includes("://") ? item : `http://${item}`);
    return hostname === "" ? undefined : hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

/**
 * Parses the environment into a typed config, collecting every problem.
 *
 * @throws ConfigError naming every invalid variable (one error for all of them).
 */
export function parseApiEnvironment(env: Environment): ApiConfig {
  const reader = createEnvReader(env);
  const common = readCommonSettings(reader);
  const { integer, flag } = reader;
  const problems = { push: (problem: { variable: string; message: string }) => reader.problem(problem.message, [problem.variable]) };
  const hostVariable = read(env, "HOST") !== undefined ? "HOST" : "UVICORN_HOST";
  const rawHost = read(env, hostVariable) ?? defaultHost;
  const host = rawHost.startsWith("[") && rawHost.endsWith("]") ? rawHost.slice(1, -1) : rawHost;
  if (isIP(host) === 0 && !/^[a-zA-Z0-9]([a-zA-Z0-9.-]*[a-zA-Z0-9])?$/.test(host)) {
    problems.push({ variable: hostVariable, message: `${hostVariable} must be an IP address or host name, e.g. 127.0.0.1 or 0.0.0.0 (got "${rawHost}")` });
  }
  const port = integer(read(env, "PORT") !== undefined ? "PORT" : "UVICORN_PORT", defaultPort, { min: 0, max: 65_535 });

  const apiToken = read(env, "REASONING_API_TOKEN");
  const allowNoAuth = flag("REASONING_API_ALLOW_NO_AUTH", false);
  if (apiToken === undefined && !isLoopbackHost(host) && !allowNoAuth) {
    problems.push({
      variable: "REASONING_API_TOKEN",
      message:
        `refusing to listen on ${host} without REASONING_API_TOKEN: anything that can reach it could use the API (and spend model tokens). ` +
        "Set REASONING_API_TOKEN to a long random secret, bind 127.0.0.1, or set REASONING_API_ALLOW_NO_AUTH=1 when an authenticating proxy sits in front",
    });
  }
  if (apiToken !== undefined && apiToken.length < 16) {
    problems.push({ variable: "REASONING_API_TOKEN", message: "REASONING_API_TOKEN must be at least 16 characters (use a long random secret)" });
  }

  const allowlist = (read(env, "REASONING_CALLBACK_ALLOWLIST") ?? "")
    .split(",")
    .map((item) => item.trim().toLowerCase())
    .filter((item) => item !== "")
    .map((item) => (item.startsWith("[") && item.endsWith("]") ? item.slice(1, -1) : item));
  for (const item of allowlist) {
    if (isIP(item) === 0 && !/^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/.test(item)) {
      problems.push({ variable: "REASONING_CALLBACK_ALLOWLIST", message: `REASONING_CALLBACK_ALLOWLIST entries must be host names or IP addresses without scheme or port (got "${item}")` });
    }
  }

  const { database } = common;
  const rateLimitStoreValue = read(env, "REASONING_API_RATE_LIMIT_STORE")?.toLowerCase();
  if (rateLimitStoreValue !== undefined && rateLimitStoreValue !== "memory" && rateLimitStoreValue !== "database") {
    problems.push({ variable: "REASONING_API_RATE_LIMIT_STORE", message: `REASONING_API_RATE_LIMIT_STORE must be memory or database (got "${rateLimitStoreValue}")` });
  }
  const rateLimitStore: HttpSettings["rateLimitStore"] =
    rateLimitStoreValue === "memory" || rateLimitStoreValue === "database" ? rateLimitStoreValue : database.dialect === "postgres" ? "database" : "memory";
  const hostList = (name: string, parse: (item: string) => string | undefined): string[] => {
    const items = (read(env, name) ?? "").split(",").map((item) => item.trim()).filter((item) => item !== "");
    const parsed: string[] = [];
    for (const item of items) {
      const value = item === "*" ? "*" : parse(item);
      if (value === undefined) problems.push({ variable: name, message: `${name} must be comma-separated host names such as api.example.com (got "${item}")` });
      else parsed.push(value);
    }
    return parsed;
  };
  const allowedHosts = hostList("REASONING_API_ALLOWED_HOSTS", hostnameOf);
  if (allowedHosts.includes("*") && apiToken === undefined && !allowNoAuth) {
    problems.push({
      variable: "REASONING_API_ALLOWED_HOSTS",
      message: "REASONING_API_ALLOWED_HOSTS=* turns off DNS-rebinding protection; it needs REASONING_API_TOKEN (or REASONING_API_ALLOW_NO_AUTH=1 behind an authenticating proxy), or list the host names instead",
    });
  }
  // Clients that reach a named (non-wildcard) bind address send it as Host.
  if (!isLoopbackHost(host) && host !== "0.0.0.0" && host !== "::") allowedHosts.push(isIP(host) === 6 ? `[${host}]` : host.toLowerCase());
  const allowedOrigins = hostList("REASONING_API_ALLOWED_ORIGINS", hostnameOf).filter((item) => item !== "*");
  const headersTimeoutMs = integer("REASONING_API_HEADERS_TIMEOUT_MS", 10_000, { min: 100, max: 3_600_000 });
  const bodyTimeoutMs = integer("REASONING_API_BODY_TIMEOUT_MS", 30_000, { min: 100, max: 3_600_000 });
  if (headersTimeoutMs > bodyTimeoutMs) {
    problems.push({ variable: "REASONING_API_HEADERS_TIMEOUT_MS", message: "REASONING_API_HEADERS_TIMEOUT_MS must not exceed REASONING_API_BODY_TIMEOUT_MS (the body timeout covers the headers too)" });
  }

  const http: HttpSettings = {
    apiToken,
    allowedHosts,
    allowedOrigins,
    authFailureLimit: integer("REASONING_API_AUTH_FAILURE_LIMIT", 10, { min: 1 }),
    authFailureWindowMs: integer("REASONING_API_AUTH_FAILURE_WINDOW_MS", 300_000, { min: 100 }),
    headersTimeoutMs,
    bodyTimeoutMs,
    maxBodyBytes: integer("REASONING_API_MAX_BODY_BYTES", defaultMaxBodyBytes, { min: 1024 }),
    rateLimit: integer("REASONING_API_RATE_LIMIT", 600, { min: 0 }),
    rateWindowMs: integer("REASONING_API_RATE_WINDOW_MS", 60_000, { min: 100 }),
    requestTimeoutMs: integer("REASONING_API_REQUEST_TIMEOUT_MS", 120_000, { min: 100 }),
    trustProxy: flag("REASONING_TRUST_PROXY", false),
    fastPath: flag("REASONING_API_FAST_PATH", true),
    rateLimitStore,
  };
  const queue: QueueSettings = {
    enabled: flag("REASONING_QUEUE_WORKER", true),
    workers: integer("REASONING_QUEUE_WORKERS", 4, { min: 1, max: 256 }),
    pollMs: integer("REASONING_QUEUE_POLL_MS", 50, { min: 1 }),
    leaseMs: integer("REASONING_QUEUE_LEASE_MS", 30_000, { min: 100 }),
    maxAttempts: integer("REASONING_QUEUE_MAX_ATTEMPTS", 3, { min: 1, max: 100 }),
    statusMs: integer("REASONING_QUEUE_STATUS_MS", 60_000, { min: 100 }),
    statusPollMs: integer("REASONING_QUEUE_STATUS_POLL_MS", 1000, { min: 10 }),
  };
  const callbacks: CallbackSettings = {
    allowlist,
    timeoutMs: integer("REASONING_CALLBACK_TIMEOUT_MS", 10_000, { min: 100 }),
    retries: integer("REASONING_CALLBACK_RETRIES", 5, { min: 0, max: 20 }),
    backoffMs: integer("REASONING_CALLBACK_BACKOFF_MS", 500, { min: 1 }),
    secret: read(env, "REASONING_CALLBACK_SECRET"),
  };
  const shutdownGraceMs = integer("REASONING_SHUTDOWN_GRACE_MS", 10_000, { min: 0 });
  const logStdout = flag("REASONING_LOG_STDOUT", false);

  reader.finish();
  return {
    host,
    port,
    databasePath: common.databasePath,
    database,
    databasePoolSize: common.databasePoolSize,
    modules: common.modules,
    knowledgeGraph: common.knowledgeGraph,
    logLevel: common.logLevel,
    hostCompletionTtlSeconds: common.hostCompletionTtlSeconds,
    moduleSettings: common.moduleSettings,
    hostPrompts: common.hostPrompts,
    logFile: read(env, "REASONING_LOG_FILE"),
    logStdout,
    http,
    queue,
    callbacks,
    providers: common.providers,
    shutdownGraceMs,
  };
}

export { ConfigError };
