import type { Clock, IdGenerator, ModeSettings } from "@deliberate/engine";
import type { ModelRouter } from "@deliberate/providers";
import type { Store } from "@deliberate/store";
import { checkAllowlist, settingFitsScope } from "./allowlist.ts";
import type { AnalysisInput, DiagnosisDraft, Lesson, TargetOption } from "./analyzer/analysis-input.ts";
import { analyze } from "./analyzer/analyze.ts";
import { diagnosisModeId } from "./analyzer/model-analyzer.ts";
import {
  type BreakerState,
  breakerAt,
  breakerRemainingMs,
  recordBreakerFailure,
  recordBreakerSuccess,
} from "./circuit-breaker.ts";
import type { SelfImprovementConfig } from "./config.ts";
import {
  applyDiagnosis,
  describeExecutionBlock,
  type ExecutionBlock,
  executionBlock,
  type ExecutorDependencies,
  reloadOverrides,
} from "./executor.ts";
import { loopLeaderLock } from "./leader.ts";
import { type Evaluation, evaluateActions } from "./evaluate-actions.ts";
import { buildHealthReport, type HealthReport, type Trigger } from "./monitor.ts";
import type { ActionRecord, CycleOutcome, DiagnosisRecord } from "./records.ts";

export type { Evaluation } from "./evaluate-actions.ts";
import type { OverrideSettingsSource } from "./settings-source.ts";
import { readBreaker, readPausedUntil, serviceStateKey, serviceStateOf, writeBreaker } from "./state.ts";
import type {
  SelfImprovementRepositories,
  SelfImprovementRepository,
} from "./store/repositories/self-improvement.repository.ts";
import {
  type AdjustableSetting,
  adjustableSettings,
  engineScope,
  type Severity,
  severityRank,
  targetLabel,
} from "./types.ts";

/** Why a cycle did not diagnose (design §14.4 AnalysisBlocked, plus the executor's limits checked up front). */
export type BlockReason =
  | { kind: "circuit_open"; remaining_ms: number }
  | { kind: "no_triggers"; suppressed: string[] }
  | { kind: "severity_too_low"; severity: Severity; minimum: Severity }
  | { kind: "too_many_pending"; count: number; max: number }
  | { kind: "already_pending"; diagnosis_id: string; target: string; tool: string }
  | ExecutionBlock;

/** A blocked cycle's reason in words (the cycle's recorded reason). */
export function describeBlock(block: BlockReason): string {
  switch (block.kind) {
    case "circuit_open":
      return `circuit open: ${Math.ceil(block.remaining_ms / 1000)} s until it lets a cycle through`;
    case "no_triggers":
      return block.suppressed.length === 0
        ? "no triggers: every tool is within its baseline"
        : `no triggers to act on (${block.suppressed.join("; ")})`;
    case "severity_too_low":
      return `severity too low: the worst trigger is ${block.severity}, action needs ${block.minimum}`;
    case "too_many_pending":
      return `too many pending: ${block.count} diagnoses awaiting approval or actions being measured (at most ${block.max})`;
    case "already_pending":
      return `already pending: ${block.diagnosis_id} suggests a change of ${block.target} for ${block.tool} and awaits approval (one pending diagnosis per tool and setting)`;
    default:
      return describeExecutionBlock(block);
  }
}

/** What one cycle did. */
export interface CycleResult {
  /** `not_leader`: another replica holds the lease; nothing was done or recorded. */
  outcome: CycleOutcome | "not_leader";
  reason: string;
  cycle_id: string | null;
  blocked: BlockReason | null;
  evaluations: Evaluation[];
  triggers: Trigger[];
  diagnosis: DiagnosisRecord | null;
  action: ActionRecord | null;
  breaker: BreakerState;
  leader: { holder: string; expires_at: string };
  /** Set when the model analyzer failed and the rules diagnosed instead (`analyzer: auto`). */
  analyzer_fallback?: string;
}

/** Everything one cycle needs from the service and the module. */
export interface CycleDependencies {
  store: Store<SelfImprovementRepositories>;
  config: SelfImprovementConfig;
  source: OverrideSettingsSource;
  /** This process's identity in the leader lease. */
  holder: string;
  clock: Clock;
  ids: IdGenerator;
  models: ModelRouter;
  settings: (mode: string) => ModeSettings;
  modes: readonly string[];
  concurrency: () => number;
  signal?: AbortSignal;
  /** Writes the tool/mode observations gathered since the last flush. */
  flushObservations: () => Promise<void>;
}

const keptCycles = 1000;

/** Whether the service has a model of its own (not host-executed, not unconfigured). */
export function hasServerModel(models: ModelRouter): boolean {
  return models.configured && models.provider !== "host";
}

/** The settings the analysis may move for a tool: its modes' allowlisted settings and the engine's concurrency. */
async function targetsFor(input: {
  dependencies: CycleDependencies;
  modes: readonly string[];
  busy: ReadonlySet<string>;
}): Promise<TargetOption[]> {
  const { dependencies } = input;
  const allowlist = dependencies.config.executor.allowlist;
  const overrides = await dependencies.store.selfImprovement.overrides.all();
  const targets: TargetOption[] = [];
  const add = (scope: string, setting: AdjustableSetting, current: number | undefined) => {
    const entry = allowlist[setting];
    const label = targetLabel(scope, setting);
    if (!entry || current === undefined || !settingFitsScope(scope, setting) || input.busy.has(label)) return;
    const override = overrides.find((row) => row.scope === scope && row.setting === setting);
    targets.push({
      scope,
      setting,
      label,
      current,
      override: override?.value ?? null,
      override_action_id: override?.action_id ?? null,
      entry,
    });
  };
  for (const mode of input.modes) {
    if (mode === diagnosisModeId || !dependencies.modes.includes(mode)) continue;
    const settings = dependencies.settings(mode);
    for (const setting of adjustableSettings) {
      if (setting === "concurrency") continue;
      // Anthropic's API takes no temperature (the provider never sends it): changing it would change nothing.
      if (setting === "temperature" && dependencies.models.provider === "anthropic") continue;
      // A mode that sets no timeout runs with the provider's; one without thinking is not given any.
      const current =
        setting === "timeoutMs" ? (settings.timeoutMs ?? dependencies.config.defaultTimeoutMs) : settings[setting];
      add(mode, setting, current);
    }
  }
  add(engineScope, "concurrency", dependencies.concurrency());
  return targets;
}

async function lessonsFor(
  repository: SelfImprovementRepository,
  config: SelfImprovementConfig,
  now: Date,
): Promise<Lesson[]> {
  // Every lesson within the TTL: the guards check them all; the model's prompt shows the newest `maxLessons`.
  const learnings = await repository.learnings.list({
    since: new Date(now.getTime() - config.analyzer.lessonTtlMs).toISOString(),
    limit: 1000,
  });
  return learnings.map((learning) => ({
    created_at: learning.created_at,
    tool: learning.tool,
    scope: learning.scope,
    setting: learning.setting,
    direction: learning.direction,
    verdict: learning.verdict,
    text: learning.lessons.join(" "),
  }));
}

/** Per tool, when a setting it depends on last changed (an action applied or undone): its window starts there. */
export async function changedAtByTool(repository: SelfImprovementRepository): Promise<Map<string, string>> {
  const changed = new Map<string, string>();
  for (const action of await repository.actions.list({ limit: 500 })) {
    const at =
      action.rolled_back_at !== null && action.rolled_back_at > action.applied_at
        ? action.rolled_back_at
        : action.applied_at;
    for (const tool of action.tools) if ((changed.get(tool) ?? "") < at) changed.set(tool, at);
  }
  return changed;
}

/** Phase 1 as of `now`: the monitor over the invocation rows within the lookback. */
export async function readHealth(
  store: Store<SelfImprovementRepositories>,
  config: SelfImprovementConfig,
  now: Date,
): Promise<HealthReport> {
  const repository = store.selfImprovement;
  // Invocation rows may be batched: write them before reading the table.
  await store.invocations.flush();
  const [rows, changedAt, toolModes] = await Promise.all([
    repository.invocations.since({
      since: new Date(now.getTime() - config.monitor.lookbackMs).toISOString(),
      limit: config.monitor.maxRows,
    }),
    changedAtByTool(repository),
    repository.toolModes.all(),
  ]);
  return buildHealthReport({ rows, now, config: config.monitor, changedAt, toolModes });
}

/** One cycle under way: what every step reads, and how it ends (records the cycle). */
interface CycleRun {
  dependencies: CycleDependencies;
  executor: ExecutorDependencies;
  now: Date;
  nowIso: string;
  result: CycleResult;
  /** What counts against the breaker in this cycle. */
  failures: string[];
  finish(outcome: CycleOutcome, reason: string, countsForBreaker: boolean): Promise<CycleResult>;
  /** The reason with what the learner did this cycle appended. */
  withLearning(reason: string): string;
  blocked(block: BlockReason): Promise<CycleResult>;
}

/** The trigger to diagnose, and what the analysis must leave alone. */
interface Chosen {
  worst: Trigger;
  report: HealthReport;
  busyTargets: ReadonlySet<string>;
}

/** Records the cycle: its outcome, reason and details, with the breaker's state, in one transaction. */
function createFinish(
  run: Omit<CycleRun, "finish" | "withLearning" | "blocked">,
  breakerAtStart: BreakerState,
): CycleRun["finish"] {
  const { dependencies, result, failures, now, nowIso } = run;
  const { config, store } = dependencies;
  return async (outcome, reason, countsForBreaker) => {
    result.outcome = outcome;
    result.reason = reason;
    let breaker = breakerAtStart;
    if (countsForBreaker) {
      breaker =
        failures.length > 0
          ? recordBreakerFailure(breaker, now, failures.join("; "), config.circuitBreaker)
          : recordBreakerSuccess(breaker, now, config.circuitBreaker);
    }
    result.breaker = breaker;
    // The breaker and the cycle land together, so a status snapshot never shows one without the other.
    await store.transaction(async ({ selfImprovement }) => {
      if (countsForBreaker) await writeBreaker(selfImprovement, breaker, now);
      await selfImprovement.cycles.insert({
        id: result.cycle_id as string,
        started_at: nowIso,
        finished_at: dependencies.clock.now().toISOString(),
        holder: dependencies.holder,
        outcome,
        reason,
        diagnosis_id: result.diagnosis?.id ?? null,
        action_id: result.action?.id ?? null,
        details: {
          blocked: result.blocked,
          evaluations: result.evaluations,
          triggers: result.triggers.map((trigger) => ({
            tool: trigger.tool,
            metric: trigger.metric,
            severity: trigger.severity,
            deviation_pct: Math.round(trigger.deviation_pct),
          })),
          failures,
          ...(result.analyzer_fallback ? { analyzer_fallback: result.analyzer_fallback } : {}),
        },
      });
      await selfImprovement.cycles.prune(keptCycles);
    });
    return result;
  };
}

/**
 * One cycle of the loop (design §14.1): take or renew the leader lease (a
 * replica without it does nothing), restore the overrides, then the learner
 * judges the actions being measured (always, even with the breaker open:
 * undoing a measured regression is never blocked), then — unless paused,
 * off, or blocked by the breaker — monitor, analyze and execute. Every
 * cycle but `not_leader` is recorded with its outcome and reason.
 */
export async function runCycle(dependencies: CycleDependencies): Promise<CycleResult> {
  const { config, store } = dependencies;
  const now = dependencies.clock.now();
  const repository = store.selfImprovement;
  const nowIso = now.toISOString();
  // The lease is taken at the cycle's time, as every other time of the cycle.
  const lease = await loopLeaderLock(store.db, config, dependencies.holder, { now: () => now }).claim();
  const leader = { holder: lease.holder, expires_at: lease.expires_at };
  const breaker = breakerAt(await readBreaker(repository), now, config.circuitBreaker);
  if (!lease.held) {
    return {
      outcome: "not_leader",
      reason: `${lease.holder} leads until ${lease.expires_at}`,
      cycle_id: null,
      blocked: null,
      evaluations: [],
      triggers: [],
      diagnosis: null,
      action: null,
      breaker,
      leader,
    };
  }
  await dependencies.flushObservations();
  await store.selfImprovement.state.put(serviceStateKey, serviceStateOf(dependencies, nowIso), nowIso);
  const executor: ExecutorDependencies = { store, config, source: dependencies.source, ids: dependencies.ids, now };
  await reloadOverrides(executor);

  const result: CycleResult = {
    outcome: "blocked",
    reason: "",
    cycle_id: dependencies.ids.next("sic"),
    blocked: null,
    evaluations: [],
    triggers: [],
    diagnosis: null,
    action: null,
    breaker,
    leader,
  };
  const base = { dependencies, executor, now, nowIso, result, failures: [] as string[] };
  const finish = createFinish(base, breaker);
  let learnedNote: string[] = [];
  const withLearning = (reason: string) =>
    learnedNote.length > 0 ? `${reason} (learner: ${learnedNote.join(", ")})` : reason;
  const blocked = (block: BlockReason) => {
    result.blocked = block;
    return finish("blocked", withLearning(describeBlock(block)), true);
  };
  const run: CycleRun = { ...base, finish, withLearning, blocked };

  const pausedUntil = await readPausedUntil(repository, now);
  if (pausedUntil !== null) return finish("paused", `paused until ${pausedUntil}`, false);

  await repository.diagnoses.expirePending(
    new Date(now.getTime() - config.analyzer.pendingTtlMs).toISOString(),
    nowIso,
  );
  try {
    const learned = await evaluateActions(dependencies, executor, now);
    result.evaluations = learned.evaluations;
    run.failures.push(...learned.regressions.map((lesson) => `regression: ${lesson}`));
  } catch (error) {
    run.failures.push(`learner failed: ${(error as Error).message}`);
    return finish("failed", run.failures.join("; "), true);
  }
  learnedNote = result.evaluations
    .filter((entry) => entry.outcome !== "waiting")
    .map((entry) => `${entry.target} ${entry.outcome}`);

  if (config.mode === "off")
    return finish("off", withLearning("mode off: no new diagnoses or actions"), run.failures.length > 0);
  if (breaker.state === "open") {
    result.blocked = { kind: "circuit_open", remaining_ms: breakerRemainingMs(breaker, now, config.circuitBreaker) };
    return finish("blocked", withLearning(describeBlock(result.blocked)), run.failures.length > 0);
  }
  const chosen = await chooseTrigger(run);
  if (!("worst" in chosen)) return chosen;
  return analyzeAndAct(run, chosen);
}

/** Phase 1 and the blocks before analysis: the worst trigger not set aside, or the recorded blocked cycle. */
async function chooseTrigger(run: CycleRun): Promise<Chosen | CycleResult> {
  const { dependencies, now, nowIso, result } = run;
  const { config, store } = dependencies;
  const repository = store.selfImprovement;
  let report: HealthReport;
  try {
    report = await readHealth(store, config, now);
  } catch (error) {
    run.failures.push(`monitor failed: ${(error as Error).message}`);
    return run.finish("failed", run.failures.join("; "), true);
  }
  result.triggers = report.triggers;
  const evaluating = await repository.actions.list({ status: "evaluating", limit: 100 });
  const busyTools = new Set(evaluating.flatMap((action) => action.tools));
  const busyTargets = new Set(evaluating.map((action) => targetLabel(action.scope, action.setting)));
  const recentNoAction = await repository.diagnoses.list({
    status: "no_action",
    since: new Date(now.getTime() - config.analyzer.noActionRevisitMs).toISOString(),
    limit: 200,
  });
  const pendingDiagnoses = await repository.diagnoses.list({ status: "pending", limit: 500 });
  const suppressed: string[] = [];
  const actionable = report.triggers.filter((trigger) => {
    if (busyTools.has(trigger.tool)) {
      suppressed.push(`${trigger.tool} ${trigger.metric}: an action on it is being measured`);
      return false;
    }
    // One pending diagnosis per trigger: advisory mode does not file (or pay a model call for) the same one every cycle.
    const awaiting = pendingDiagnoses.find(
      (diagnosis) => diagnosis.tool === trigger.tool && diagnosis.metric === trigger.metric,
    );
    if (awaiting) {
      suppressed.push(`${trigger.tool} ${trigger.metric}: ${awaiting.id} awaits approval`);
      return false;
    }
    const silenced = recentNoAction.find(
      (diagnosis) =>
        diagnosis.tool === trigger.tool &&
        diagnosis.metric === trigger.metric &&
        diagnosis.action.kind === "none" &&
        diagnosis.action.revisit_after > nowIso,
    );
    if (silenced) {
      suppressed.push(
        `${trigger.tool} ${trigger.metric}: no action found by ${silenced.id}, revisited after ${silenced.action.kind === "none" ? silenced.action.revisit_after : ""}`,
      );
      return false;
    }
    return true;
  });
  const worst = actionable[0];
  if (!worst) return run.blocked({ kind: "no_triggers", suppressed });
  if (severityRank(worst.severity) < severityRank(config.analyzer.minSeverity))
    return run.blocked({ kind: "severity_too_low", severity: worst.severity, minimum: config.analyzer.minSeverity });
  const pending = pendingDiagnoses.length + evaluating.length;
  if (pending >= config.analyzer.maxPending)
    return run.blocked({ kind: "too_many_pending", count: pending, max: config.analyzer.maxPending });
  if (config.mode === "auto") {
    const limit = await executionBlock(repository, config, now);
    if (limit) return run.blocked(limit);
  }
  return { worst, report, busyTargets };
}

/** The diagnosis record of a draft, with the status the mode gives it. */
function diagnosisOf(run: CycleRun, worst: Trigger, draft: DiagnosisDraft): DiagnosisRecord {
  const { config } = run.dependencies;
  return {
    id: run.dependencies.ids.next("sid"),
    created_at: run.nowIso,
    updated_at: run.nowIso,
    tool: worst.tool,
    metric: worst.metric,
    severity: worst.severity,
    deviation_pct: worst.deviation_pct,
    trigger: worst,
    description: draft.description,
    suspected_cause: draft.suspected_cause,
    action: draft.action,
    rationale: draft.rationale,
    analyzer: draft.analyzer,
    rule: draft.rule,
    status: draft.action.kind === "none" ? "no_action" : config.mode === "advisory" ? "pending" : "refused",
    status_reason:
      draft.action.kind === "none"
        ? draft.action.reason
        : config.mode === "advisory"
          ? "awaiting approval (advisory mode)"
          : null,
    action_id: null,
  };
}

/** Phases 2 and 3: diagnose the chosen trigger, then record it (advisory), or apply it within the allowlist (auto). */
async function analyzeAndAct(run: CycleRun, chosen: Chosen): Promise<CycleResult> {
  const { dependencies, executor, result, nowIso } = run;
  const { config, store } = dependencies;
  const repository = store.selfImprovement;
  const { worst } = chosen;
  const baseline = chosen.report.tools.find((entry) => entry.name === worst.tool);
  if (!baseline) throw new Error(`no baseline for ${worst.tool}`);
  const toolModes = (await repository.toolModes.all()).get(worst.tool) ?? [];
  const input: AnalysisInput = {
    trigger: worst,
    baseline,
    modes: toolModes.filter((mode) => mode !== diagnosisModeId),
    targets: await targetsFor({ dependencies, modes: toolModes, busy: chosen.busyTargets }),
    lessons: await lessonsFor(repository, config, run.now),
    now: run.now,
    config,
  };
  let draft: DiagnosisDraft;
  try {
    const analysis = await analyze(input, {
      models: dependencies.models,
      serverModel: hasServerModel(dependencies.models),
      settings: dependencies.settings(diagnosisModeId),
      ...(dependencies.signal ? { signal: dependencies.signal } : {}),
    });
    draft = analysis.draft;
    if (analysis.modelFailure !== null)
      result.analyzer_fallback = `the model analyzer failed (${analysis.modelFailure}); the rules diagnosed`;
  } catch (error) {
    run.failures.push(`analyzer failed: ${(error as Error).message}`);
    return run.finish("failed", run.failures.join("; "), true);
  }
  const fallbackNote = (reason: string) =>
    run.withLearning(result.analyzer_fallback ? `${reason}; ${result.analyzer_fallback}` : reason);
  const diagnosis = diagnosisOf(run, worst, draft);
  const suggestion = draft.action;
  if (suggestion.kind === "none") {
    await repository.diagnoses.insert(diagnosis);
    result.diagnosis = diagnosis;
    return run.finish(
      "no_action",
      fallbackNote(`${worst.tool} ${worst.metric}: no action (${suggestion.reason})`),
      true,
    );
  }
  const label = targetLabel(suggestion.scope, suggestion.setting);
  if (config.mode === "advisory") {
    // One pending diagnosis per (tool, setting): another trigger of the tool proposing the same setting joins the one waiting.
    const waiting = (await repository.diagnoses.list({ status: "pending", limit: 500 })).find(
      (entry) =>
        entry.tool === worst.tool &&
        entry.action.kind === "adjust" &&
        entry.action.scope === suggestion.scope &&
        entry.action.setting === suggestion.setting,
    );
    if (waiting) {
      result.diagnosis = waiting;
      return run.blocked({ kind: "already_pending", diagnosis_id: waiting.id, target: label, tool: worst.tool });
    }
    await repository.diagnoses.insert(diagnosis);
    result.diagnosis = diagnosis;
    return run.finish(
      "advised",
      fallbackNote(`suggested ${label} ${suggestion.from} → ${suggestion.to}; awaiting approval`),
      true,
    );
  }
  // Phase 3 (auto): the allowlist decides; a refused proposal is a failed cycle.
  const verdict = checkAllowlist(config.executor.allowlist, {
    scope: suggestion.scope,
    setting: suggestion.setting,
    from: suggestion.from,
    to: suggestion.to,
  });
  if (!verdict.ok) {
    diagnosis.status_reason = `refused by the allowlist: ${verdict.reason}`;
    await repository.diagnoses.insert(diagnosis);
    result.diagnosis = diagnosis;
    run.failures.push(`refused: ${verdict.reason}`);
    return run.finish(
      "refused",
      fallbackNote(`${label} ${suggestion.from} → ${suggestion.to} refused by the allowlist: ${verdict.reason}`),
      true,
    );
  }
  diagnosis.status = "pending";
  diagnosis.status_reason = "being applied";
  await repository.diagnoses.insert(diagnosis);
  try {
    result.action = await applyDiagnosis(executor, diagnosis, "loop");
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    await repository.diagnoses.setStatus(diagnosis.id, {
      status: "refused",
      status_reason: message,
      updated_at: nowIso,
    });
    result.diagnosis = await repository.diagnoses.get(diagnosis.id);
    run.failures.push(`executor failed: ${message}`);
    return run.finish("failed", run.failures.join("; "), true);
  }
  result.diagnosis = await repository.diagnoses.get(diagnosis.id);
  return run.finish(
    "applied",
    fallbackNote(
      `applied ${label} ${suggestion.from} → ${suggestion.to} for ${worst.tool} ${worst.metric} (${worst.severity})`,
    ),
    true,
  );
}
