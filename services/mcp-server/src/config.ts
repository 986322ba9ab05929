import { ConfigError, readList } from "@deliberate/base";
import { isIP } from "node:net";
import { parseArgs } from "node:util";
import { DeliberateError, defaultMaxBodyBytes, isLoopbackHost } from "@deliberate/contracts";
import { type KnowledgeGraphOptions, knowledgeGraphOptionsFromEnvironment } from "@deliberate/knowledge-graph";
import { parseProviderEnvironment, type ProviderSettings } from "@deliberate/providers";
import { type DatabaseTarget, databaseTargetFromEnvironment, defaultDatabasePath } from "@deliberate/store";
import { isLogLevel, logLevels, type LogLevel } from "./logger.ts";
import { defaultToolsets } from "./toolsets.ts";

/** Default port of the Streamable HTTP transport (`--port`, `MCP_HTTP_PORT`). */
export const defaultHttpPort = 8080;
/** Default bind address of the Streamable HTTP transport (`--host`, `MCP_HTTP_HOST`). */
export const defaultHttpHost = "127.0.0.1";

/** Settings of the Streamable HTTP transport. */
export interface HttpTransportConfig {
  kind: "http";
  host: string;
  /** 0 picks a free port (the bound port is logged). */
  port: number;
  /** `MCP_HTTP_TOKEN`: required as `Authorization: Bearer <token>` when set; mandatory off loopback. */
  token: string | undefined;
  /** Allowed `Host` header names besides the loopback ones (`MCP_ALLOWED_HOSTS`, plus a named bind host); `*` allows any. */
  allowedHosts: string[];
  /** Allowed `Origin` hostnames besides the loopback ones (`MCP_ALLOWED_ORIGINS`). */
  allowedOrigins: string[];
  /** `MCP_HTTP_HEADERS_TIMEOUT_MS`, default 10,000: a client must send its request headers within this (408, then closed). */
  headersTimeoutMs: number;
  /** `MCP_HTTP_BODY_TIMEOUT_MS`, default 30,000: the whole request, body included, must arrive within this (408, then closed). */
  bodyTimeoutMs: number;
  /** `MCP_HTTP_MAX_BODY_BYTES`, default 1 MiB like the HTTP API's (413 above). */
  maxBodyBytes?: number;
}

/** Default of `MCP_HTTP_HEADERS_TIMEOUT_MS`. */
export const defaultHeadersTimeoutMs = 10_000;
/** Default of `MCP_HTTP_BODY_TIMEOUT_MS`. */
export const defaultBodyTimeoutMs = 30_000;

/** The MCP clients `--print-config` writes a snippet for. */
export const configClients = ["claude-code", "claude-desktop"] as const;
export type ConfigClient = (typeof configClients)[number];

export type TransportConfig = { kind: "stdio" } | HttpTransportConfig;

/** Everything the server reads from its environment and command line, parsed once at start-up. */
export interface ServerConfig {
  providers: ProviderSettings;
  /**
   * `DELIBERATE_TOOLSETS`: the toolsets whose tools are listed and callable (comma-separated; `all` for every tool),
   * default `core`. Names are checked against the composed modules' toolsets at start-up.
   */
  toolsets: string[];
  /** `DELIBERATE_MODULES`: extra modules to serve (comma-separated package names or file paths). */
  modules: string[];
  /** The knowledge-graph module's lifecycle and limits (`KNOWLEDGE_GRAPH_*`). */
  knowledgeGraph: Partial<KnowledgeGraphOptions>;
  /** `DATABASE_PATH`, default `deliberate/deliberate.db` under the user's data directory (SQLite; see `defaultDatabasePath`). */
  databasePath: string;
  /** `DATABASE_URL=postgres://...` selects Postgres (replicas share it); otherwise SQLite at `databasePath`. */
  database: DatabaseTarget;
  /** `DATABASE_POOL_SIZE`, default 10: Postgres connections of this process. */
  databasePoolSize: number;
  /** `LOG_LEVEL`, default `info`. */
  logLevel: LogLevel;
  transport: TransportConfig;
  /** `HOST_COMPLETION_TTL_SECONDS`, default 3600: how long a host-executed call waits for its completions. */
  hostCompletionTtlSeconds: number;
}

/** Default of `HOST_COMPLETION_TTL_SECONDS`. */
export const defaultHostCompletionTtlSeconds = 3600;

/** The outcome of parsing: a config to run with, or a request for usage / version text. */
export type ParsedCommandLine =
  | { action: "run"; config: ServerConfig }
  | { action: "print-config"; client: ConfigClient; config: ServerConfig }
  | { action: "help" }
  | { action: "version" };


export const usage = `Usage: deliberate-mcp [--http] [--host <address>] [--port <port>]
       deliberate-mcp --print-config claude-code|claude-desktop

Deliberate's MCP server: structured reasoning tools for AI agents.

  (no flags)        serve MCP over stdio (stdout carries JSON-RPC only; logs go to stderr)
  --http            serve Streamable HTTP at http://<host>:<port>/mcp (also MCP_TRANSPORT=http)
  --host <address>  bind address for --http (MCP_HTTP_HOST, default ${defaultHttpHost});
                    any non-loopback address requires MCP_HTTP_TOKEN
  --port <port>     port for --http (MCP_HTTP_PORT, default ${defaultHttpPort}; 0 picks a free one)
  --print-config <client>
                    print a snippet to paste into the client's configuration
                    (claude-code: a \`claude mcp add\` command; claude-desktop: JSON)
  --help, -h        print this help
  --version, -v     print the version

Toolsets: DELIBERATE_TOOLSETS=core,analysis,dialog,knowledge-graph,workflows (or all) chooses the tools
served (default ${defaultToolsets.join(",")}); --print-config lists each toolset's tools.

Environment: DATABASE_URL (postgres://...), DATABASE_PATH, DELIBERATE_TOOLSETS, DELIBERATE_MODULES, LOG_LEVEL, DELIBERATE_PROVIDER, ANTHROPIC_API_KEY,
OPENAI_API_KEY, OPENAI_BASE_URL, DELIBERATE_KEYLESS_ORDER, HOST_COMPLETION_TTL_SECONDS,
MCP_HTTP_TOKEN, MCP_ALLOWED_HOSTS, MCP_ALLOWED_ORIGINS, MCP_HTTP_HEADERS_TIMEOUT_MS,
MCP_HTTP_BODY_TIMEOUT_MS, ... (see the README).`;

type Environment = Record<string, string | undefined>;

/** Reads a variable; empty or blank counts as unset. */
function read(env: Environment, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === "" ? undefined : value;
}

/** True for this machine's loopback names (shared with the HTTP API: `isLoopbackHost` of @deliberate/contracts). */
export { isLoopbackHost };

/** True for the "every interface" addresses. */
function isWildcardHost(host: string): boolean {
  return host === "0.0.0.0" || host === "::" || host === "[::]";
}

function parsePort(value: string, source: string): number {
  const port = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new ConfigError(`${source} must be a port number from 0 to 65535 (got "${value}").`, [source]);
  }
  return port;
}

function parseHost(value: string, source: string): string {
  const bare = value.startsWith("[") && value.endsWith("]") ? value.slice(1, -1) : value;
  if (isIP(bare) !== 0) return bare;
  if (/^[a-zA-Z0-9]([a-zA-Z0-9.-]*[a-zA-Z0-9])?$/.test(bare)) return bare.toLowerCase();
  throw new ConfigError(`${source} must be an IP address or host name, e.g. 127.0.0.1 or 0.0.0.0 (got "${value}").`, [source]);
}

/** `MCP_ALLOWED_HOSTS`: comma-separated host names (ports are ignored), or `*`. */
function parseAllowedHosts(value: string | undefined): string[] {
  if (value === undefined) return [];
  const hosts: string[] = [];
  for (const item of value.split(",").map((part) => part.trim()).filter((part) => part !== "")) {
    if (item === "*") {
      hosts.push("*");
      continue;
    }
    let hostname: string;
    try {
      hostname = new URL(`http://${item}`).hostname;
    } catch {
      throw new ConfigError(`MCP_ALLOWED_HOSTS must be comma-separated host names such as mcp.example.com (got "${item}").`, ["MCP_ALLOWED_HOSTS"]);
    }
    hosts.push(hostname);
  }
  return hosts;
}

/**
 * `MCP_ALLOWED_ORIGINS`: comma-separated origins (`https://app.example.com`), bare
 * host names, or `<scheme>://*` for browser-extension schemes. Reduced to the
 * hostnames the SDK's origin check compares (it ignores scheme and port).
 */
function parseAllowedOrigins(value: string | undefined): string[] {
  if (value === undefined) return [];
  const origins: string[] = [];
  for (const item of value.split(",").map((part) => part.trim()).filter((part) => part !== "")) {
    if (/^[a-z][a-z0-9+.-]*:\/\/\*$/.test(item) && item !== "http://*" && item !== "https://*") {
      origins.push(item);
      continue;
    }
    let hostname: string;
    try {
      hostname = new URL(item.includes("://") ? item : `http://${item}`).hostname;
    } catch {
      hostname = "";
    }
    if (hostname === "") {
      throw new ConfigError(
        `MCP_ALLOWED_ORIGINS must be comma-separated origins such as https://app.example.com (got "${item}").`,
        ["MCP_ALLOWED_ORIGINS"],
      );
    }
    origins.push(hostname);
  }
  return origins;
}

function parseTransport(flags: { http?: boolean; host?: string; port?: string }, env: Environment): TransportConfig {
  const transportVariable = read(env, "MCP_TRANSPORT")?.toLowerCase();
  if (transportVariable !== undefined && transportVariable !== "stdio" && transportVariable !== "http") {
    throw new ConfigError(`MCP_TRANSPORT must be stdio or http (got "${env["MCP_TRANSPORT"]}").`, ["MCP_TRANSPORT"]);
  }
  const http = flags.http === true || transportVariable === "http";
  if (!http) {
    if (flags.host !== undefined || flags.port !== undefined) {
      throw new ConfigError("--host and --port apply to the HTTP transport only: add --http.", ["--http"]);
    }
    return { kind: "stdio" };
  }

  const hostSource = flags.host !== undefined ? "--host" : "MCP_HTTP_HOST";
  const host = parseHost(flags.host ?? read(env, "MCP_HTTP_HOST") ?? defaultHttpHost, hostSource);
  const portValue = flags.port ?? read(env, "MCP_HTTP_PORT");
  const port = portValue === undefined ? defaultHttpPort : parsePort(portValue, flags.port !== undefined ? "--port" : "MCP_HTTP_PORT");
  const token = read(env, "MCP_HTTP_TOKEN");
  if (!isLoopbackHost(host) && token === undefined) {
    throw new ConfigError(
      `Refusing to serve HTTP on ${host} without a token: any machine that can reach it could use the server. ` +
        "Set MCP_HTTP_TOKEN to a long random secret (clients then send Authorization: Bearer <token>), or bind 127.0.0.1.",
      ["MCP_HTTP_TOKEN", hostSource],
    );
  }
  const allowedHosts = parseAllowedHosts(read(env, "MCP_ALLOWED_HOSTS"));
  if (allowedHosts.includes("*") && token === undefined) {
    throw new ConfigError(
      "MCP_ALLOWED_HOSTS=* turns off DNS-rebinding protection; it needs MCP_HTTP_TOKEN too, or list the host names instead.",
      ["MCP_ALLOWED_HOSTS", "MCP_HTTP_TOKEN"],
    );
  }
  // Clients that reach a named (non-wildcard) bind address send it as Host.
  if (!isWildcardHost(host) && !isLoopbackHost(host)) allowedHosts.push(isIP(host) === 6 ? `[${host}]` : host);
  const headersTimeoutMs = parseMilliseconds(env, "MCP_HTTP_HEADERS_TIMEOUT_MS", defaultHeadersTimeoutMs);
  const bodyTimeoutMs = parseMilliseconds(env, "MCP_HTTP_BODY_TIMEOUT_MS", defaultBodyTimeoutMs);
  if (headersTimeoutMs > bodyTimeoutMs) {
    throw new ConfigError(
      `MCP_HTTP_HEADERS_TIMEOUT_MS (${headersTimeoutMs}) must not exceed MCP_HTTP_BODY_TIMEOUT_MS (${bodyTimeoutMs}): the body timeout covers the headers too.`,
      ["MCP_HTTP_HEADERS_TIMEOUT_MS", "MCP_HTTP_BODY_TIMEOUT_MS"],
    );
  }
  return {
    kind: "http",
    host,
    port,
    token,
    allowedHosts,
    allowedOrigins: parseAllowedOrigins(read(env, "MCP_ALLOWED_ORIGINS")),
    headersTimeoutMs,
    bodyTimeoutMs,
    maxBodyBytes: parseBodyLimit(read(env, "MCP_HTTP_MAX_BODY_BYTES")),
  };
}

/** `MCP_HTTP_MAX_BODY_BYTES`: whole bytes from 1 KiB to 64 MiB; default `defaultMaxBodyBytes` (1 MiB, as the HTTP API). */
function parseBodyLimit(value: string | undefined): number {
  if (value === undefined) return defaultMaxBodyBytes;
  const bytes = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(bytes) || bytes < 1024 || bytes > 64 * 1024 * 1024) {
    throw new ConfigError(`MCP_HTTP_MAX_BODY_BYTES must be a whole number of bytes from 1024 to 67108864 (got "${value}").`, ["MCP_HTTP_MAX_BODY_BYTES"]);
  }
  return bytes;
}

/** A timeout variable: whole milliseconds from 100 to one hour. */
function parseMilliseconds(env: Environment, name: string, fallback: number): number {
  const value = read(env, name);
  if (value === undefined) return fallback;
  const parsed = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(parsed) || parsed < 100 || parsed > 3_600_000) {
    throw new ConfigError(`${name} must be a whole number of milliseconds from 100 to 3600000 (got "${value}").`, [name]);
  }
  return parsed;
}

/** `DELIBERATE_TOOLSETS`: lower-cased names, each once; unset or blank is the default. */
function parseToolsets(env: Environment): string[] {
  const names = [...new Set(readList(env["DELIBERATE_TOOLSETS"]).map((name) => name.toLowerCase()))];
  return names.length > 0 ? names : [...defaultToolsets];
}

function parseProviders(env: Environment): ProviderSettings {
  try {
    return parseProviderEnvironment(env);
  } catch (error) {
    if (DeliberateError.isInstance(error)) {
      const variables = error.issues.map((issue) => issue.field);
      throw new ConfigError(error.message, variables.length > 0 ? variables : ["provider configuration"]);
    }
    throw error;
  }
}

/**
 * Parses the command line and environment once into a typed config.
 *
 * @throws ConfigError naming the variable or flag at fault.
 */
export function parseCommandLine(options: { argv: readonly string[]; env: Environment }): ParsedCommandLine {
  let flags: { http?: boolean; host?: string; port?: string; help?: boolean; version?: boolean; "print-config"?: string };
  try {
    ({ values: flags } = parseArgs({
      args: [...options.argv],
      options: {
        http: { type: "boolean" },
        host: { type: "string" },
        port: { type: "string" },
        help: { type: "boolean", short: "h" },
        version: { type: "boolean", short: "v" },
        "print-config": { type: "string" },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new ConfigError(`${(error as Error).message}\n\n${usage}`, ["command line"]);
  }
  if (flags.help) return { action: "help" };
  if (flags.version) return { action: "version" };
  const client = flags["print-config"];
  if (client !== undefined && !(configClients as readonly string[]).includes(client)) {
    throw new ConfigError(`--print-config takes ${configClients.join(" or ")} (got "${client}").`, ["--print-config"]);
  }

  const env = options.env;
  const logLevelValue = read(env, "LOG_LEVEL")?.toLowerCase();
  if (logLevelValue !== undefined && !isLogLevel(logLevelValue)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${logLevels.join(", ")} (got "${env["LOG_LEVEL"]}").`, ["LOG_LEVEL"]);
  }
  const transport = parseTransport(flags, env);
  const providers = parseProviders(env);
  const ttlValue = read(env, "HOST_COMPLETION_TTL_SECONDS");
  const hostCompletionTtlSeconds = ttlValue === undefined ? defaultHostCompletionTtlSeconds : Number(ttlValue);
  if (!/^\d+$/.test(ttlValue ?? "1") || !Number.isSafeInteger(hostCompletionTtlSeconds) || hostCompletionTtlSeconds < 1) {
    throw new ConfigError(`HOST_COMPLETION_TTL_SECONDS must be a whole number of seconds >= 1 (got "${ttlValue}").`, ["HOST_COMPLETION_TTL_SECONDS"]);
  }
  const database = databaseTargetFromEnvironment(env);
  const poolValue = read(env, "DATABASE_POOL_SIZE");
  const databasePoolSize = poolValue === undefined ? 10 : Number(poolValue);
  if (!/^\d+$/.test(poolValue ?? "1") || databasePoolSize < 1 || databasePoolSize > 1000) {
    throw new ConfigError(`DATABASE_POOL_SIZE must be a whole number from 1 to 1000 (got "${poolValue}").`, ["DATABASE_POOL_SIZE"]);
  }
  const config: ServerConfig = {
    providers,
    databasePath: read(env, "DATABASE_PATH") ?? defaultDatabasePath({ env }),
    database,
    databasePoolSize,
    modules: readList(env["DELIBERATE_MODULES"]),
    toolsets: parseToolsets(env),
    knowledgeGraph: knowledgeGraphOptionsFromEnvironment(env),
    logLevel: logLevelValue ?? "info",
    transport,
    hostCompletionTtlSeconds,
  };
  return client === undefined ? { action: "run", config } : { action: "print-config", client: client as ConfigClient, config };
}

export { ConfigError };
