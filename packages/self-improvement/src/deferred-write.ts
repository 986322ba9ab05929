/**
 * One write made a while after it is scheduled, or at once when `flush` is
 * called first (a stop, a cycle that writes the same record), and never twice.
 * `flush` waits for it. Failures are the write's own to report.
 */
export interface DeferredWrite {
  schedule(write: () => Promise<void>, delayMs: number): void;
  flush(): Promise<void>;
}

export function createDeferredWrite(): DeferredWrite {
  let pending: { write: () => Promise<void>; timer: NodeJS.Timeout; written?: Promise<void> } | undefined;
  const flush = (): Promise<void> => {
    if (pending === undefined) return Promise.resolve();
    clearTimeout(pending.timer);
    pending.written ??= pending.write();
    return pending.written;
  };
  return {
    schedule(write, delayMs) {
      pending = { write, timer: setTimeout(() => void flush(), delayMs) };
      // A process with nothing else to do exits without waiting for it (a stop writes it first).
      pending.timer.unref();
    },
    flush,
  };
}
