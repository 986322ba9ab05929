import type { IdGenerator } from "@deliberate/engine";
import type { Store } from "@deliberate/store";
import type { SelfImprovementConfig } from "./config.ts";
import { type ExecutorDependencies, rollbackAction } from "./executor.ts";
import { lessonOf, measureReward } from "./learner.ts";
import type { ActionRecord, LearningRecord } from "./records.ts";
import type { SelfImprovementRepositories } from "./store/repositories/self-improvement.repository.ts";
import { targetLabel } from "./types.ts";

/** What the learner reads and writes (the cycle's dependencies satisfy it). */
export interface EvaluationDependencies {
  readonly store: Store<SelfImprovementRepositories>;
  readonly config: SelfImprovementConfig;
  readonly ids: IdGenerator;
}

/** How the learner judged one action in a cycle. */
export interface Evaluation {
  action_id: string;
  target: string;
  outcome: "kept" | "rolled_back" | "reverted" | "inconclusive" | "waiting";
  reward: number | null;
  confidence: number | null;
  samples_before: number;
  samples_after: number;
  lesson: string | null;
}

/** Phase 4 for every action being measured: keep, roll back (regression), revert (no effect), or wait. */
export async function evaluateActions(
  dependencies: EvaluationDependencies,
  executor: ExecutorDependencies,
  now: Date,
): Promise<{ evaluations: Evaluation[]; regressions: string[] }> {
  const repository = dependencies.store.selfImprovement;
  // Calls buffered in memory count as samples: write them before reading.
  await dependencies.store.invocations.flush();
  const evaluations: Evaluation[] = [];
  const regressions: string[] = [];
  for (const action of await repository.actions.list({ status: "evaluating", limit: 100 })) {
    const { evaluation, regression } = await evaluateAction({ dependencies, executor, now }, action);
    evaluations.push(evaluation);
    if (regression !== undefined) regressions.push(regression);
  }
  return { evaluations, regressions };
}

/** What one evaluation step reads. */
interface EvaluationContext {
  readonly dependencies: EvaluationDependencies;
  readonly executor: ExecutorDependencies;
  readonly now: Date;
}

/** One action: its calls before and after the change, judged, and the verdict recorded (with the lesson learned). */
async function evaluateAction(
  context: EvaluationContext,
  action: ActionRecord,
): Promise<{ evaluation: Evaluation; regression?: string }> {
  const { dependencies, now } = context;
  const { config } = dependencies;
  const repository = dependencies.store.selfImprovement;
  const nowIso = now.toISOString();
  const target = targetLabel(action.scope, action.setting);
  const [before, after] = await Promise.all([
    repository.invocations.between({
      tools: action.tools,
      from: action.before_from,
      to: action.applied_at,
      limit: config.learner.maxSamples,
      take: "last",
    }),
    repository.invocations.between({
      tools: action.tools,
      from: action.applied_at,
      limit: config.learner.maxSamples,
      take: "first",
    }),
  ]);
  const learning = (verdict: LearningRecord["verdict"], lesson: string, measured?: ReturnType<typeof measureReward>) =>
    learningRecord(dependencies, nowIso, action, { verdict, lesson, measured });
  const samples = { samples_before: before.length, samples_after: after.length };
  if (after.length < config.learner.minSamples || before.length < config.learner.minSamples) {
    const waited = now.getTime() - new Date(action.applied_at).getTime();
    if (waited < config.learner.maxWaitMs) {
      return {
        evaluation: {
          action_id: action.id,
          target,
          outcome: "waiting",
          reward: null,
          confidence: null,
          ...samples,
          lesson: null,
        },
      };
    }
    const lesson = `Changing ${target} ${action.from_value} → ${action.to_value} could not be measured: ${before.length} calls before and ${after.length} after within ${Math.round(config.learner.maxWaitMs / 60_000)} min (${config.learner.minSamples} needed each); kept, unmeasured.`;
    await dependencies.store.transaction(async (repositories) => {
      await repositories.selfImprovement.actions.update(action.id, {
        status: "inconclusive",
        status_reason: lesson,
        evaluated_at: nowIso,
      });
      await repositories.selfImprovement.learnings.insert(learning("inconclusive", lesson));
    });
    return {
      evaluation: {
        action_id: action.id,
        target,
        outcome: "inconclusive",
        reward: null,
        confidence: null,
        ...samples,
        lesson,
      },
    };
  }
  const measured = measureReward({
    before,
    after,
    metric: action.metric,
    monitor: config.monitor,
    learner: config.learner,
  });
  const lesson = lessonOf(action, measured);
  const evaluation = {
    evaluated_at: nowIso,
    reward: measured.value,
    confidence: measured.confidence,
    post_metrics: measured.after,
  };
  const judged = (outcome: Evaluation["outcome"]): Evaluation => ({
    action_id: action.id,
    target,
    outcome,
    reward: measured.value,
    confidence: measured.confidence,
    ...samples,
    lesson,
  });
  if (measured.verdict === "improved") {
    await dependencies.store.transaction(async (repositories) => {
      await repositories.selfImprovement.actions.update(action.id, {
        status: "kept",
        status_reason: lesson,
        ...evaluation,
      });
      await repositories.selfImprovement.learnings.insert(learning("improved", lesson, measured));
    });
    return { evaluation: judged("kept") };
  }
  const regressed = measured.verdict === "regressed";
  await rollbackAction(context.executor, action.id, {
    by: "learner",
    reason: lesson,
    status: regressed ? "rolled_back" : "reverted",
    evaluation,
    learning: learning(regressed ? "regressed" : "no_effect", lesson, measured),
  });
  return { evaluation: judged(regressed ? "rolled_back" : "reverted"), ...(regressed ? { regression: lesson } : {}) };
}

/** The learning recorded for an action's verdict: what was changed, how it measured, and the lesson. */
function learningRecord(
  dependencies: EvaluationDependencies,
  nowIso: string,
  action: ActionRecord,
  judged: {
    verdict: LearningRecord["verdict"];
    lesson: string;
    measured?: ReturnType<typeof measureReward> | undefined;
  },
): LearningRecord {
  const { measured } = judged;
  return {
    id: dependencies.ids.next("sil"),
    created_at: nowIso,
    action_id: action.id,
    diagnosis_id: action.diagnosis_id,
    tool: action.tools.join(","),
    scope: action.scope,
    setting: action.setting,
    direction: action.direction,
    verdict: judged.verdict,
    reward: measured?.value ?? null,
    confidence: measured?.confidence ?? null,
    breakdown: measured?.breakdown ?? [],
    lessons: [judged.lesson],
  };
}
