/**
 * A signal that aborts when any of `signals` does (AbortSignal.any is missing
 * from Node 20.0-20.2 and some runtimes). `dispose` detaches the listeners.
 */
export function anySignal(signals: ReadonlyArray<AbortSignal | undefined>): {
  signal: AbortSignal;
  dispose: () => void;
} {
  const controller = new AbortController();
  const present = signals.filter((signal): signal is AbortSignal => signal !== undefined);
  const listeners: Array<() => void> = [];
  for (const signal of present) {
    if (signal.aborted) {
      controller.abort(signal.reason);
      break;
    }
    const listener = () => controller.abort(signal.reason);
    signal.addEventListener("abort", listener, { once: true });
    listeners.push(() => signal.removeEventListener("abort", listener));
  }
  return { signal: controller.signal, dispose: () => listeners.forEach((remove) => remove()) };
}

/** A timer-driven abort: `signal` aborts after `ms`; `timedOut()` says whether it did; `clear` stops the timer. */
export function timeoutSignal(ms: number): { signal: AbortSignal; timedOut: () => boolean; clear: () => void } {
  const controller = new AbortController();
  let fired = false;
  const timer = setTimeout(() => {
    fired = true;
    controller.abort(new DOMException(`Timed out after ${ms} ms`, "TimeoutError"));
  }, ms);
  return { signal: controller.signal, timedOut: () => fired, clear: () => clearTimeout(timer) };
}

/** Waits `ms`, or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
