import { isClientError } from "../errors.ts";
import { anySignal, timeoutSignal } from "../signals.ts";
import type { CallOptions } from "../transport.ts";

/** Why the watch gave up on the server. */
export interface Stall {
  /** `connection`: the ping could not reach the server; `timeout`: it got no answer in time. */
  kind: "connection" | "timeout";
  detail: string;
}

/** A watch over one outstanding reasoning call. */
export interface LivenessWatch {
  /** Aborts when the parent does or when the server stops answering pings. */
  readonly signal: AbortSignal;
  /** Set once the server stopped answering. */
  stalled(): Stall | null;
  stop(): void;
}

export interface LivenessOptions {
  ping: (options: CallOptions) => Promise<void>;
  /** How often to ping; 0: no watch (the signal is the parent's). */
  intervalMs: number;
  /** How long each ping may take. */
  pingTimeoutMs: number;
  parent: AbortSignal;
}

/**
 * Pings the server every `intervalMs` while a call is outstanding. A server that is working but slow answers the
 * pings (its event loop is free while it waits on a model); a hung one does not, and the watch aborts the call, so
 * a hung server is given up within `intervalMs + pingTimeoutMs` of going silent, whatever the call's own timeout.
 */
export function watchLiveness(options: LivenessOptions): LivenessWatch {
  if (options.intervalMs <= 0) return { signal: options.parent, stalled: () => null, stop: () => {} };
  const controller = new AbortController();
  // Aborted by stop(): a ping still in flight is not waited for.
  const pings = new AbortController();
  const onParent = () => controller.abort(options.parent.reason);
  if (options.parent.aborted) onParent();
  else options.parent.addEventListener("abort", onParent, { once: true });
  let stall: Stall | null = null;
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const check = () => {
    const deadline = timeoutSignal(options.pingTimeoutMs);
    const combined = anySignal([controller.signal, pings.signal, deadline.signal]);
    options.ping({ timeoutMs: options.pingTimeoutMs, signal: combined.signal }).then(
      () => {
        deadline.clear();
        combined.dispose();
        if (!stopped) timer = setTimeout(check, options.intervalMs);
      },
      (error: unknown) => {
        const timedOut = deadline.timedOut();
        deadline.clear();
        combined.dispose();
        if (stopped || controller.signal.aborted) return;
        const unreachable = !timedOut && isClientError(error, "CONNECTION_FAILED");
        stall = {
          kind: unreachable ? "connection" : "timeout",
          detail: unreachable
            ? `the server could not be reached by a liveness ping (${error instanceof Error ? error.message : String(error)})`
            : `the server stopped answering: a liveness ping got no answer within ${options.pingTimeoutMs} ms`,
        };
        controller.abort(new Error(stall.detail));
      },
    );
  };
  timer = setTimeout(check, options.intervalMs);
  return {
    signal: controller.signal,
    stalled: () => stall,
    stop: () => {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
      pings.abort();
      options.parent.removeEventListener("abort", onParent);
    },
  };
}
