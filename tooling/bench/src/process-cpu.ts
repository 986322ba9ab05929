// What a server process spent during a load run, read from /proc (Linux): the CPU of all its threads, and its
// main thread's time on a CPU and waiting for one. On a machine shared with other work, requests per second move
// with everyone else's load; CPU per request does much less, and the wait says how starved the server was.
import { readFileSync } from "node:fs";

/** Clock ticks per second of /proc's utime and stime (USER_HZ, 100 on Linux). */
const ticksPerSecond = 100;

/** One reading of a process's counters. */
export interface CpuReading {
  /** CPU of every thread of the process so far, milliseconds (10 ms resolution). */
  processMs: number;
  /** The main thread's time on a CPU so far, milliseconds. */
  mainRunMs: number;
  /** The main thread's time runnable but waiting for a CPU so far, milliseconds. */
  mainWaitMs: number;
}

/** utime + stime of `/proc/<pid>/stat`, in milliseconds. */
export function processMillisecondsOf(stat: string): number {
  // Fields after the command name (which may hold spaces or parentheses) start at the state, field 3:
  // utime is field 14, stime 15.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticks = Number(fields[11]) + Number(fields[12]);
  if (!Number.isFinite(ticks)) throw new Error(`not a /proc/<pid>/stat line: ${stat.slice(0, 80)}`);
  return (ticks * 1000) / ticksPerSecond;
}

/** Time on a CPU and waiting on a run queue of `/proc/<pid>/task/<tid>/schedstat` (nanoseconds), in milliseconds. */
export function schedMillisecondsOf(schedstat: string): { runMs: number; waitMs: number } {
  const [run, wait] = schedstat.trim().split(" ").map(Number);
  if (run === undefined || wait === undefined || !Number.isFinite(run) || !Number.isFinite(wait))
    throw new Error(`not a schedstat line: ${schedstat.slice(0, 80)}`);
  return { runMs: run / 1e6, waitMs: wait / 1e6 };
}

/** The process's counters now; undefined where /proc cannot be read (not Linux, or the process is gone). */
export function readCpu(pid: number | undefined): CpuReading | undefined {
  if (pid === undefined) return undefined;
  try {
    const processMs = processMillisecondsOf(readFileSync(`/proc/${pid}/stat`, "utf8"));
    const { runMs, waitMs } = schedMillisecondsOf(readFileSync(`/proc/${pid}/task/${pid}/schedstat`, "utf8"));
    return { processMs, mainRunMs: runMs, mainWaitMs: waitMs };
  } catch {
    return undefined;
  }
}

/** What was spent between two readings (undefined if either is). */
export function cpuBetween(before: CpuReading | undefined, after: CpuReading | undefined): CpuReading | undefined {
  if (before === undefined || after === undefined) return undefined;
  return {
    processMs: after.processMs - before.processMs,
    mainRunMs: after.mainRunMs - before.mainRunMs,
    mainWaitMs: after.mainWaitMs - before.mainWaitMs,
  };
}
