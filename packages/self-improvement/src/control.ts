import { DeliberateError } from "@deliberate/base";
import { type Clock, type IdGenerator, randomIds, systemClock } from "@deliberate/engine";
import type { Store } from "@deliberate/store";
import { type BreakerState, breakerAt, breakerRemainingMs, closedBreaker } from "./circuit-breaker.ts";
import type { SelfImprovementConfig } from "./config.ts";
import { applyDiagnosis, describeExecutionBlock, executionBlock, rollbackAction } from "./executor.ts";
import { readHealth } from "./loop.ts";
import type { HealthReport } from "./monitor.ts";
import type {
  ActionRecord,
  ActionStatus,
  CycleRecord,
  DiagnosisRecord,
  DiagnosisStatus,
  LearningRecord,
  OverrideRecord,
} from "./records.ts";
import type { OverrideSettingsSource } from "./settings-source.ts";
import {
  readBreaker,
  readPausedUntil,
  type ServiceSettingsRecord,
  serviceStateKey,
  writeBreaker,
  writePausedUntil,
} from "./state.ts";
import type {
  SelfImprovementRepositories,
  SelfImprovementRepository,
} from "./store/repositories/self-improvement.repository.ts";
import { targetLabel } from "./types.ts";

/** The loop at a glance (`status`). */
export interface SelfImprovementStatus {
  /**
   * Where mode, analyzer and cycle come from: the settings the running service
   * recorded in this database (at its start and every cycle it leads), or, when
   * none has, this process's own configuration.
   */
  settings_from:
    | { source: "service"; holder: string; recorded_at: string }
    | { source: "environment"; holder: null; recorded_at: null };
  mode: SelfImprovementConfig["mode"];
  analyzer: SelfImprovementConfig["analyzer"]["use"];
  cycle_ms: number;
  paused_until: string | null;
  leader: { holder: string; acquired_at: string; expires_at: string; live: boolean } | null;
  circuit_breaker: CircuitBreakerReport;
  last_cycle: CycleRecord | null;
  overrides: Array<OverrideRecord & { target: string }>;
  pending_diagnoses: number;
  actions_evaluating: number;
  actions_last_hour: number;
  max_actions_per_hour: number;
  /** Why no action may be applied now (cooldown, hourly limit), or null. */
  execution_block: string | null;
}

/** The circuit breaker as of now, with its thresholds (`circuit-breaker`). */
export interface CircuitBreakerReport extends BreakerState {
  remaining_ms: number;
  reopens_at: string | null;
  failure_threshold: number;
  reset_timeout_ms: number;
  success_threshold: number;
}

/** An action with its measured lesson (`history`). */
export interface HistoryEntry extends ActionRecord {
  target: string;
  lesson: string | null;
}

/**
 * The operations on the loop's records, shared by the CLI and the HTTP API:
 * reads (status, history, diagnostics, config, circuit breaker, baselines)
 * and changes (pause, rollback, approve, reject). With `source` (inside the
 * service) a change takes effect on the next model call; without it (the
 * CLI) the service picks it up within `syncMs`.
 */
export interface SelfImprovementControl {
  status(): Promise<SelfImprovementStatus>;
  history(filter?: { limit?: number; status?: ActionStatus }): Promise<HistoryEntry[]>;
  diagnostics(filter?: { limit?: number; status?: DiagnosisStatus }): Promise<DiagnosisRecord[]>;
  config(): SelfImprovementConfig;
  circuitBreaker(): Promise<CircuitBreakerReport>;
  baselines(): Promise<HealthReport>;
  /** Pauses the loop for `duration` (`90s`, `30m`, `2h`, `1d`, or milliseconds); `0` resumes. */
  pause(duration: string | number): Promise<{ paused_until: string | null }>;
  rollback(actionId: string, reason?: string): Promise<ActionRecord>;
  approve(diagnosisId: string): Promise<ActionRecord>;
  reject(diagnosisId: string, reason?: string): Promise<DiagnosisRecord>;
  /** Closes the breaker by hand (after fixing what made the cycles fail). */
  resetCircuitBreaker(): Promise<CircuitBreakerReport>;
}

export interface ControlOptions {
  store: Store<SelfImprovementRepositories>;
  config: SelfImprovementConfig;
  source?: OverrideSettingsSource;
  clock?: Clock;
  ids?: IdGenerator;
}

const durationUnits: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
/** At most a week: a longer pause is better expressed as mode `off`. */
const maximumPauseMs = 7 * 86_400_000;

/** `90s`, `30m`, `2h`, `1d`, `1h30m`, `500ms` or plain milliseconds; INVALID_INPUT naming `duration` otherwise. */
export function parseDuration(text: string | number): number {
  if (typeof text === "number") {
    if (Number.isInteger(text) && text >= 0) return text;
  } else {
    const trimmed = text.trim().toLowerCase();
    if (/^\d+$/.test(trimmed)) return Number(trimmed);
    const parts = [...trimmed.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d)/g)];
    if (parts.length > 0 && parts.map((part) => part[0]).join("") === trimmed) {
      return Math.round(
        parts.reduce((total, part) => total + Number(part[1]) * (durationUnits[part[2] as string] as number), 0),
      );
    }
  }
  throw new DeliberateError({
    code: "INVALID_INPUT",
    message: `Not a duration: '${String(text)}'.`,
    issues: [{ field: "duration", message: "expected e.g. 90s, 30m, 2h, 1d, 1h30m, or milliseconds" }],
    hint: "Pause with a duration such as 30m; 0 resumes.",
  });
}

/** The circuit breaker as reported: its state at `now`, when it reopens, and its thresholds. */
async function breakerReportOf(
  from: SelfImprovementRepository,
  config: ControlOptions["config"],
  now: Date,
): Promise<CircuitBreakerReport> {
  const state = breakerAt(await readBreaker(from), now, config.circuitBreaker);
  return {
    ...state,
    remaining_ms: breakerRemainingMs(state, now, config.circuitBreaker),
    reopens_at:
      state.state === "open" && state.opened_at
        ? new Date(new Date(state.opened_at).getTime() + config.circuitBreaker.resetTimeoutMs).toISOString()
        : null,
    failure_threshold: config.circuitBreaker.failureThreshold,
    reset_timeout_ms: config.circuitBreaker.resetTimeoutMs,
    success_threshold: config.circuitBreaker.successThreshold,
  };
}

/** What `status` reports, read in one snapshot. */
async function readStatus(
  store: ControlOptions["store"],
  config: ControlOptions["config"],
  now: Date,
): Promise<SelfImprovementStatus> {
  // One snapshot: the lease, the last cycle, the breaker and the counts are of one moment,
  // even while a replica's cycle commits (separate pooled reads could mix two).
  const [pausedUntil, lease, breaker, cycles, overrides, pending, evaluating, lastHour, block, service] =
    await store.snapshot(({ selfImprovement: snapshot }) =>
      Promise.all([
        readPausedUntil(snapshot, now),
        snapshot.leases.get(config.lease.name),
        breakerReportOf(snapshot, config, now),
        snapshot.cycles.list(1),
        snapshot.overrides.all(),
        snapshot.diagnoses.count("pending"),
        snapshot.actions.list({ status: "evaluating", limit: 1000 }),
        snapshot.actions.countAppliedSince(new Date(now.getTime() - 3_600_000).toISOString()),
        executionBlock(snapshot, config, now),
        snapshot.state.get<ServiceSettingsRecord>(serviceStateKey),
      ]),
    );
  return {
    settings_from: service
      ? { source: "service", holder: service.holder, recorded_at: service.recorded_at }
      : { source: "environment", holder: null, recorded_at: null },
    mode: service?.mode ?? config.mode,
    analyzer: service?.analyzer ?? config.analyzer.use,
    cycle_ms: service?.cycle_ms ?? config.cycleMs,
    paused_until: pausedUntil,
    leader: lease ? { ...lease, live: lease.expires_at > now.toISOString() } : null,
    circuit_breaker: breaker,
    last_cycle: cycles[0] ?? null,
    overrides: overrides.map((override) => ({ ...override, target: targetLabel(override.scope, override.setting) })),
    pending_diagnoses: pending,
    actions_evaluating: evaluating.length,
    actions_last_hour: lastHour,
    max_actions_per_hour: config.executor.maxActionsPerHour,
    execution_block: block ? describeExecutionBlock(block) : null,
  };
}

/** The diagnosis, when it awaits approval; CONFLICT naming its status otherwise. */
function requirePending(diagnosis: DiagnosisRecord, hint: string): DiagnosisRecord {
  if (diagnosis.status === "pending") return diagnosis;
  throw new DeliberateError({
    code: "CONFLICT",
    message: `Diagnosis ${diagnosis.id} is ${diagnosis.status}, not awaiting approval.`,
    issues: [{ field: "diagnosis_id", message: `status ${diagnosis.status}` }],
    hint,
  });
}

/** Marks a pending diagnosis rejected and, for a proposed adjustment, records the operator's lesson. */
async function rejectDiagnosis(
  store: ControlOptions["store"],
  ids: IdGenerator,
  diagnosis: DiagnosisRecord,
  why: string,
  now: string,
): Promise<void> {
  await store.transaction(async (repositories) => {
    await repositories.selfImprovement.diagnoses.setStatus(diagnosis.id, {
      status: "rejected",
      status_reason: why,
      updated_at: now,
    });
    if (diagnosis.action.kind === "adjust") {
      const { action } = diagnosis;
      await repositories.selfImprovement.learnings.insert({
        id: ids.next("sil"),
        created_at: now,
        action_id: null,
        diagnosis_id: diagnosis.id,
        tool: diagnosis.tool,
        scope: action.scope,
        setting: action.setting,
        direction: action.direction,
        verdict: "rejected",
        reward: null,
        confidence: null,
        breakdown: [],
        lessons: [
          `An operator rejected ${targetLabel(action.scope, action.setting)} ${action.from} → ${action.to} for ${diagnosis.tool} ${diagnosis.metric}: ${why}.`,
        ],
      });
    }
  });
}

/** The operations over a store opened with the module (`module.control(store)` inside a service). */
export function createSelfImprovementControl(options: ControlOptions): SelfImprovementControl {
  const { store, config } = options;
  const clock = options.clock ?? systemClock;
  const ids = options.ids ?? randomIds;
  const repository = store.selfImprovement;
  const executor = () => ({
    store,
    config,
    ids,
    now: clock.now(),
    ...(options.source ? { source: options.source } : {}),
  });

  const breakerReport = (from: SelfImprovementRepository = repository) => breakerReportOf(from, config, clock.now());

  return {
    status: () => readStatus(store, config, clock.now()),

    history(filter = {}) {
      // One snapshot, like status(): an action and its lesson are of one moment.
      return store.snapshot(async ({ selfImprovement: snapshot }) => {
        const actions = await snapshot.actions.list({
          limit: filter.limit ?? 20,
          ...(filter.status ? { status: filter.status } : {}),
        });
        return Promise.all(
          actions.map(async (action) => {
            const learning: LearningRecord | undefined = await snapshot.learnings.forAction(action.id);
            return {
              ...action,
              target: targetLabel(action.scope, action.setting),
              lesson: learning?.lessons.join(" ") ?? null,
            };
          }),
        );
      });
    },

    diagnostics: (filter = {}) =>
      repository.diagnoses.list({ limit: filter.limit ?? 20, ...(filter.status ? { status: filter.status } : {}) }),

    config: () => config,

    circuitBreaker: () => breakerReport(),

    baselines: () => readHealth(store, config, clock.now()),

    async pause(duration) {
      const milliseconds = parseDuration(duration);
      if (milliseconds > maximumPauseMs) {
        throw new DeliberateError({
          code: "INVALID_INPUT",
          message: `A pause lasts at most 7 days; got ${milliseconds} ms.`,
          issues: [{ field: "duration", message: "at most 7d" }],
          hint: "For longer, set DELIBERATE_SELF_IMPROVEMENT_MODE=off.",
        });
      }
      const now = clock.now();
      const until = milliseconds === 0 ? null : new Date(now.getTime() + milliseconds).toISOString();
      await writePausedUntil(repository, until, now);
      return { paused_until: until };
    },

    async rollback(actionId, reason) {
      const dependencies = executor();
      const action = await repository.actions.get(actionId);
      const why = reason?.trim() ? reason.trim() : "rolled back by an operator";
      const lesson = `An operator rolled back ${targetLabel(action.scope, action.setting)} ${action.from_value} → ${action.to_value}: ${why}.`;
      return rollbackAction(dependencies, actionId, {
        by: "operator",
        reason: why,
        learning: {
          id: ids.next("sil"),
          created_at: dependencies.now.toISOString(),
          action_id: action.id,
          diagnosis_id: action.diagnosis_id,
          tool: action.tools.join(","),
          scope: action.scope,
          setting: action.setting,
          direction: action.direction,
          verdict: "rolled_back_by_operator",
          reward: null,
          confidence: null,
          breakdown: [],
          lessons: [lesson],
        },
      });
    },

    async approve(diagnosisId) {
      const diagnosis = requirePending(
        await repository.diagnoses.get(diagnosisId),
        "Approve a diagnosis listed as pending by `deliberate self-improve diagnostics`.",
      );
      return applyDiagnosis(executor(), diagnosis, "operator");
    },

    async reject(diagnosisId, reason) {
      const diagnosis = requirePending(
        await repository.diagnoses.get(diagnosisId),
        "Only pending diagnoses can be rejected.",
      );
      await rejectDiagnosis(
        store,
        ids,
        diagnosis,
        reason?.trim() ? reason.trim() : "rejected by an operator",
        clock.now().toISOString(),
      );
      return repository.diagnoses.get(diagnosis.id);
    },

    async resetCircuitBreaker() {
      await writeBreaker(repository, closedBreaker, clock.now());
      return breakerReport();
    },
  };
}
