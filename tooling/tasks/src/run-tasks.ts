import { type ChildProcess, spawn } from "node:child_process";
import { delimiter, join } from "node:path";
import { linePrefixer } from "./line-prefixer.ts";
import type { Task } from "./plan.ts";

export type TaskStatus = "passed" | "failed" | "skipped";

export interface TaskResult {
  id: string;
  status: TaskStatus;
  durationMs: number;
  /** CPU time (user + system) of the script and every process it started and waited for; absent when it did not run or report. */
  cpuMs?: number;
  /** Why it failed or did not run: its exit code or signal, a dependency that failed, an interruption. */
  reason?: string;
}

export interface RunOptions {
  /** The workspace root: its node_modules/.bin is on every script's PATH, after the package's own. */
  rootDirectory: string;
  /** How many scripts run at once (default: every one that is ready). */
  concurrency?: number;
  /** Where the scripts' prefixed output goes (default: stdout). */
  write?: (text: string) => void;
  env?: NodeJS.ProcessEnv;
  /** Aborting stops every running script (its whole process group) and starts no more. */
  signal?: AbortSignal;
}

/**
 * The shell line each script runs in: `sh -c <script>` (the script is `$1`), then `times` writes the CPU time of
 * that shell and all it waited for to fd 3 (its second line: children's user and system time). A script ended by
 * a signal ends this shell by the same signal, so the result still says which.
 */
const measured =
  'sh -c "$1" 3>&-; status=$?; times >&3; if [ "$status" -gt 128 ] && [ "$status" -lt 193 ]; then kill -s "$(kill -l "$status")" $$; fi; exit "$status"';

/** The children's CPU time from `times` output (`0m1.20s 0m0.30s` on its second line), in ms. */
export function parseTimes(output: string): number | undefined {
  const children = output.trim().split("\n")[1];
  const match = children === undefined ? null : /^(\d+)m([\d.]+)s\s+(\d+)m([\d.]+)s$/.exec(children.trim());
  if (!match) return undefined;
  const [, userMinutes, userSeconds, systemMinutes, systemSeconds] = match.map(Number) as [
    number,
    number,
    number,
    number,
    number,
  ];
  return Math.round((userMinutes * 60 + userSeconds + systemMinutes * 60 + systemSeconds) * 1000);
}

/** How long a stopped script's processes get after SIGTERM before SIGKILL. */
const killGraceMs = 5_000;

/**
 * Runs each task's script with `sh -c` in its package folder, as soon as the
 * tasks it depends on have passed (a task whose dependency failed is
 * skipped), with every line of its output prefixed by `<package>:<script>: `.
 * Each script runs in a process group of its own so that stopping it stops
 * what it started. Resolves with one result per task, in the given order.
 */
export function runTasks(tasks: readonly Task[], options: RunOptions): Promise<TaskResult[]> {
  const write = options.write ?? ((text: string) => void process.stdout.write(text));
  const concurrency = options.concurrency ?? Number.POSITIVE_INFINITY;
  const baseEnv = options.env ?? process.env;
  const results = new Map<string, TaskResult>();
  const running = new Map<string, ChildProcess>();
  const pending = [...tasks];
  const known = new Set(tasks.map((task) => task.id));
  for (const task of tasks) {
    const missing = task.dependsOn.find((id) => !known.has(id));
    if (missing) throw new Error(`${task.id} depends on ${missing}, which is not among the tasks`);
  }

  return new Promise((resolve) => {
    let interrupted = false;
    const finish = () => {
      if (pending.length > 0 || running.size > 0) return;
      options.signal?.removeEventListener("abort", interrupt);
      resolve(tasks.map((task) => results.get(task.id) as TaskResult));
    };
    const start = (task: Task) => {
      const started = performance.now();
      const label = `${task.packageName}:${task.script}: `;
      const out = linePrefixer(label, write);
      const err = linePrefixer(label, write);
      const PATH = [
        join(task.directory, "node_modules", ".bin"),
        join(options.rootDirectory, "node_modules", ".bin"),
        baseEnv["PATH"] ?? "",
      ].join(delimiter);
      const child = spawn("sh", ["-c", measured, "sh", task.command], {
        cwd: task.directory,
        env: { ...baseEnv, PATH },
        stdio: ["ignore", "pipe", "pipe", "pipe"],
        detached: true,
      });
      running.set(task.id, child);
      child.stdout?.setEncoding("utf8").on("data", (chunk: string) => out.push(chunk));
      child.stderr?.setEncoding("utf8").on("data", (chunk: string) => err.push(chunk));
      let times = "";
      (child.stdio[3] as NodeJS.ReadableStream | null)?.setEncoding("utf8").on("data", (chunk: string) => {
        times += chunk;
      });
      let spawnError: Error | undefined;
      child.on("error", (error) => {
        spawnError = error;
      });
      child.on("close", (code, signal) => {
        out.flush();
        err.flush();
        running.delete(task.id);
        const durationMs = performance.now() - started;
        const cpuMs = parseTimes(times);
        const measuredCpu = cpuMs === undefined ? {} : { cpuMs };
        if (code === 0 && !spawnError)
          results.set(task.id, { id: task.id, status: "passed", durationMs, ...measuredCpu });
        else {
          const reason = spawnError
            ? `could not start: ${spawnError.message}`
            : signal
              ? `ended by ${signal}`
              : `exit code ${code}`;
          results.set(task.id, { id: task.id, status: "failed", durationMs, ...measuredCpu, reason });
        }
        schedule();
        finish();
      });
    };
    const schedule = () => {
      for (let index = 0; index < pending.length; ) {
        const task = pending[index] as Task;
        const blocked = interrupted
          ? "interrupted"
          : task.dependsOn.find((id) => results.has(id) && results.get(id)?.status !== "passed");
        if (blocked) {
          pending.splice(index, 1);
          const reason = blocked === "interrupted" ? "not run: interrupted" : `not run: ${blocked} did not pass`;
          results.set(task.id, { id: task.id, status: "skipped", durationMs: 0, reason });
          // A skip can unblock (skip) tasks already passed over in this sweep.
          index = 0;
          continue;
        }
        if (running.size < concurrency && task.dependsOn.every((id) => results.get(id)?.status === "passed")) {
          pending.splice(index, 1);
          start(task);
          continue;
        }
        index += 1;
      }
      // Nothing running and nothing startable: what is left waits on itself (a cycle) and never runs.
      if (running.size === 0) {
        for (const task of pending.splice(0))
          results.set(task.id, {
            id: task.id,
            status: "skipped",
            durationMs: 0,
            reason: "not run: its dependencies form a cycle",
          });
      }
    };
    const interrupt = () => {
      interrupted = true;
      schedule();
      for (const child of running.values()) stopGroup(child);
      finish();
    };
    if (options.signal?.aborted) interrupt();
    else {
      options.signal?.addEventListener("abort", interrupt, { once: true });
      schedule();
      finish();
    }
  });
}

/** SIGTERM to the script's process group, SIGKILL after the grace period if it is still there. */
function stopGroup(child: ChildProcess): void {
  const pid = child.pid;
  if (pid === undefined) return;
  const signalGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-pid, signal);
    } catch {
      // The group is gone.
    }
  };
  signalGroup("SIGTERM");
  const timer = setTimeout(() => signalGroup("SIGKILL"), killGraceMs);
  timer.unref();
  child.once("close", () => clearTimeout(timer));
}
