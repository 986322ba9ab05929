import { DeliberateError } from "@deliberate/base";
import type { IdGenerator } from "@deliberate/engine";
import type { Store } from "@deliberate/store";
import { checkAllowlist } from "./allowlist.ts";
import type { SelfImprovementConfig } from "./config.ts";
import { snapshotOf } from "./metrics.ts";
import { metricSampleFloor } from "./monitor.ts";
import type { ActionRecord, ActionStatus, DiagnosisRecord, LearningRecord } from "./records.ts";
import type { OverrideSettingsSource } from "./settings-source.ts";
import type {
  SelfImprovementRepositories,
  SelfImprovementRepository,
} from "./store/repositories/self-improvement.repository.ts";
import { engineScope, targetLabel } from "./types.ts";

/** What the executor works with; `source` is absent outside the service (the CLI): the service reloads within `syncMs`. */
export interface ExecutorDependencies {
  store: Store<SelfImprovementRepositories>;
  config: SelfImprovementConfig;
  source?: OverrideSettingsSource;
  ids: IdGenerator;
  now: Date;
}

/** Why no action may be applied now: the cooldown after the last one, or the hourly limit. */
export type ExecutionBlock =
  | { kind: "cooldown"; remaining_ms: number; last_applied_at: string }
  | { kind: "rate_limit"; count: number; max: number };

/** An execution block in words. */
export function describeExecutionBlock(block: ExecutionBlock): string {
  return block.kind === "cooldown"
    ? `cooldown: the last action was applied at ${block.last_applied_at}; the next may follow in ${Math.ceil(block.remaining_ms / 1000)} s`
    : `hourly limit reached: ${block.count} of ${block.max} actions in the last hour`;
}

/** The cooldown and the hourly rate limit, from the actions table (shared by replicas and the CLI). */
export async function executionBlock(
  repository: SelfImprovementRepository,
  config: SelfImprovementConfig,
  now: Date,
): Promise<ExecutionBlock | undefined> {
  const [latest] = await repository.actions.list({ limit: 1 });
  if (latest) {
    const remaining = new Date(latest.applied_at).getTime() + config.executor.cooldownMs - now.getTime();
    if (remaining > 0) return { kind: "cooldown", remaining_ms: remaining, last_applied_at: latest.applied_at };
  }
  const count = await repository.actions.countAppliedSince(new Date(now.getTime() - 60 * 60 * 1000).toISOString());
  if (count >= config.executor.maxActionsPerHour)
    return { kind: "rate_limit", count, max: config.executor.maxActionsPerHour };
  return undefined;
}

/** The tools an action on `scope` affects: those seen using the mode (and the trigger's tool); every known tool for the engine. */
export async function toolsAffected(
  repository: SelfImprovementRepository,
  scope: string,
  triggerTool: string,
): Promise<string[]> {
  const toolModes = await repository.toolModes.all();
  const tools = new Set<string>([triggerTool]);
  for (const [tool, modes] of toolModes) if (scope === engineScope || modes.includes(scope)) tools.add(tool);
  return [...tools].sort();
}

/** Loads the overrides table into the engine's runtime source (when this process has one). */
export async function reloadOverrides(dependencies: Pick<ExecutorDependencies, "store" | "source">): Promise<void> {
  if (dependencies.source) dependencies.source.replace(await dependencies.store.selfImprovement.overrides.all());
}

/**
 * Phase 3: applies a diagnosis's adjustment. Checks, in order: it suggests an
 * adjustment; the allowlist admits it; the setting's override is still the
 * one diagnosed (else CONFLICT: diagnose again); the cooldown and hourly
 * limit. Then, in one transaction: the action (with the value and override it
 * replaces), the override, the diagnosis marked applied. The engine's runtime
 * source is reloaded, so the next model call uses the new value.
 */
export async function applyDiagnosis(
  dependencies: ExecutorDependencies,
  diagnosis: DiagnosisRecord,
  appliedBy: "loop" | "operator",
): Promise<ActionRecord> {
  const { store, config, now } = dependencies;
  const repository = store.selfImprovement;
  const suggestion = diagnosis.action;
  if (suggestion.kind !== "adjust") {
    throw new DeliberateError({
      code: "CONFLICT",
      message: `Diagnosis ${diagnosis.id} suggests no action: ${suggestion.reason}`,
      issues: [{ field: "diagnosis_id", message: "suggests no action" }],
      hint: "Only diagnoses that suggest an adjustment can be approved.",
    });
  }
  const label = targetLabel(suggestion.scope, suggestion.setting);
  const verdict = checkAllowlist(config.executor.allowlist, {
    scope: suggestion.scope,
    setting: suggestion.setting,
    from: suggestion.from,
    to: suggestion.to,
  });
  if (!verdict.ok) {
    throw new DeliberateError({
      code: "CONFLICT",
      message: `The allowlist refuses ${label} ${suggestion.from} → ${suggestion.to}: ${verdict.reason}`,
      issues: [{ field: "diagnosis_id", message: verdict.reason }],
      hint: "Change the allowlist (DELIBERATE_SELF_IMPROVEMENT_ALLOWLIST) if the bound is wrong, or reject the diagnosis.",
    });
  }
  const current = await repository.overrides.get(suggestion.scope, suggestion.setting);
  if ((current?.value ?? null) !== suggestion.previous_override) {
    throw new DeliberateError({
      code: "CONFLICT",
      message: `${label} changed since diagnosis ${diagnosis.id} (override ${suggestion.previous_override ?? "none"} then, ${current?.value ?? "none"} now).`,
      issues: [{ field: "diagnosis_id", message: "the setting changed since the diagnosis" }],
      hint: "Reject it; the next cycle diagnoses from the current value.",
    });
  }
  const block = await executionBlock(repository, config, now);
  if (block) {
    throw new DeliberateError({
      code: "LIMIT_EXCEEDED",
      message: `No action may be applied now: ${describeExecutionBlock(block)}.`,
      hint:
        block.kind === "cooldown"
          ? "Approve again after the cooldown."
          : "Approve again when fewer actions were applied in the last hour.",
      retryable: true,
    });
  }
  const tools = await toolsAffected(repository, suggestion.scope, diagnosis.tool);
  const beforeFrom = diagnosis.trigger.window_from;
  await store.invocations.flush();
  const before = await repository.invocations.between({
    tools,
    from: beforeFrom,
    to: now.toISOString(),
    limit: config.learner.maxSamples,
    take: "last",
  });
  const nowIso = now.toISOString();
  const action: ActionRecord = {
    id: dependencies.ids.next("sia"),
    diagnosis_id: diagnosis.id,
    scope: suggestion.scope,
    setting: suggestion.setting,
    direction: suggestion.direction,
    from_value: suggestion.from,
    to_value: suggestion.to,
    previous_override: suggestion.previous_override,
    previous_action_id: current?.action_id ?? null,
    tools,
    metric: diagnosis.metric,
    before_from: beforeFrom,
    applied_at: nowIso,
    applied_by: appliedBy,
    status: "evaluating",
    status_reason: null,
    evaluated_at: null,
    rolled_back_at: null,
    rolled_back_by: null,
    reward: null,
    confidence: null,
    pre_metrics: snapshotOf(before, metricSampleFloor(config.monitor)),
    post_metrics: null,
  };
  await store.transaction(async (repositories) => {
    await repositories.selfImprovement.actions.insert(action);
    await repositories.selfImprovement.overrides.put({
      scope: action.scope,
      setting: action.setting,
      value: action.to_value,
      action_id: action.id,
      updated_at: nowIso,
    });
    await repositories.selfImprovement.diagnoses.setStatus(diagnosis.id, {
      status: "applied",
      status_reason: `${label} ${action.from_value} → ${action.to_value} (${appliedBy === "operator" ? "approved" : "applied automatically"})`,
      updated_at: nowIso,
      action_id: action.id,
    });
  });
  await reloadOverrides(dependencies);
  return action;
}

/**
 * Reverses an action: puts back the override it replaced (or removes its
 * own, so the configured value applies again). Only the action whose value is
 * in force can be reversed (CONFLICT naming the later one otherwise); an
 * action already reversed is CONFLICT too.
 */
export async function rollbackAction(
  dependencies: ExecutorDependencies,
  actionId: string,
  options: {
    by: "learner" | "operator";
    reason: string;
    status?: Extract<ActionStatus, "rolled_back" | "reverted">;
    /** The learner's measurement, written with the rollback. */
    evaluation?: Pick<ActionRecord, "evaluated_at" | "reward" | "confidence" | "post_metrics">;
    /** The lesson, written with the rollback. */
    learning?: LearningRecord;
  },
): Promise<ActionRecord> {
  const { store, now } = dependencies;
  const repository = store.selfImprovement;
  const action = await repository.actions.get(actionId);
  const label = targetLabel(action.scope, action.setting);
  if (action.status === "rolled_back" || action.status === "reverted") {
    throw new DeliberateError({
      code: "CONFLICT",
      message: `Action ${action.id} (${label}) was already ${action.status === "reverted" ? "reverted" : "rolled back"} at ${action.rolled_back_at}.`,
      issues: [{ field: "action_id", message: `already ${action.status}` }],
      hint: "See `deliberate self-improve history` for the actions in force.",
    });
  }
  const current = await repository.overrides.get(action.scope, action.setting);
  if (current?.action_id !== action.id) {
    throw new DeliberateError({
      code: "CONFLICT",
      message: `${label} is now set by ${current?.action_id ? `action ${current.action_id}` : "nothing (no override)"}, not by action ${action.id}.`,
      issues: [{ field: "action_id", message: "a later change replaced this action's value" }],
      hint: current?.action_id ? `Roll back ${current.action_id} first.` : "Nothing to roll back.",
    });
  }
  const nowIso = now.toISOString();
  await store.transaction(async (repositories) => {
    if (action.previous_override === null)
      await repositories.selfImprovement.overrides.delete(action.scope, action.setting);
    else {
      await repositories.selfImprovement.overrides.put({
        scope: action.scope,
        setting: action.setting,
        value: action.previous_override,
        action_id: action.previous_action_id,
        updated_at: nowIso,
      });
    }
    await repositories.selfImprovement.actions.update(action.id, {
      status: options.status ?? "rolled_back",
      status_reason: options.reason,
      rolled_back_at: nowIso,
      rolled_back_by: options.by,
      ...options.evaluation,
    });
    if (options.learning) await repositories.selfImprovement.learnings.insert(options.learning);
  });
  await reloadOverrides(dependencies);
  return repository.actions.get(action.id);
}
