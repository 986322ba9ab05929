import { DeliberateClientError } from "../errors.ts";

/** Connection settings of the REST surface; every field may come from the environment. */
export interface HttpConnectionOptions {
  /** Base URL of `deliberate-api`; env `REASONING_API_URL`, default `http://127.0.0.1:9000`. */
  baseUrl?: string;
  /** Bearer token; env `REASONING_API_TOKEN`. */
  token?: string;
  /** Per-call timeout in ms; env `REASONING_API_TIMEOUT_MS`. */
  timeoutMs?: number;
  /** Retries after the first attempt on transient failures; env `REASONING_API_RETRIES`, default 2. */
  retries?: number;
  /** `Accept-Version` sent with every request; env `REASONING_API_VERSION`, default `v1`. */
  version?: string;
  /** First backoff delay in ms (doubled per retry, with jitter); default 250. */
  backoffMs?: number;
  /** Longest wait before a retry, Retry-After included, in ms; default 30,000. */
  maxRetryDelayMs?: number;
  /** The fetch to use (a runtime's own, or a wrapper); default `globalThis.fetch`. */
  fetch?: typeof fetch;
  /** Extra headers sent with every request. */
  headers?: Record<string, string>;
  /** Where `REASONING_API_*` are read from; default `process.env` where it exists, else nothing. */
  env?: Record<string, string | undefined>;
}

/** The settings with every default applied. */
export interface HttpConnection {
  baseUrl: string;
  token: string | undefined;
  timeoutMs: number;
  retries: number;
  version: string;
  backoffMs: number;
  maxRetryDelayMs: number;
  fetch: typeof fetch;
  headers: Record<string, string>;
}

/** The spec's defaults (agent-intent-api.md, the Ruby client's environment). */
export const httpDefaults = {
  baseUrl: "http://127.0.0.1:9000",
  timeoutMs: 5_000,
  retries: 2,
  version: "v1",
  backoffMs: 250,
  maxRetryDelayMs: 30_000,
} as const;

/** `process.env` when the runtime has one (Node, Bun, Deno with permissions); nothing in browsers and edge runtimes. */
export function runtimeEnvironment(): Record<string, string | undefined> {
  const candidate = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process;
  return candidate?.env ?? {};
}

function configurationError(variable: string, message: string): DeliberateClientError {
  return new DeliberateClientError({
    code: "CONFIGURATION",
    message: `${variable} ${message}`,
    issues: [{ field: variable, message }],
    hint: `Fix ${variable} (option or environment variable).`,
  });
}

function wholeNumber(value: number | string | undefined, variable: string, minimum: number): number | undefined {
  if (value === undefined || value === "") return undefined;
  const number = typeof value === "number" ? value : Number(value.trim());
  if (!Number.isInteger(number) || number < minimum)
    throw configurationError(variable, `must be a whole number >= ${minimum}, not '${value}'`);
  return number;
}

/**
 * Resolves connection settings: options first, then `REASONING_API_URL`,
 * `_TOKEN`, `_TIMEOUT_MS`, `_RETRIES`, `_VERSION`, then `defaults`. A bad value
 * is a CONFIGURATION error naming the setting.
 */
export function resolveHttpConnection(
  options: HttpConnectionOptions = {},
  defaults: { timeoutMs?: number } = {},
): HttpConnection {
  const env = options.env ?? runtimeEnvironment();
  const read = (name: string) => {
    const value = env[name]?.trim();
    return value === undefined || value === "" ? undefined : value;
  };
  const baseUrl = options.baseUrl ?? read("REASONING_API_URL") ?? httpDefaults.baseUrl;
  let parsed: URL;
  try {
    parsed = new URL(baseUrl);
  } catch {
    throw configurationError(
      options.baseUrl !== undefined ? "baseUrl" : "REASONING_API_URL",
      `must be an http(s) URL, not '${baseUrl}'`,
    );
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw configurationError(
      options.baseUrl !== undefined ? "baseUrl" : "REASONING_API_URL",
      `must be an http(s) URL, not '${baseUrl}'`,
    );
  }
  const fetchImplementation = options.fetch ?? globalThis.fetch;
  if (typeof fetchImplementation !== "function") {
    throw configurationError("fetch", "is not available in this runtime: pass a fetch implementation");
  }
  return {
    baseUrl: baseUrl.replace(/\/+$/, ""),
    token: options.token ?? read("REASONING_API_TOKEN"),
    timeoutMs:
      wholeNumber(options.timeoutMs, "timeoutMs", 1) ??
      wholeNumber(read("REASONING_API_TIMEOUT_MS"), "REASONING_API_TIMEOUT_MS", 1) ??
      defaults.timeoutMs ??
      httpDefaults.timeoutMs,
    retries:
      wholeNumber(options.retries, "retries", 0) ??
      wholeNumber(read("REASONING_API_RETRIES"), "REASONING_API_RETRIES", 0) ??
      httpDefaults.retries,
    version: options.version ?? read("REASONING_API_VERSION") ?? httpDefaults.version,
    backoffMs: wholeNumber(options.backoffMs, "backoffMs", 0) ?? httpDefaults.backoffMs,
    maxRetryDelayMs: wholeNumber(options.maxRetryDelayMs, "maxRetryDelayMs", 0) ?? httpDefaults.maxRetryDelayMs,
    fetch: fetchImplementation,
    headers: options.headers ?? {},
  };
}
