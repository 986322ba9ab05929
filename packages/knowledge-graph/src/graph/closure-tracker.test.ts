import { describe, expect, it } from "vitest";
import { ClosureTracker } from "./closure-tracker.ts";

describe("closure tracker", () => {
  it("has nothing to start from until a closure is recorded", () => {
    const tracker = new ClosureTracker(null);
    tracker.loaded(0, "a");
    expect(tracker.state()).toBeNull();
    expect(tracker.record()).toBeNull();
    tracker.closed(["rule-b", "rule-a", "rule-a"], 3);
    expect(tracker.record()).toEqual({ rules: ["rule-a", "rule-b"], covered: 3 });
    expect(tracker.state()).toEqual({ unseen: new Set(), closedUnder: new Set(["rule-a", "rule-b"]) });
  });

  it("counts relations stored after the closure and created since as unseen", () => {
    const tracker = new ClosureTracker({ rules: ["r"], covered: 2 });
    for (const [position, key] of ["a", "b", "c"].entries()) tracker.loaded(position, key);
    tracker.created("d");
    expect([...(tracker.state()?.unseen ?? [])]).toEqual(["c", "d"]);
  });

  it("breaks when the believed set changes other than by new facts, and mends when closed again", () => {
    const tracker = new ClosureTracker({ rules: ["r"], covered: 1 });
    tracker.invalidate();
    expect(tracker.state()).toBeNull();
    expect(tracker.record()).toBeNull();
    tracker.closed(["r"], 4);
    expect(tracker.record()).toEqual({ rules: ["r"], covered: 4 });
    tracker.removed("x");
    expect(tracker.record()).toBeNull();
  });
});
