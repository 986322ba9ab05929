import { DeliberateError } from "@deliberate/base";
import type { GenerateOptions, GenerateProgress } from "./language-model.ts";

/**
 * Max tokens (answer plus thinking budget) above which a call streams even
 * without `onProgress`: the Anthropic SDK's bound for a request expected to
 * take more than 10 minutes (60 minutes per 128,000 tokens), which it refuses
 * to send without streaming. A non-streamed answer that long would also
 * outlast any sensible per-request timeout.
 */
export const longRequestTokens = 21_333;

/** Whether a call streams: the caller's `stream`, else when progress is wanted or the answer may be long. */
export function shouldStream(call: GenerateOptions<unknown>, totalMaxTokens: number): boolean {
  return call.stream ?? (call.onProgress !== undefined || totalMaxTokens > longRequestTokens);
}

/** Estimated tokens of generated text: 4 characters a token. */
export function estimateTokens(characters: number): number {
  return Math.ceil(characters / 4);
}

/** Turns stream deltas and finished answers into `GenerateProgress` events for one call. */
export interface ProgressTracker {
  /** A new answer starts (0 first, 1 for the repair round). */
  start(attempt: number): void;
  /** Output arrived: reports an estimate of the tokens so far. */
  delta(phase: GenerateProgress["phase"], text: string): void;
  /** The answer is complete: reports the provider's output token count. */
  finish(outputTokens: number): void;
}

/**
 * A progress tracker for one `generate` call (both attempts). Callback
 * errors are swallowed: progress never fails a model call.
 */
export function createProgressTracker(onProgress: GenerateOptions<unknown>["onProgress"]): ProgressTracker {
  let attempt = 0;
  let characters = 0;
  let completedTokens = 0;
  const emit = (progress: GenerateProgress) => {
    if (!onProgress) return;
    try {
      onProgress(progress);
    } catch {
      // A progress consumer (a notification on a closed transport, say) must not fail the call.
    }
  };
  return {
    start(next) {
      attempt = next;
      characters = 0;
    },
    delta(phase, text) {
      if (text.length === 0) return;
      characters += text.length;
      emit({ outputTokens: completedTokens + estimateTokens(characters), characters, attempt, phase, done: false });
    },
    finish(outputTokens) {
      completedTokens += outputTokens;
      emit({ outputTokens: completedTokens, characters, attempt, phase: "answer", done: true });
    },
  };
}

/** Aborts a stream that goes quiet: armed on every event, fired after `idleMs` without one. */
export interface IdleWatchdog {
  /** (Re)arms the timer: call on every stream event. */
  touch(): void;
  stop(): void;
  /** True once the timer fired (and aborted the stream). */
  readonly fired: boolean;
}

export function createIdleWatchdog(idleMs: number, onIdle: () => void): IdleWatchdog {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let fired = false;
  return {
    touch() {
      if (timer !== undefined) clearTimeout(timer);
      timer = setTimeout(() => {
        fired = true;
        onIdle();
      }, idleMs);
    },
    stop() {
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
    },
    get fired() {
      return fired;
    },
  };
}

/** PROVIDER_TIMEOUT for a stream that stopped sending for `idleMs`. */
export function streamStalledError(label: string, idleMs: number): DeliberateError {
  return new DeliberateError({
    code: "PROVIDER_TIMEOUT",
    message: `The answer streamed from ${label} stalled: nothing arrived for ${idleMs} ms.`,
    hint: "Try again; raise REQUEST_TIMEOUT_MS or the mode's timeout if the model pauses this long while thinking.",
    retryable: true,
  });
}

/** PROVIDER_UNAVAILABLE for a stream that ended before the answer was complete. */
export function streamEndedEarlyError(label: string): DeliberateError {
  return new DeliberateError({
    code: "PROVIDER_UNAVAILABLE",
    message: `The answer streamed from ${label} ended before it was complete.`,
    hint: "The connection was cut; the call may succeed when tried again.",
    retryable: true,
  });
}

/**
 * An AbortController that also aborts when `signal` does, so a stream can be
 * stopped by the caller or by the idle watchdog. `release` removes the link.
 */
export function linkedAbort(signal: AbortSignal | undefined): { controller: AbortController; release(): void } {
  const controller = new AbortController();
  if (!signal) return { controller, release: () => {} };
  const abort = () => controller.abort(signal.reason);
  if (signal.aborted) abort();
  else signal.addEventListener("abort", abort, { once: true });
  return { controller, release: () => signal.removeEventListener("abort", abort) };
}
