import { ConfigError, readList } from "@deliberate/base";
import {
  createEnvReader,
  type ModuleSettings,
  defaultHostCompletionTtlSeconds,
  type EnvReader,
  readCommonSettings,
} from "@deliberate/runtime";
import { isIP } from "node:net";
import { parseArgs } from "node:util";
import { defaultMaxBodyBytes, isLoopbackHost } from "@deliberate/contracts";
import type { KnowledgeGraphOptions } from "@deliberate/knowledge-graph";
import type { ProviderSettings } from "@deliberate/providers";
import type { DatabaseTarget } from "@deliberate/store";
import type { LogLevel } from "./logger.ts";
import { defaultToolsets } from "./toolsets.ts";
import type { HostPromptForm } from "@deliberate/engine";

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
  /** The default modules' options, from the variables each module declares (`DELIBERATE_SELF_IMPROVEMENT_*`, ...). */
  moduleSettings: ModuleSettings;
  /** `LOG_LEVEL`, default `info`. */
  logLevel: LogLevel;
  transport: TransportConfig;
  /** `HOST_COMPLETION_TTL_SECONDS`, default 3600: how long a host-executed call waits for its completions. */
  hostCompletionTtlSeconds: number;
  /** `DELIBERATE_HOST_PROMPTS`, default `compact`: how needs_completion steps carry their prompts (`full` for hosts written before 0.x's compact form). */
  hostPrompts: HostPromptForm;
}

/** Default of `HOST_COMPLETION_TTL_SECONDS`. */
export { defaultHostCompletionTtlSeconds };

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
  throw new ConfigError(`${source} must be an IP address or host name, e.g. 127.0.0.1 or 0.0.0.0 (got "${value}").`, [
    source,
  ]);
}

/** `MCP_ALLOWED_HOSTS`: comma-separated host names (ports are ignored), or `*`. */
function parseAllowedHosts(value: string | undefined): string[] {
  if (value === undefined) return [];
  const hosts: string[] = [];
  for (const item of value
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part !== "")) {
    if (item === "*") {
      hosts.push("*");
      continue;
    }
    let hostname: string;
    try {
      hostname = new URL(`http://${item}`).hostname;
    } catch {
      throw new ConfigError(
        `MCP_ALLOWED_HOSTS must be comma-separated host names such as mcp.example.com (got "${item}").`,
        ["MCP_ALLOWED_HOSTS"],
      );
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
  for (const item of value
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part !== "")) {
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

function parseTransport(flags: { http?: boolean; host?: string; port?: string }, reader: EnvReader): TransportConfig {
  const { env } = reader;
  const transportVariable = read(env, "MCP_TRANSPORT")?.toLowerCase();
  if (transportVariable !== undefined && transportVariable !== "stdio" && transportVariable !== "http") {
    reader.problem(`MCP_TRANSPORT must be stdio or http (got "${env["MCP_TRANSPORT"]}").`, ["MCP_TRANSPORT"]);
  }
  const http = flags.http === true || transportVariable === "http";
  if (!http) {
    if (flags.host !== undefined || flags.port !== undefined)
      reader.problem("--host and --port apply to the HTTP transport only: add --http.", ["--http"]);
    return { kind: "stdio" };
  }

  const hostSource = flags.host !== undefined ? "--host" : "MCP_HTTP_HOST";
  const host = reader.attempt(
    () => parseHost(flags.host ?? read(env, "MCP_HTTP_HOST") ?? defaultHttpHost, hostSource),
    defaultHttpHost,
  );
  const portValue = flags.port ?? read(env, "MCP_HTTP_PORT");
  const port =
    portValue === undefined
      ? defaultHttpPort
      : reader.attempt(
          () => parsePort(portValue, flags.port !== undefined ? "--port" : "MCP_HTTP_PORT"),
          defaultHttpPort,
        );
  const token = read(env, "MCP_HTTP_TOKEN");
  if (!isLoopbackHost(host) && token === undefined) {
    reader.problem(
      `Refusing to serve HTTP on ${host} without a token: any machine that can reach it could use the server. ` +
        "Set MCP_HTTP_TOKEN to a long random secret (clients then send Authorization: Bearer <token>), or bind 127.0.0.1.",
      ["MCP_HTTP_TOKEN", hostSource],
    );
  }
  const allowedHosts = reader.attempt(() => parseAllowedHosts(read(env, "MCP_ALLOWED_HOSTS")), []);
  if (allowedHosts.includes("*") && token === undefined) {
    reader.problem(
      "MCP_ALLOWED_HOSTS=* turns off DNS-rebinding protection; it needs MCP_HTTP_TOKEN too, or list the host names instead.",
      ["MCP_ALLOWED_HOSTS", "MCP_HTTP_TOKEN"],
    );
  }
  // Clients that reach a named (non-wildcard) bind address send it as Host.
  if (!isWildcardHost(host) && !isLoopbackHost(host)) allowedHosts.push(isIP(host) === 6 ? `[${host}]` : host);
  const milliseconds = { min: 100, max: 3_600_000, unit: "milliseconds" };
  const headersTimeoutMs = reader.integer("MCP_HTTP_HEADERS_TIMEOUT_MS", defaultHeadersTimeoutMs, milliseconds);
  const bodyTimeoutMs = reader.integer("MCP_HTTP_BODY_TIMEOUT_MS", defaultBodyTimeoutMs, milliseconds);
  if (headersTimeoutMs > bodyTimeoutMs) {
    reader.problem(
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
    allowedOrigins: reader.attempt(() => parseAllowedOrigins(read(env, "MCP_ALLOWED_ORIGINS")), []),
    headersTimeoutMs,
    bodyTimeoutMs,
    maxBodyBytes: reader.integer("MCP_HTTP_MAX_BODY_BYTES", defaultMaxBodyBytes, {
      min: 1024,
      max: 64 * 1024 * 1024,
      unit: "bytes",
    }),
  };
}

/** `DELIBERATE_TOOLSETS`: lower-cased names, each once; unset or blank is the default. */
function parseToolsets(env: Environment): string[] {
  const names = [...new Set(readList(env["DELIBERATE_TOOLSETS"]).map((name) => name.toLowerCase()))];
  return names.length > 0 ? names : [...defaultToolsets];
}

/**
 * Parses the command line and environment once into a typed config.
 *
 * @throws ConfigError naming every variable or flag at fault (one error for all of them).
 */
export function parseCommandLine(options: { argv: readonly string[]; env: Environment }): ParsedCommandLine {
  let flags: {
    http?: boolean;
    host?: string;
    port?: string;
    help?: boolean;
    version?: boolean;
    "print-config"?: string;
  };
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

  const reader = createEnvReader(options.env);
  const common = readCommonSettings(reader);
  const transport = parseTransport(flags, reader);
  reader.finish();
  const config: ServerConfig = {
    providers: common.providers,
    databasePath: common.databasePath,
    database: common.database,
    databasePoolSize: common.databasePoolSize,
    modules: common.modules,
    toolsets: parseToolsets(options.env),
    knowledgeGraph: common.knowledgeGraph,
    moduleSettings: common.moduleSettings,
    logLevel: common.logLevel,
    transport,
    hostCompletionTtlSeconds: common.hostCompletionTtlSeconds,
    hostPrompts: common.hostPrompts,
  };
  return client === undefined
    ? { action: "run", config }
    : { action: "print-config", client: client as ConfigClient, config };
}

export { ConfigError };
