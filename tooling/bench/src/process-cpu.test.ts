import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { cpuBetween, processMillisecondsOf, readCpu, schedMillisecondsOf } from "./process-cpu.ts";

describe("process CPU from /proc", () => {
  it("reads utime + stime after a command name holding spaces and parentheses", () => {
    // pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime ...
    const stat = "4242 (node (my) server) S 1 4242 4242 0 -1 4194560 1200 0 0 0 250 75 0 0 20 0 11 0 100";
    expect(processMillisecondsOf(stat)).toBe(3250);
  });

  it("reads a thread's time on a CPU and waiting for one (ns) as milliseconds", () => {
    expect(schedMillisecondsOf("3100000000 1600000000 33000\n")).toEqual({ runMs: 3100, waitMs: 1600 });
  });

  it("refuses text that is not what it reads, naming it", () => {
    expect(() => processMillisecondsOf("garbage")).toThrow("not a /proc/<pid>/stat line");
    expect(() => schedMillisecondsOf("")).toThrow("not a schedstat line");
  });

  it("gives the difference of two readings, or nothing when either is missing", () => {
    const before = { processMs: 100, mainRunMs: 80, mainWaitMs: 10 };
    const after = { processMs: 350, mainRunMs: 280, mainWaitMs: 60 };
    expect(cpuBetween(before, after)).toEqual({ processMs: 250, mainRunMs: 200, mainWaitMs: 50 });
    expect(cpuBetween(undefined, after)).toBeUndefined();
    expect(cpuBetween(before, undefined)).toBeUndefined();
  });

  it("reads this process where /proc exists, and nothing for a process that is not there", () => {
    expect(readCpu(undefined)).toBeUndefined();
    expect(readCpu(2 ** 30)).toBeUndefined();
    if (!existsSync(`/proc/${process.pid}/stat`)) return;
    const reading = readCpu(process.pid);
    expect(reading?.processMs).toBeGreaterThanOrEqual(0);
    expect(reading?.mainRunMs).toBeGreaterThan(0);
    expect(reading?.mainWaitMs).toBeGreaterThanOrEqual(0);
  });
});
