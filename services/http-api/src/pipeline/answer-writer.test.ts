import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { AnswerWriter } from "./answer-writer.ts";

/** Resolves after the immediates scheduled before this call have run. */
const nextCheckPhase = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("AnswerWriter", () => {
  it("writes a turn's answers together once its I/O phase ends, in the order they were queued", async () => {
    const written: string[] = [];
    const writer = new AnswerWriter<string>((answer) => written.push(answer));
    writer.enqueue("a");
    writer.enqueue("b");
    writer.enqueue("c");
    expect(written).toEqual([]);
    expect(writer.pending).toBe(3);
    await nextCheckPhase();
    expect(written).toEqual(["a", "b", "c"]);
    expect(writer.pending).toBe(0);
  });

  it("writes answers queued after arm() before what the turn scheduled after it (bookkeeping after answers)", async () => {
    const events: string[] = [];
    const writer = new AnswerWriter<string>((answer) => events.push(`answer ${answer}`));
    // As a request comes in: armed, then its handler schedules a batch commit, then its answer is ready.
    writer.arm();
    setImmediate(() => events.push("invocation batch"));
    writer.enqueue("1");
    writer.enqueue("2");
    await nextCheckPhase();
    expect(events).toEqual(["answer 1", "answer 2", "invocation batch"]);
  });

  it("writes answers ready in a later turn in that turn", async () => {
    const written: string[] = [];
    const writer = new AnswerWriter<string>((answer) => written.push(answer));
    writer.arm();
    await nextCheckPhase();
    expect(written).toEqual([]);
    writer.enqueue("late");
    await nextCheckPhase();
    expect(written).toEqual(["late"]);
  });

  it("writes at once, before the phase ends, what has waited maxHoldMs (a long I/O phase)", () => {
    let now = 100;
    const written: string[] = [];
    const writer = new AnswerWriter<string>(
      (answer) => written.push(answer),
      1,
      () => now,
    );
    writer.flushOverdue();
    writer.enqueue("first");
    now = 100.5;
    writer.enqueue("second");
    writer.flushOverdue();
    expect(written).toEqual([]);
    now = 101;
    writer.flushOverdue();
    expect(written).toEqual(["first", "second"]);
    // The hold is measured from the oldest answer still queued.
    writer.enqueue("third");
    now = 101.9;
    writer.flushOverdue();
    expect(written).toEqual(["first", "second"]);
    now = 102;
    writer.flushOverdue();
    expect(written).toEqual(["first", "second", "third"]);
  });

  it("writes every answer exactly once, in order, however queueing, flushes and turns interleave", async () => {
    type Step = { kind: "enqueue" } | { kind: "flush" } | { kind: "overdue"; advance: number } | { kind: "turn" };
    const step = fc.oneof(
      fc.constant<Step>({ kind: "enqueue" }),
      fc.constant<Step>({ kind: "flush" }),
      fc.record({ kind: fc.constant("overdue" as const), advance: fc.double({ min: 0, max: 2, noNaN: true }) }),
      fc.constant<Step>({ kind: "turn" }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 40 }), async (steps) => {
        let now = 0;
        let next = 0;
        const written: number[] = [];
        const writer = new AnswerWriter<number>(
          (answer) => written.push(answer),
          1,
          () => now,
        );
        for (const current of steps) {
          if (current.kind === "enqueue") writer.enqueue(next++);
          else if (current.kind === "flush") writer.flush();
          else if (current.kind === "turn") await nextCheckPhase();
          else {
            now += current.advance;
            writer.flushOverdue();
          }
        }
        await nextCheckPhase();
        expect(written).toEqual(Array.from({ length: next }, (_, index) => index));
        expect(writer.pending).toBe(0);
      }),
      { numRuns: 100 },
    );
  });
});
