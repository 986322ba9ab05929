/**
 * A fast call's cancellation. Its AbortSignal is made when first read: a
 * model-free call rarely reads it, and making one costs more than the rest of
 * the call's bookkeeping. A cancel before that is kept, and the signal is then
 * made already aborted with that reason.
 */
export class LazyAbort {
  private controller: AbortController | undefined;
  private reason: Error | undefined;

  get aborted(): boolean {
    return this.reason !== undefined;
  }

  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.reason !== undefined) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  abort(reason: Error): void {
    if (this.reason !== undefined) return;
    this.reason = reason;
    this.controller?.abort(reason);
  }
}
