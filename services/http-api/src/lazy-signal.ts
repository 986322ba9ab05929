import type { InvokeOptions } from "@deliberate/engine";
import type { ModelRouter } from "@deliberate/providers";

/** Whatever hands out a request's abort signal when first asked (an `OperationRequest`, a `RequestSignal`). */
export interface SignalSource {
  readonly signal: AbortSignal;
}

/**
 * Call options whose `signal` is read from `source` only when the call asks for it: a model-free call never
 * does, and making the signal costs more than the rest of the call's bookkeeping.
 *
 * These are classes, not object literals with `get signal() {...}`, on purpose: V8 builds such a literal on
 * a slow path (its own hidden class per object, about 0.5 µs each), and that garbage outlives
 * young-generation collections. It gets promoted and piles up in the old generation until a full GC. Under
 * load that was about 2.6 kB promoted per request on the HTTP side alone, which made the scavenges slow:
 * the p99 of every tool call. A getter on a class's prototype costs nothing of the kind.
 */
export class LazySignal implements SignalSource {
  constructor(private readonly source: SignalSource) {}
  get signal(): AbortSignal {
    return this.source.signal;
  }
}

/** `InvokeOptions` of one engine call: the lazy signal, and the caller when the surface knows it. */
export class LazyInvokeOptions extends LazySignal implements InvokeOptions {
  // Declared only (no field emitted): set below when given, so an absent option is absent, not undefined.
  declare readonly caller?: string;
  declare readonly models?: ModelRouter;
  constructor(source: SignalSource, extra: { caller?: string; models?: ModelRouter }) {
    super(source);
    if (extra.caller !== undefined) this.caller = extra.caller;
    if (extra.models !== undefined) this.models = extra.models;
  }
}
