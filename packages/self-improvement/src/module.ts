import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import {
  type BackgroundTaskContext,
  type Clock,
  type DeliberateModule,
  defineModule,
  type IdGenerator,
  randomIds,
  systemClock,
} from "@deliberate/engine";
import type { Store } from "@deliberate/store";
import { diagnosisModeDeclaration } from "./analyzer/model-analyzer.ts";
import { resolveSelfImprovementConfig, type SelfImprovementConfig, type SelfImprovementOptions } from "./config.ts";
import { createSelfImprovementControl, type SelfImprovementControl } from "./control.ts";
import { selfImprovementOperations } from "./operations.ts";
import { createDeferredWrite, type DeferredWrite } from "./deferred-write.ts";
import { createModeObservations } from "./mode-observations.ts";
import { serviceStateKey, serviceStateOf } from "./state.ts";
import { reloadOverrides } from "./executor.ts";
import { loopLeaderLock } from "./leader.ts";
import { type CycleResult, runCycle } from "./loop.ts";
import { createOverrideSettingsSource, type OverrideSettingsSource } from "./settings-source.ts";
import { selfImprovementStore } from "./store/contribution.ts";
import type { SelfImprovementRepositories } from "./store/repositories/self-improvement.repository.ts";

/** The task that runs one cycle every `cycleMs`. */
export const cycleTaskName = "self-improvement.cycle";
/** The task that reloads the overrides every `syncMs` and records which modes each tool asks. */
export const syncTaskName = "self-improvement.sync";

const moduleName = "self-improvement";
/** How long after start-up the service's settings are recorded (a client's handshake and first listing are answered meanwhile). */
const settingsDelayMs = 1000;

/**
 * What `deliberate self-improve status` shows: this service's settings, not the CLI's environment.
 * Written a moment after start-up (or at stop, or before the first cycle), not on the way to a client's
 * first answers: a start's first write makes SQLite create its WAL and sync it to disk.
 */
function scheduleSettingsRecord(
  record: DeferredWrite,
  started: BackgroundTaskContext<SelfImprovementRepositories>,
  service: { holder: string; config: SelfImprovementConfig },
): void {
  const recordedAt = started.clock.now().toISOString();
  const write = () =>
    started.store.selfImprovement.state.put(serviceStateKey, serviceStateOf(service, recordedAt), recordedAt);
  record.schedule(
    () =>
      write().catch((error: unknown) =>
        started.log("warn", "self-improvement could not record this service's settings", { error }),
      ),
    settingsDelayMs,
  );
}

/** Restores what earlier runs applied, before the service serves its first call. */
async function restoreOverrides(
  started: BackgroundTaskContext<SelfImprovementRepositories>,
  source: OverrideSettingsSource,
): Promise<void> {
  await reloadOverrides({ store: started.store, source });
  const restored = source.all();
  if (restored.length > 0)
    started.log("info", "self-improvement restored its overrides", {
      overrides: restored.map((row) => `${row.scope}.${row.setting}=${row.value}`),
    });
}

/** A cycle that changed or judged something is logged at info; an idle one (nothing to do, only waiting) at debug. */
function cycleLogLevel(result: CycleResult): "info" | "debug" {
  const acted = result.outcome === "applied" || result.outcome === "failed" || result.outcome === "refused";
  return acted || result.evaluations.some((entry) => entry.outcome !== "waiting") ? "info" : "debug";
}

/** The module, plus what a service (or a test) needs to reach it. */
export interface SelfImprovementModule extends DeliberateModule<SelfImprovementRepositories> {
  readonly config: SelfImprovementConfig;
  /** The runtime settings source the engine reads (also `runtimeSettings`). */
  readonly settingsSource: OverrideSettingsSource;
  /** This process's identity in the leader lease. */
  readonly holder: string;
  /** The operations for the CLI (and tests), over a store opened with this module; services mount `operations`. */
  control(store: Store<SelfImprovementRepositories>): SelfImprovementControl;
  /** Runs one cycle now, with the context the service started the module's tasks with (rejects before that). */
  runCycle(): Promise<CycleResult>;
}

export interface SelfImprovementModuleOptions extends SelfImprovementOptions {
  /** Identity in the leader lease; default host:pid:random. */
  holder?: string;
}

/**
 * The self-improvement loop as a module: its tables (diagnoses, actions,
 * learnings, overrides, state, cycles, tool modes; the leader lease is the store's), a runtime
 * settings source the engine layers over every mode's settings, a mode for
 * the model analyzer (`self_improvement`), an invocation observer that learns
 * which modes each tool asks, and two background tasks: the cycle
 * (`cycleMs`) and the sync (`syncMs`). One instance per engine: it holds the
 * overrides in force for that engine.
 */
export function createSelfImprovementModule(options: SelfImprovementModuleOptions = {}): SelfImprovementModule {
  const { holder: holderOption, ...rest } = options;
  const config = resolveSelfImprovementConfig(rest);
  const holder = holderOption ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const source = createOverrideSettingsSource();
  const observations = createModeObservations();
  let context: BackgroundTaskContext<SelfImprovementRepositories> | undefined;
  const settingsRecord = createDeferredWrite(); // this service's settings for `status` (scheduleSettingsRecord)

  // Cycles of one process never overlap (the timer and runCycle() may ask at once).
  let running: Promise<unknown> = Promise.resolve();
  function cycle(current: BackgroundTaskContext<SelfImprovementRepositories>): Promise<CycleResult> {
    const next = running.catch(() => undefined).then(() => runOneCycle(current));
    running = next;
    return next;
  }

  function runOneCycle(current: BackgroundTaskContext<SelfImprovementRepositories>): Promise<CycleResult> {
    return runCycle({
      store: current.store,
      config,
      source,
      holder,
      clock: current.clock,
      ids: current.ids,
      models: current.models,
      settings: current.settings,
      modes: current.modes,
      concurrency: current.concurrency,
      signal: current.signal,
      flushObservations: () => observations.flush(current.store, current.clock.now()),
    });
  }

  const clock: Clock = { now: () => (context?.clock ?? systemClock).now() };
  const ids: IdGenerator = { next: (prefix) => (context?.ids ?? randomIds).next(prefix) };

  const module = defineModule<SelfImprovementRepositories>({
    name: moduleName,
    ...selfImprovementStore,
    modes: [diagnosisModeDeclaration],
    runtimeSettings: source,
    onInvocation(event) {
      if (event.id !== null) observations.record(event.tool, event.modes);
    },
    operations: selfImprovementOperations({ config, source }),
    capabilities: { self_improvement: { mode: config.mode, analyzer: config.analyzer.use, cycle_ms: config.cycleMs } },
    tasks: [
      {
        name: cycleTaskName,
        intervalMs: config.cycleMs,
        async start(started) {
          context = started;
          await restoreOverrides(started, source);
          scheduleSettingsRecord(settingsRecord, started, { holder, config });
        },
        async run(current) {
          context = current;
          await settingsRecord.flush(); // the start's record first (as in runCycle): a cycle's newer one must not be overwritten by it
          const result = await cycle(current);
          current.log(cycleLogLevel(result), "self-improvement cycle", {
            outcome: result.outcome,
            reason: result.reason,
          });
        },
        async stop(current) {
          await settingsRecord.flush();
          // A graceful stop hands the lead over at once instead of at the lease's expiry.
          await loopLeaderLock(current.store.db, config, holder, current.clock).release();
        },
      },
      {
        name: syncTaskName,
        intervalMs: config.syncMs,
        async run(current) {
          await observations.flush(current.store, current.clock.now());
          await reloadOverrides({ store: current.store, source });
        },
      },
    ],
  });

  return Object.assign(module, {
    config,
    settingsSource: source,
    holder,
    control: (store: Store<SelfImprovementRepositories>) =>
      createSelfImprovementControl({ store, config, source, clock, ids }),
    runCycle() {
      if (!context)
        return Promise.reject(
          new Error(
            "The self-improvement module has not been started: start the service's tasks (createTaskRunner) first.",
          ),
        );
      const started = context;
      return settingsRecord.flush().then(() => cycle(started));
    },
  });
}
