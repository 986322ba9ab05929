import { afterAll, beforeAll, expect, vi } from "vitest";
import { describeChanges, restoreLeftState, snapshotLeftState } from "./left-state.js";

// A setup file of the shared run (groupConfig): vitest runs it before each test file, so these hooks wrap every file.
// Under `isolate: false` the files of a worker share one process; a file that leaves the environment or a global
// changed would pass while breaking (or quietly fixing) whichever file runs next. This fails the file that did it.

let before;
let file;

beforeAll(() => {
  before = snapshotLeftState();
  file = expect.getState().testPath ?? "this test file";
});

afterAll(() => {
  const changes = describeChanges(before, snapshotLeftState());
  if (changes.length === 0) return;
  // vitest's own undo first (it also resets its bookkeeping), then whatever was changed by hand.
  vi.useRealTimers();
  vi.unstubAllEnvs();
  vi.unstubAllGlobals();
  restoreLeftState(before);
  throw new Error(
    `${file} left global state changed: ${changes.join("; ")}. With isolate: false the next test file in this worker ` +
      "would inherit it: restore it in afterEach/afterAll (vi.unstubAllEnvs(), vi.useRealTimers(), vi.unstubAllGlobals(), " +
      "spy.mockRestore(), process.chdir back).",
  );
});
