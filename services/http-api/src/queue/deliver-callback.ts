import { createHmac } from "node:crypto";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import type { LookupFunction } from "node:net";
import type { CallbackTarget } from "./callback-guard.ts";

/** The outcome of one delivery attempt. */
export type DeliveryAttempt =
  | { ok: true; status: number }
  | { ok: false; retryable: boolean; error: string; retryAfterMs?: number | undefined };

export interface DeliverOptions {
  target: CallbackTarget;
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
  signal: AbortSignal;
  /** `REASONING_CALLBACK_SECRET`: signs `<timestamp>.<body>` with HMAC-SHA256. */
  secret?: string | undefined;
  now?: () => Date;
}

const userAgent = "deliberate-http-api/0.1 (callback)";
const maximumResponseBytes = 64 * 1024;

/**
 * POSTs one callback, connecting only to the addresses the guard vetted (the
 * host is not looked up again, so DNS rebinding cannot redirect it), never
 * following redirects. 2xx is delivered; 408, 429, 5xx, timeouts and network
 * errors are worth retrying; other statuses are not.
 */
export function deliverCallback(options: DeliverOptions): Promise<DeliveryAttempt> {
  const { target } = options;
  const timestamp = String(Math.floor((options.now?.() ?? new Date()).getTime() / 1000));
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "content-length": String(Buffer.byteLength(options.body)),
    "user-agent": userAgent,
    ...options.headers,
  };
  if (options.secret) {
    headers["x-deliberate-timestamp"] = timestamp;
    headers["x-deliberate-signature"] =
      `sha256=${createHmac("sha256", options.secret).update(`${timestamp}.${options.body}`).digest("hex")}`;
  }
  const pinned: LookupFunction = (_hostname, lookupOptions, callback) => {
    const all =
      typeof lookupOptions === "object" && lookupOptions !== null && (lookupOptions as { all?: boolean }).all === true;
    if (all)
      (callback as unknown as (error: null, addresses: Array<{ address: string; family: number }>) => void)(
        null,
        target.addresses,
      );
    else {
      const first = target.addresses[0] as { address: string; family: number };
      callback(null, first.address, first.family);
    }
  };
  const send = target.url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise<DeliveryAttempt>((resolve) => {
    let settled = false;
    const finish = (attempt: DeliveryAttempt) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal.removeEventListener("abort", onAbort);
      resolve(attempt);
    };
    const request = send(
      target.url,
      { method: "POST", headers, lookup: pinned, timeout: options.timeoutMs },
      (response: IncomingMessage) => {
        let received = 0;
        response.on("data", (chunk: Buffer) => {
          received += chunk.length;
          if (received > maximumResponseBytes) response.destroy();
        });
        const done = () => {
          const status = response.statusCode ?? 0;
          if (status >= 200 && status < 300) return finish({ ok: true, status });
          const retryable = status === 408 || status === 429 || status >= 500;
          finish({
            ok: false,
            retryable,
            error: `the receiver answered ${status}`,
            retryAfterMs: retryAfter(response.headers["retry-after"]),
          });
        };
        response.on("end", done);
        response.on("close", done);
        response.on("error", done);
      },
    );
    const timer = setTimeout(() => {
      request.destroy(new Error(`no answer within ${options.timeoutMs} ms`));
    }, options.timeoutMs);
    const onAbort = () => {
      request.destroy(new Error("delivery aborted"));
      finish({ ok: false, retryable: true, error: "delivery aborted" });
    };
    options.signal.addEventListener("abort", onAbort, { once: true });
    request.on("error", (error) => finish({ ok: false, retryable: true, error: error.message }));
    request.end(options.body);
  });
}

function retryAfter(value: string | string[] | undefined): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined) return undefined;
  const seconds = Number(text);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** Delay before retry `attempt` (1-based): base * 2^(attempt-1), ±25% jitter, at most a minute; Retry-After wins when longer. */
export function retryDelayMs(attempt: number, baseMs: number, retryAfterMs?: number): number {
  const exponential = Math.min(60_000, baseMs * 2 ** Math.max(0, attempt - 1));
  const jittered = exponential * (0.75 + Math.random() * 0.5);
  return Math.round(Math.min(60_000, Math.max(jittered, retryAfterMs ?? 0)));
}
