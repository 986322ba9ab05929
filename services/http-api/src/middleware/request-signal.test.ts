import { EventEmitter } from "node:events";
import type { ServerResponse } from "node:http";
import { describe, expect, it } from "vitest";
import { createRequestSignals } from "./request-signal.ts";

/** A node response as the signals see it: a "close" event and whether the answer was sent. */
function fakeResponse(): ServerResponse & { finish(): void } {
  const response = new EventEmitter() as EventEmitter & { writableFinished: boolean; finish(): void };
  response.writableFinished = false;
  response.finish = () => {
    response.writableFinished = true;
  };
  return response as unknown as ServerResponse & { finish(): void };
}

describe("request signals (made on demand)", () => {
  it("gives one signal per request, not aborted while the request is open", () => {
    const signals = createRequestSignals({ timeoutMs: 60_000 });
    const opened = signals.open(fakeResponse());
    expect(opened.signal).toBe(opened.signal);
    expect(opened.signal.aborted).toBe(false);
    opened.done();
  });

  it("aborts a signal already read when the client goes away before the answer", () => {
    const signals = createRequestSignals({ timeoutMs: 60_000 });
    const response = fakeResponse();
    const opened = signals.open(response);
    const signal = opened.signal;
    response.emit("close");
    expect(signal.aborted).toBe(true);
    expect((signal.reason as Error).message).toBe("client closed the connection");
    opened.done();
  });

  it("makes a signal read after the client went away already aborted, with the same reason", () => {
    const signals = createRequestSignals({ timeoutMs: 60_000 });
    const response = fakeResponse();
    const opened = signals.open(response);
    response.emit("close");
    expect(opened.signal.aborted).toBe(true);
    expect((opened.signal.reason as Error).message).toBe("client closed the connection");
    opened.done();
  });

  it("does not abort when the connection closes after the answer was sent", () => {
    const signals = createRequestSignals({ timeoutMs: 60_000 });
    const response = fakeResponse();
    const opened = signals.open(response);
    response.finish();
    response.emit("close");
    expect(opened.signal.aborted).toBe(false);
  });

  it("times out requests in order; a signal first read after its timeout is aborted and says so", async () => {
    let now = 0;
    const signals = createRequestSignals({ timeoutMs: 30, now: () => now });
    const read = signals.open(undefined);
    const early = read.signal;
    const unread = signals.open(undefined);
    const answered = signals.open(undefined);
    answered.done();
    now = 31;
    // The shared timer fires about 30 ms later (generously waited for: a busy machine delays timers).
    for (const deadline = Date.now() + 10_000; !read.timedOut() && Date.now() < deadline; )
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect(early.aborted).toBe(true);
    expect(read.timedOut()).toBe(true);
    expect(unread.timedOut()).toBe(true);
    expect(unread.signal.aborted).toBe(true);
    expect((unread.signal.reason as Error).message).toBe("request timed out after 30 ms");
    expect(answered.timedOut()).toBe(false);
    expect(answered.signal.aborted).toBe(false);
  });
});
