import { isIP } from "node:net";
import type { EnvReader } from "@deliberate/runtime";

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

/** The queue and its worker pool (`REASONING_QUEUE_*`). */
export function readQueueSettings({ integer, flag }: EnvReader): QueueSettings {
  return {
    enabled: flag("REASONING_QUEUE_WORKER", true),
    workers: integer("REASONING_QUEUE_WORKERS", 4, { min: 1, max: 256 }),
    pollMs: integer("REASONING_QUEUE_POLL_MS", 50, { min: 1 }),
    leaseMs: integer("REASONING_QUEUE_LEASE_MS", 30_000, { min: 100 }),
    maxAttempts: integer("REASONING_QUEUE_MAX_ATTEMPTS", 3, { min: 1, max: 100 }),
    statusMs: integer("REASONING_QUEUE_STATUS_MS", 60_000, { min: 100 }),
    statusPollMs: integer("REASONING_QUEUE_STATUS_POLL_MS", 1000, { min: 10 }),
  };
}

/**
 * `REASONING_CALLBACK_ALLOWLIST`: lower-cased host names or IP addresses (brackets of an IPv6 address dropped); an
 * entry with a scheme or port is a problem. Read on its own, before the HTTP settings, so problems keep their order.
 */
export function readCallbackAllowlist(reader: EnvReader): string[] {
  const allowlist = (reader.text("REASONING_CALLBACK_ALLOWLIST") ?? "")
    .split(",")
    .map((item) => item.trim().toLowerCase())
    .filter((item) => item !== "")
    .map((item) => (item.startsWith("[") && item.endsWith("]") ? item.slice(1, -1) : item));
  for (const item of allowlist) {
    if (isIP(item) === 0 && !/^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/.test(item)) {
      reader.problem(
        `REASONING_CALLBACK_ALLOWLIST entries must be host names or IP addresses without scheme or port (got "${item}")`,
        ["REASONING_CALLBACK_ALLOWLIST"],
      );
    }
  }
  return allowlist;
}

/** Callback delivery (`REASONING_CALLBACK_*`), with the allowlist read by {@link readCallbackAllowlist}. */
export function readCallbackSettings(reader: EnvReader, allowlist: string[]): CallbackSettings {
  return {
    allowlist,
    timeoutMs: reader.integer("REASONING_CALLBACK_TIMEOUT_MS", 10_000, { min: 100 }),
    retries: reader.integer("REASONING_CALLBACK_RETRIES", 5, { min: 0, max: 20 }),
    backoffMs: reader.integer("REASONING_CALLBACK_BACKOFF_MS", 500, { min: 1 }),
    secret: reader.text("REASONING_CALLBACK_SECRET"),
  };
}
