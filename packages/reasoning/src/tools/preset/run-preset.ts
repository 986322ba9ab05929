import { DeliberateError, type ErrorBody } from "@deliberate/contracts";
import type { Store } from "@deliberate/store";
import { CompletionNeeded, isRejectedAnswer } from "@deliberate/engine";
import type { ReasoningContext } from "../../define-handler.ts";
import type { PresetDefinition, PresetStep } from "./preset-definition.ts";
import { createPresetProgress } from "./preset-progress.ts";
import { resolveTemplate, type TemplateScope } from "./preset-template.ts";

export interface StepResult {
  step_id: string;
  tool: string;
  depends_on: string[];
  result: Record<string, unknown>;
}

export interface StepFailure {
  step_id: string;
  tool: string;
  error: ErrorBody;
}

/** What a run produced: every step's output, or the completed ones and where it stopped. */
export type PresetRun = {
  preset_id: string;
  steps_completed: number;
  total_steps: number;
  step_results: StepResult[];
  session_id: string | undefined;
} & (
  | { status: "completed"; final_output: Record<string, unknown> }
  | { status: "failed"; failed_step: StepFailure; also_failed?: StepFailure[]; not_run: string[] }
);

function toErrorBody(error: unknown): ErrorBody {
  if (DeliberateError.isInstance(error)) return error.toJSON();
  const message = error instanceof Error ? error.message : String(error);
  return { code: "INTERNAL", message: `Internal error: ${message}`, retryable: false };
}

/**
 * Runs a preset's DAG through `context.callTool`: a step starts as soon as its
 * dependencies have finished (not level by level), at most
 * `context.concurrency` at a time, in declaration order among ready steps.
 * Each step's arguments are resolved from the inputs and its dependencies'
 * outputs. Progress is the sum of the steps' fractions done (total = steps),
 * so it only ever increases; every finished step moves it.
 *
 * When a step fails, no further step starts; steps already running finish
 * (their outputs are kept, since they may have written), and the run returns
 * the completed steps with the failing step's error. Cancellation throws
 * CANCELLED. For host-executed calls, the prompts of every step that can run
 * are gathered into one suspension.
 */
export async function runPreset(
  context: ReasoningContext,
  preset: PresetDefinition,
  inputs: Readonly<Record<string, unknown>>,
  callerSessionId: string | undefined,
  /** The store the steps write to (default: the context's). */
  store?: Store,
): Promise<PresetRun> {
  const steps = preset.steps;
  const results = new Map<string, Record<string, unknown>>();
  const started = new Set<string>();
  const failures: StepFailure[] = [];
  const suspensions: CompletionNeeded[] = [];
  // An invalid host answer is the submitter's mistake, not a step failure: it fails the whole submission.
  const rejectedAnswers: unknown[] = [];
  const inFlight = new Map<string, Promise<void>>();
  const progress = createPresetProgress(context, steps);
  const limit = Math.max(1, context.concurrency);

  const sessionId = (): string | undefined => {
    if (callerSessionId !== undefined) return callerSessionId;
    const fromStep = preset.session_step !== undefined ? results.get(preset.session_step)?.["session_id"] : undefined;
    return typeof fromStep === "string" ? fromStep : undefined;
  };
  const scope = (): TemplateScope => ({ inputs, results, sessionId: sessionId() });

  function isReady(step: PresetStep): boolean {
    return !started.has(step.id) && (step.depends_on ?? []).every((dependency) => results.has(dependency));
  }

  function launchReady(): void {
    if (failures.length > 0 || context.signal.aborted) return;
    for (const step of steps) {
      if (inFlight.size >= limit) return;
      if (!isReady(step)) continue;
      started.add(step.id);
      const running = (async () => {
        const args = resolveTemplate(step.arguments, scope());
        // Each step draws its ids from its own scope: replays of a host-executed run give every step
        // the same ids however the concurrent steps interleave.
        const ids = context.ids.scope?.(step.id) ?? context.ids;
        return context.callTool(step.tool, args, {
          progress: progress.forStep(step),
          ids,
          ...(store !== undefined ? { store } : {}),
        });
      })()
        .then(
          (result) => {
            results.set(step.id, result);
            progress.completed(step);
          },
          (error: unknown) => {
            if (CompletionNeeded.isInstance(error)) suspensions.push(error);
            else if (isRejectedAnswer(error)) rejectedAnswers.push(error);
            else failures.push({ step_id: step.id, tool: step.tool, error: toErrorBody(error) });
          },
        )
        .finally(() => inFlight.delete(step.id));
      inFlight.set(step.id, running);
    }
  }

  launchReady();
  while (inFlight.size > 0) {
    await Promise.race(inFlight.values());
    launchReady();
  }

  if (context.signal.aborted)
    throw new DeliberateError({ code: "CANCELLED", message: `The run of preset ${preset.id} was cancelled.` });
  if (rejectedAnswers.length > 0) throw rejectedAnswers[0];
  return presetOutcome({ preset, results, started, failures, suspensions, sessionId: sessionId(), finalScope: scope });
}

/**
 * What a run that ended returns: the failure (with the steps never started) when a step failed; else the gathered
 * host suspensions are thrown; else the preset's output resolved over every step's result.
 */
function presetOutcome(ended: {
  preset: PresetDefinition;
  results: ReadonlyMap<string, Record<string, unknown>>;
  started: ReadonlySet<string>;
  failures: readonly StepFailure[];
  suspensions: readonly CompletionNeeded[];
  sessionId: string | undefined;
  /** Read only for a completed run (the output's template scope). */
  finalScope: () => TemplateScope;
}): PresetRun {
  const { preset, results, started } = ended;
  const steps = preset.steps;
  const stepResults = steps
    .filter((step) => results.has(step.id))
    .map((step) => ({
      step_id: step.id,
      tool: step.tool,
      depends_on: [...(step.depends_on ?? [])],
      result: results.get(step.id) as Record<string, unknown>,
    }));
  const common = {
    preset_id: preset.id,
    steps_completed: results.size,
    total_steps: steps.length,
    step_results: stepResults,
    session_id: ended.sessionId,
  };
  const [failed, ...alsoFailed] = ended.failures;
  if (failed !== undefined) {
    return {
      ...common,
      status: "failed",
      failed_step: failed,
      ...(alsoFailed.length > 0 ? { also_failed: alsoFailed } : {}),
      not_run: steps.filter((step) => !started.has(step.id)).map((step) => step.id),
    };
  }
  if (ended.suspensions.length > 0) throw CompletionNeeded.merge(ended.suspensions);
  return {
    ...common,
    status: "completed",
    final_output: resolveTemplate(preset.output, ended.finalScope()) as Record<string, unknown>,
  };
}
