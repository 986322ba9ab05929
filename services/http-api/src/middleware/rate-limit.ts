import { getConnInfo } from "@hono/node-server/conninfo";
import type { Context } from "hono";
import type { AppEnv } from "../app-env.ts";
import { HttpError } from "../errors.ts";
import type { RateLimitRepository } from "../store/repositories/rate-limit.repository.ts";

/** The verdict on one request. */
export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Milliseconds until the window resets. */
  resetMs: number;
}

/** A fixed-window counter per client key, in memory (per process). */
export function createRateLimiter(options: { limit: number; windowMs: number; now?: () => number }) {
  const now = options.now ?? Date.now;
  const windows = new Map<string, { start: number; count: number }>();
  let lastSweep = now();
  return {
    hit(key: string): RateDecision {
      const time = now();
      if (time - lastSweep > options.windowMs) {
        lastSweep = time;
        for (const [candidate, window] of windows)
          if (time - window.start >= options.windowMs) windows.delete(candidate);
      }
      let window = windows.get(key);
      if (!window || time - window.start >= options.windowMs) {
        window = { start: time, count: 0 };
        windows.set(key, window);
      }
      window.count += 1;
      const resetMs = Math.max(0, window.start + options.windowMs - time);
      return {
        allowed: window.count <= options.limit,
        limit: options.limit,
        remaining: Math.max(0, options.limit - window.count),
        resetMs,
      };
    },
    /** The verdict for `key` without counting a hit: is it already over the limit? */
    peek(key: string): RateDecision {
      const time = now();
      const window = windows.get(key);
      if (!window || time - window.start >= options.windowMs)
        return { allowed: true, limit: options.limit, remaining: options.limit, resetMs: 0 };
      const resetMs = Math.max(0, window.start + options.windowMs - time);
      return {
        allowed: window.count < options.limit,
        limit: options.limit,
        remaining: Math.max(0, options.limit - window.count),
        resetMs,
      };
    },
  };
}

/**
 * The client's address: the socket peer, or, when the proxy is trusted, the
 * last X-Forwarded-For hop — the one our proxy appended. Earlier hops come from
 * the client and could be forged to dodge the limit.
 */
export function clientAddress(c: Context<AppEnv>, trustProxy: boolean): string {
  return clientAddressOf(trustProxy ? c.req.header("x-forwarded-for") : undefined, () =>
    c.env?.incoming ? (getConnInfo(c).remote.address ?? "unknown") : "local",
  );
}

/** {@link clientAddress} from the X-Forwarded-For value (pass undefined unless the proxy is trusted) and the peer. */
export function clientAddressOf(forwardedFor: string | undefined, peer: () => string): string {
  const forwarded = forwardedFor?.split(",").at(-1)?.trim();
  if (forwarded) return forwarded;
  try {
    return peer();
  } catch {
    return "unknown";
  }
}

/** Where request counts are kept: this process's memory, or the database shared by the replicas. */
export interface RateLimitStore {
  /** Counts one request of `key`; returns the count of its current window and when that window started. */
  hit(key: string, options: { windowMs: number; nowMs: number }): Promise<{ count: number; windowStartMs: number }>;
}

/** Counts in this process's memory (one replica, or a limit per replica). */
export function memoryRateLimitStore(): RateLimitStore {
  const windows = new Map<string, { start: number; count: number }>();
  let lastSweep = 0;
  return {
    async hit(key, { windowMs, nowMs }) {
      if (nowMs - lastSweep > windowMs) {
        lastSweep = nowMs;
        for (const [candidate, window] of windows) if (nowMs - window.start >= windowMs) windows.delete(candidate);
      }
      let window = windows.get(key);
      if (!window || nowMs - window.start >= windowMs) {
        window = { start: nowMs, count: 0 };
        windows.set(key, window);
      }
      window.count += 1;
      return { count: window.count, windowStartMs: window.start };
    },
  };
}

/**
 * Counts in the database (`rate_limits`), so the limit holds across every
 * replica sharing it: one atomic upsert per request, windows aligned to the
 * epoch so replicas agree. Old windows are swept now and then.
 */
export function databaseRateLimitStore(repository: RateLimitRepository): RateLimitStore {
  let lastSweep = 0;
  return {
    async hit(key, { windowMs, nowMs }) {
      const counted = await repository.hit({ key, windowMs, nowMs });
      if (nowMs - lastSweep > windowMs) {
        lastSweep = nowMs;
        void repository.sweep(new Date(nowMs - windowMs).toISOString()).catch(() => undefined);
      }
      return counted;
    },
  };
}

export interface RateLimitOptions {
  limit: number;
  windowMs: number;
  skip: (path: string) => boolean;
  /** Where counts are kept; default this process's memory. */
  store?: RateLimitStore;
  /** Current time in epoch milliseconds; default `Date.now`. */
  now?: () => number;
  /** A store failure lets the request through (availability first) and is reported here. */
  onStoreError?: (error: unknown) => void;
}

/** What the rate limit says about one request: the headers every limited response carries, and the 429 when over. */
export interface RateVerdict {
  headers: Record<string, string>;
  failure?: HttpError;
}

/**
 * Rate limit per client address (run by `requestChecks`; one store of counts),
 * with the IETF RateLimit headers on every limited response, and 429 +
 * Retry-After when over the limit: `applies(path)`, then `count(client)` counts one request
 * (undefined when the store failed: the request is let through).
 */
export function createRateLimitCheck(options: RateLimitOptions): {
  applies(path: string): boolean;
  count(client: string): Promise<RateVerdict | undefined>;
} {
  const store = options.store ?? memoryRateLimitStore();
  const now = options.now ?? Date.now;
  const windowSeconds = Math.ceil(options.windowMs / 1000);
  return {
    applies: (path) => options.limit !== 0 && !options.skip(path),
    async count(client) {
      const nowMs = now();
      let counted: { count: number; windowStartMs: number };
      try {
        counted = await store.hit(client, { windowMs: options.windowMs, nowMs });
      } catch (error) {
        options.onStoreError?.(error);
        return undefined;
      }
      const decision: RateDecision = {
        allowed: counted.count <= options.limit,
        limit: options.limit,
        remaining: Math.max(0, options.limit - counted.count),
        resetMs: Math.max(0, counted.windowStartMs + options.windowMs - nowMs),
      };
      const resetSeconds = Math.ceil(decision.resetMs / 1000);
      const headers = {
        "RateLimit-Policy": `${decision.limit};w=${windowSeconds}`,
        "RateLimit-Limit": String(decision.limit),
        "RateLimit-Remaining": String(decision.remaining),
        "RateLimit-Reset": String(resetSeconds),
      };
      if (decision.allowed) return { headers };
      return {
        headers,
        failure: new HttpError({
          code: "RATE_LIMITED",
          message: `Too many requests: the limit is ${decision.limit} per ${windowSeconds} s per client.`,
          hint: `Retry after ${resetSeconds} s.`,
          headers: { ...headers, "Retry-After": String(resetSeconds) },
          retryable: true,
        }),
      };
    },
  };
}
