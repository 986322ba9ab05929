import { isTransientDatabaseFault } from "@deliberate/base";
import { type Clock, systemClock } from "./clock.ts";
import type { BackgroundTask, BackgroundTaskContext } from "./define-module.ts";
import type { DeliberateEngine } from "./engine.ts";
import { type IdGenerator, randomIds } from "./ids.ts";

/** Where the runner's and the tasks' log lines go. */
export type TaskLog = BackgroundTaskContext["log"];

export interface TaskRunnerOptions {
  /** The engine whose modules' tasks run (`engine.tasks`), with its store, models and settings. */
  engine: DeliberateEngine;
  clock?: Clock;
  ids?: IdGenerator;
  /** The service's log; a failed run is logged here at `error` and the schedule goes on. */
  log?: TaskLog;
  /** Milliseconds between runs by task name, replacing the task's own `intervalMs` (configuration). */
  intervals?: Readonly<Record<string, number>>;
}

/** Runs the composed modules' background tasks while a service is up. */
export interface TaskRunner {
  /** The names of the tasks it runs. */
  readonly names: readonly string[];
  /**
   * Runs every task's `start` (awaited, in module order: a failure rejects,
   * so a service does not serve with a module half started), then schedules
   * each task's runs, the next one `intervalMs` after the previous ends.
   */
  start(): Promise<void>;
  /** Runs one task now, after a run of it in flight ends (runs of one task never overlap); rejects with its error. */
  runNow(name: string): Promise<void>;
  /** Stops scheduling, aborts the tasks' signal, waits for runs in flight, then runs each task's `stop`. */
  stop(): Promise<void>;
}

/**
 * The engine's task runner: a service creates it with its engine, awaits
 * `start()` before it serves and `stop()` when it shuts down. Timers are
 * unref'd, so they never keep a process alive on their own.
 */
export function createTaskRunner(options: TaskRunnerOptions): TaskRunner {
  const { engine } = options;
  const clock = options.clock ?? systemClock;
  const ids = options.ids ?? randomIds;
  const log: TaskLog = options.log ?? (() => {});
  const controller = new AbortController();
  const tasks = new Map<string, BackgroundTask>(engine.tasks.map((task) => [task.name, task]));
  const inFlight = new Map<string, Promise<void>>();
  const timers = new Map<string, ReturnType<typeof setTimeout>>();
  let started = false;
  let stopped = false;

  function contextNow(): BackgroundTaskContext {
    return {
      store: engine.store,
      now: clock.now(),
      signal: controller.signal,
      models: engine.models,
      settings: engine.settingsFor,
      modes: engine.modes,
      concurrency: engine.concurrencyNow,
      clock,
      ids,
      log,
    };
  }

  function intervalOf(task: BackgroundTask): number {
    return options.intervals?.[task.name] ?? task.intervalMs;
  }

  /** Runs a task after its run in flight (if any); the returned promise settles with this run. */
  function runSerialized(task: BackgroundTask): Promise<void> {
    const previous = inFlight.get(task.name) ?? Promise.resolve();
    const run = previous.catch(() => undefined).then(() => task.run(contextNow()));
    const settled = run.catch(() => undefined);
    inFlight.set(task.name, settled);
    void settled.then(() => {
      if (inFlight.get(task.name) === settled) inFlight.delete(task.name);
    });
    return run;
  }

  function schedule(task: BackgroundTask): void {
    if (stopped) return;
    const timer = setTimeout(() => {
      timers.delete(task.name);
      runSerialized(task)
        .catch((error: unknown) =>
          // An unavailable database is not the task's failure: it runs again at its next interval.
          isTransientDatabaseFault(error)
            ? log("warn", "background task skipped: the database is unavailable", { task: task.name, error })
            : log("error", "background task failed", { task: task.name, error }),
        )
        .finally(() => schedule(task));
    }, intervalOf(task));
    timer.unref?.();
    timers.set(task.name, timer);
  }

  return {
    names: [...tasks.keys()],
    async start() {
      if (started) return;
      started = true;
      for (const task of tasks.values()) {
        if (task.start) await task.start(contextNow());
      }
      for (const task of tasks.values()) schedule(task);
    },
    runNow(name) {
      const task = tasks.get(name);
      if (!task)
        return Promise.reject(
          new Error(`No background task named '${name}'; tasks: ${[...tasks.keys()].join(", ") || "(none)"}`),
        );
      return runSerialized(task);
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      for (const timer of timers.values()) clearTimeout(timer);
      timers.clear();
      controller.abort();
      await Promise.all([...inFlight.values()]);
      if (!started) return;
      for (const task of tasks.values()) {
        if (!task.stop) continue;
        await task
          .stop(contextNow())
          .catch((error: unknown) => log("error", "background task failed to stop", { task: task.name, error }));
      }
    },
  };
}
