import { type ChildProcess, spawn } from "node:child_process";
import { delimiter, join } from "node:path";
import { linePrefixer } from "./line-prefixer.ts";
import type { Task } from "./plan.ts";

export type TaskStatus = "passed" | "failed" | "skipped";

export interface TaskResult {
  id: string;
  status: TaskStatus;
  durationMs: number;
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
      const PATH = [join(task.directory, "node_modules", ".bin"), join(options.rootDirectory, "node_modules", ".bin"), baseEnv["PATH"] ?? ""].join(delimiter);
      const child = spawn("sh", ["-c", task.command], { cwd: task.directory, env: { ...baseEnv, PATH }, stdio: ["ignore", "pipe", "pipe"], detached: true });
      running.set(task.id, child);
      child.stdout?.setEncoding("utf8").on("data", (chunk: string) => out.push(chunk));
      child.stderr?.setEncoding("utf8").on("data", (chunk: string) => err.push(chunk));
      let spawnError: Error | undefined;
      child.on("error", (error) => {
        spawnError = error;
      });
      child.on("close", (code, signal) => {
        out.flush();
        err.flush();
        running.delete(task.id);
        const durationMs = performance.now() - started;
        if (code === 0 && !spawnError) results.set(task.id, { id: task.id, status: "passed", durationMs });
        else {
          const reason = spawnError ? `could not start: ${spawnError.message}` : signal ? `ended by ${signal}` : `exit code ${code}`;
          results.set(task.id, { id: task.id, status: "failed", durationMs, reason });
        }
        schedule();
        finish();
      });
    };
    const schedule = () => {
      for (let index = 0; index < pending.length; ) {
        const task = pending[index] as Task;
        const blocked = interrupted ? "interrupted" : task.dependsOn.find((id) => results.has(id) && results.get(id)?.status !== "passed");
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
        for (const task of pending.splice(0)) results.set(task.id, { id: task.id, status: "skipped", durationMs: 0, reason: "not run: its dependencies form a cycle" });
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
