import { DeliberateError } from "@deliberate/base";

/** Waits `milliseconds`; rejects with CANCELLED as soon as `signal` aborts. */
export function abortableDelay(milliseconds: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const cancelled = () =>
      new DeliberateError({ code: "CANCELLED", message: "The model call was cancelled.", cause: signal?.reason });
    if (signal?.aborted) {
      reject(cancelled());
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(cancelled());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, milliseconds);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
