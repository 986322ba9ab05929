import { describe, expect, it } from "vitest";
import { LazyInvokeOptions, LazySignal } from "./lazy-signal.ts";

/** A source that counts how often its signal was asked for. */
function countingSource() {
  const controller = new AbortController();
  const source = {
    reads: 0,
    get signal() {
      source.reads += 1;
      return controller.signal;
    },
  };
  return { source, controller };
}

describe("LazySignal", () => {
  it("asks its source for the signal only when read, and hands out the source's own", () => {
    const { source, controller } = countingSource();
    const lazy = new LazySignal(source);
    expect(source.reads).toBe(0);
    expect(lazy.signal).toBe(controller.signal);
    controller.abort(new Error("gone"));
    expect(lazy.signal.aborted).toBe(true);
    expect(source.reads).toBe(2);
  });
});

describe("LazyInvokeOptions", () => {
  it("carries the caller and the models only when given (an absent option is absent)", () => {
    const { source } = countingSource();
    const bare = new LazyInvokeOptions(source, {});
    expect("caller" in bare).toBe(false);
    expect("models" in bare).toBe(false);
    expect({ ...bare }).not.toHaveProperty("caller");
    const withCaller = new LazyInvokeOptions(source, { caller: "token:abc" });
    expect(withCaller.caller).toBe("token:abc");
    expect("models" in withCaller).toBe(false);
    expect(source.reads).toBe(0);
  });
});
