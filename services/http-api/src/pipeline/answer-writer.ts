/**
 * Answers written together: the dispatcher's answers that become ready during one turn of the event loop are
 * queued and written one after another when the loop's I/O phase ends (`setImmediate`), instead of each
 * one as soon as it is ready. Every write to a client's socket wakes the client; under load the woken
 * client took the CPU from the service at each answer, about one preemption per request. Written
 * back to back, a turn's answers wake their clients together (as uWebSockets corks a loop iteration's writes).
 * See docs/decisions/0030-answers-written-at-the-end-of-the-turn.md.
 *
 * - **Nothing waits long.** An answer is held at most until the I/O phase that computed it ends, and when
 *   that phase runs long (`flushOverdue`, called as each request comes in), no longer than `maxHoldMs`
 *   after the oldest answer was queued.
 * - **Before the turn's bookkeeping.** `arm()` (called as a request comes in) schedules the write before
 *   anything the request schedules afterwards with `setImmediate` (an invocation batch's commit), so that
 *   bookkeeping runs after the answers are on their way, not before.
 * - **In order.** Answers are written in the order they were queued; node keeps each connection's answers
 *   in request order itself.
 */
export class AnswerWriter<Answer> {
  #queue: Answer[] = [];
  #scheduled = false;
  #oldestAt = 0;
  readonly #flushScheduled = (): void => {
    this.#scheduled = false;
    this.flush();
  };

  /**
   * @param write writes one answer (its status, headers and body, and what follows it); it must not throw.
   * @param maxHoldMs the longest the oldest queued answer waits when a turn's I/O phase runs long.
   * @param now the clock `maxHoldMs` is measured on (milliseconds).
   */
  constructor(
    private readonly write: (answer: Answer) => void,
    private readonly maxHoldMs = 1,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** How many answers wait to be written. */
  get pending(): number {
    return this.#queue.length;
  }

  /** Schedules the write of this turn's answers, if it is not scheduled yet. */
  arm(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(this.#flushScheduled);
  }

  /** Queues an answer; it is written when this turn's I/O phase ends (or sooner, see `flushOverdue`). */
  enqueue(answer: Answer): void {
    if (this.#queue.length === 0) this.#oldestAt = this.now();
    this.#queue.push(answer);
    this.arm();
  }

  /** Writes the queued answers now if the oldest has waited `maxHoldMs` (a long I/O phase). */
  flushOverdue(): void {
    if (this.#queue.length > 0 && this.now() - this.#oldestAt >= this.maxHoldMs) this.flush();
  }

  /** Writes every queued answer now, oldest first. */
  flush(): void {
    const queue = this.#queue;
    if (queue.length === 0) return;
    this.#queue = [];
    for (const answer of queue) this.write(answer);
  }
}
