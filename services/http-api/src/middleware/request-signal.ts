import type { ServerResponse } from "node:http";

/** One request's abort signal (see {@link createRequestSignals}). */
export interface RequestSignal {
  /** Made when first read (already aborted when the request was meanwhile). */
  readonly signal: AbortSignal;
  /** True once the request's timeout fired. */
  timedOut(): boolean;
  /** The request is answered: its timeout is disarmed. */
  done(): void;
}

/** One open request's bookkeeping. */
interface SignalEntry {
  // Made when the signal is first asked for (a model-free call never looks at it; making one costs
  // more than the rest of this bookkeeping): an abort before that is kept as `reason`.
  controller: AbortController | undefined;
  reason: Error | undefined;
  deadline: number;
  timedOut: boolean;
}

/**
 * Abort signals for requests: each aborts when the client disconnects before
 * its response is sent, or `timeoutMs` after it was opened. Every request has
 * the same timeout, so they expire in the order they were opened: one timer
 * (for the oldest request still open) serves them all, instead of a timer
 * armed and cleared per request.
 */
export function createRequestSignals(options: { timeoutMs: number; now?: () => number }) {
  const now = options.now ?? performance.now.bind(performance);
  function abort(entry: SignalEntry, reason: Error): void {
    if (entry.controller !== undefined) entry.controller.abort(reason);
    else entry.reason ??= reason;
  }
  // Insertion order is deadline order.
  const open = new Set<SignalEntry>();
  let timer: NodeJS.Timeout | undefined;
  let armedFor = Number.POSITIVE_INFINITY;

  function arm(): void {
    const first = open.values().next();
    if (first.done) return;
    const deadline = first.value.deadline;
    if (timer !== undefined && armedFor <= deadline) return;
    if (timer !== undefined) clearTimeout(timer);
    armedFor = deadline;
    timer = setTimeout(expire, Math.max(0, deadline - now()));
    timer.unref();
  }

  function expire(): void {
    timer = undefined;
    armedFor = Number.POSITIVE_INFINITY;
    const time = now();
    for (const entry of open) {
      if (entry.deadline > time) break;
      open.delete(entry);
      entry.timedOut = true;
      abort(entry, new Error(`request timed out after ${options.timeoutMs} ms`));
    }
    arm();
  }

  return {
    /** Opens the signal of one request; `response` (under node) aborts it when the client goes away first. */
    open(response: ServerResponse | undefined): RequestSignal {
      const entry: SignalEntry = {
        controller: undefined,
        reason: undefined,
        deadline: now() + options.timeoutMs,
        timedOut: false,
      };
      open.add(entry);
      if (timer === undefined) arm();
      response?.once("close", () => {
        if (!response.writableFinished) abort(entry, new Error("client closed the connection"));
      });
      return new OpenSignal(entry, open);
    },
  };
}

/** One open request's signal (see lazy-signal.ts for why a class and not an object literal with a getter). */
class OpenSignal implements RequestSignal {
  constructor(
    private readonly entry: SignalEntry,
    private readonly open: Set<SignalEntry>,
  ) {}
  get signal(): AbortSignal {
    const entry = this.entry;
    if (entry.controller === undefined) {
      entry.controller = new AbortController();
      if (entry.reason !== undefined) entry.controller.abort(entry.reason);
    }
    return entry.controller.signal;
  }
  timedOut(): boolean {
    return this.entry.timedOut;
  }
  done(): void {
    this.open.delete(this.entry);
  }
}
