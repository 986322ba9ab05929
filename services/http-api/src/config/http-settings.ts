import { isIP } from "node:net";
import { defaultMaxBodyBytes, isLoopbackHost } from "@deliberate/contracts";
import type { EnvReader } from "@deliberate/runtime";
import type { DatabaseTarget } from "@deliberate/store";

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

/** Who may call the API: the token, and whether running without one on a non-loopback address was allowed. */
export interface ApiAuth {
  readonly apiToken: string | undefined;
  readonly allowNoAuth: boolean;
}

/**
 * `REASONING_API_TOKEN` and `REASONING_API_ALLOW_NO_AUTH`. Listening beyond loopback without a token is refused
 * unless explicitly allowed (anything that can reach the port could spend model tokens), and a short token is refused.
 */
export function readApiAuth(reader: EnvReader, host: string): ApiAuth {
  const apiToken = reader.text("REASONING_API_TOKEN");
  const allowNoAuth = reader.flag("REASONING_API_ALLOW_NO_AUTH", false);
  if (apiToken === undefined && !isLoopbackHost(host) && !allowNoAuth) {
    reader.problem(
      `refusing to listen on ${host} without REASONING_API_TOKEN: anything that can reach it could use the API (and spend model tokens). ` +
        "Set REASONING_API_TOKEN to a long random secret, bind 127.0.0.1, or set REASONING_API_ALLOW_NO_AUTH=1 when an authenticating proxy sits in front",
      ["REASONING_API_TOKEN"],
    );
  }
  if (apiToken !== undefined && apiToken.length < 16) {
    reader.problem("REASONING_API_TOKEN must be at least 16 characters (use a long random secret)", [
      "REASONING_API_TOKEN",
    ]);
  }
  return { apiToken, allowNoAuth };
}

/**
 * The request-hygiene settings (`REASONING_API_*`, `REASONING_TRUST_PROXY`). `host` is the bind address (a named one
 * is accepted as Host), `database` picks the default rate-limit store (shared on Postgres).
 */
export function readHttpSettings(
  reader: EnvReader,
  { host, auth, database }: { host: string; auth: ApiAuth; database: DatabaseTarget },
): HttpSettings {
  const { integer, flag } = reader;
  const rateLimitStore = readRateLimitStore(reader, database);
  const allowedHosts = readHostList(reader, "REASONING_API_ALLOWED_HOSTS");
  if (allowedHosts.includes("*") && auth.apiToken === undefined && !auth.allowNoAuth) {
    reader.problem(
      "REASONING_API_ALLOWED_HOSTS=* turns off DNS-rebinding protection; it needs REASONING_API_TOKEN (or REASONING_API_ALLOW_NO_AUTH=1 behind an authenticating proxy), or list the host names instead",
      ["REASONING_API_ALLOWED_HOSTS"],
    );
  }
  // Clients that reach a named (non-wildcard) bind address send it as Host.
  if (!isLoopbackHost(host) && host !== "0.0.0.0" && host !== "::")
    allowedHosts.push(isIP(host) === 6 ? `[${host}]` : host.toLowerCase());
  const allowedOrigins = readHostList(reader, "REASONING_API_ALLOWED_ORIGINS").filter((item) => item !== "*");
  const headersTimeoutMs = integer("REASONING_API_HEADERS_TIMEOUT_MS", 10_000, { min: 100, max: 3_600_000 });
  const bodyTimeoutMs = integer("REASONING_API_BODY_TIMEOUT_MS", 30_000, { min: 100, max: 3_600_000 });
  if (headersTimeoutMs > bodyTimeoutMs) {
    reader.problem(
      "REASONING_API_HEADERS_TIMEOUT_MS must not exceed REASONING_API_BODY_TIMEOUT_MS (the body timeout covers the headers too)",
      ["REASONING_API_HEADERS_TIMEOUT_MS"],
    );
  }
  return {
    apiToken: auth.apiToken,
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
}

/** `REASONING_API_RATE_LIMIT_STORE`; unset, the database on Postgres (limits hold across replicas) and memory on SQLite. */
function readRateLimitStore(reader: EnvReader, database: DatabaseTarget): HttpSettings["rateLimitStore"] {
  const value = reader.text("REASONING_API_RATE_LIMIT_STORE")?.toLowerCase();
  if (value === "memory" || value === "database") return value;
  if (value !== undefined) {
    reader.problem(`REASONING_API_RATE_LIMIT_STORE must be memory or database (got "${value}")`, [
      "REASONING_API_RATE_LIMIT_STORE",
    ]);
  }
  return database.dialect === "postgres" ? "database" : "memory";
}

/** A comma-separated list of host names or origins, as lower-cased host names; `*` is kept as is. */
function readHostList(reader: EnvReader, name: string): string[] {
  const items = (reader.text(name) ?? "")
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "");
  const parsed: string[] = [];
  for (const item of items) {
    const value = item === "*" ? "*" : hostnameOf(item);
    if (value === undefined)
      reader.problem(`${name} must be comma-separated host names such as api.example.com (got "${item}")`, [name]);
    else parsed.push(value);
  }
  return parsed;
}

/** The host name of a host or origin setting's item (`api.example.com`, `https://api.example.com:8443`), lower-cased. */
function hostnameOf(item: string): string | undefined {
  try {
    const { hostname } = new URL(item.includes("://") ? item : `http://${item}`);
    return hostname === "" ? undefined : hostname.toLowerCase();
  } catch {
    return undefined;
  }
}
