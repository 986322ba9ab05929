import { defineMode, generateWithMode, type ModeDeclaration, type ModeSettings } from "@deliberate/engine";
import type { ModelRouter } from "@deliberate/providers";
import { z } from "zod";
import { stepValue } from "../allowlist.ts";
import { describeMetric, metricValue } from "../metrics.ts";
import { metricNames } from "../types.ts";
import {
  type AnalysisInput,
  type DiagnosisDraft,
  describeErrorCodes,
  describeTrigger,
  ruledOutBy,
} from "./analysis-input.ts";

/** The mode id of the analyzer's model call (its settings and model id are configurable like any mode's). */
export const diagnosisModeId = "self_improvement";

/** The diagnosis mode and its default settings, declared on its definition (the module registers it). */
export const diagnosisModeDeclaration: ModeDeclaration = {
  mode: diagnosisModeId,
  settings: { temperature: 0.2, maxTokens: 1500, timeoutMs: 60_000 },
};

const system = [
  "You are the analyzer of a reasoning service's self-improvement loop.",
  "A monitor measured the service's tool calls and found a metric that deviates from its baseline.",
  "Diagnose the most likely cause from the figures, then choose at most one bounded change of one listed setting, or no change.",
  "Only the listed settings can change, by whole steps, in the listed direction limits. Say 'none' when no listed change is likely to help.",
  "Lessons are measured outcomes of earlier changes: do not repeat a change a lesson shows made things worse or changed nothing.",
  "You never compute new values: choose the setting, the direction and the number of steps; the service computes and checks the value.",
].join("\n");

/** The answer's schema: the target is one of the offered settings (`mode.setting`), by name. */
export function diagnosisAnswerSchema(targets: readonly [string, ...string[]], maxSteps: number) {
  return z.object({
    suspected_cause: z.string().min(1).describe("The most likely cause of the deviation, from the figures given"),
    action: z
      .union([
        z.object({
          kind: z.literal("adjust"),
          target: z.enum(targets).describe("The setting to change, as listed"),
          direction: z.enum(["increase", "decrease"]),
          steps: z.number().int().min(1).max(maxSteps).describe("Whole steps of the setting's step size"),
        }),
        z.object({ kind: z.literal("none"), reason: z.string().min(1).describe("Why no listed change would help") }),
      ])
      .describe("One change of one listed setting, or none"),
    rationale: z.string().min(1).describe("Why this change (or none) should fix the deviation"),
  });
}

/** The offered moves a lesson rules out, said plainly: a proposal of one is set aside (the rules diagnose instead). */
function ruledOutLines(input: AnalysisInput): string[] {
  const lines: string[] = [];
  for (const target of input.targets) {
    for (const direction of ["increase", "decrease"] as const) {
      const lesson = ruledOutBy(input.lessons, target.scope, target.setting, direction);
      if (lesson) lines.push(`- ${target.label} ${direction}: ruled out (${lesson.verdict})`);
    }
  }
  return lines.length > 0 ? ["", "Moves the lessons rule out (a proposal of one is not applied):", ...lines] : [];
}

function renderPrompt(input: AnalysisInput): string {
  const { baseline } = input;
  const lines = [
    `Trigger: ${describeTrigger(input.trigger)}.`,
    "",
    `Recent calls of ${baseline.name} (${baseline.window.samples}): ${metricNames.map((metric) => `${metric} ${describeMetric(metric, metricValue(baseline.window, metric))}`).join(", ")}; mean model calls per call ${baseline.window.model_calls_mean.toFixed(2)}.`,
    `Baseline (EMA over ${baseline.chunks} chunk(s) of earlier calls): ${metricNames.map((metric) => `${metric} ${describeMetric(metric, baseline.ema[metric])}`).join(", ")}.`,
    `Failures in the recent calls: ${describeErrorCodes(baseline)}; answers cut off at the token limit: ${baseline.window.cut_off}.`,
    `Modes the tool asks: ${input.modes.join(", ") || "(unknown)"}.`,
    "",
    "Settings you may change (target: current value; allowed range; step; most steps per change):",
    ...input.targets.map(
      (target) =>
        `- ${target.label}: ${target.current}; ${target.entry.min}..${target.entry.max}; step ${target.entry.step}; at most ${target.entry.maxSteps} steps`,
    ),
    "",
    input.lessons.length > 0 ? "Lessons from earlier changes (newest first):" : "No lessons recorded yet.",
    ...input.lessons.slice(0, input.config.analyzer.maxLessons).map((lesson) => `- [${lesson.verdict}] ${lesson.text}`),
    ...ruledOutLines(input),
  ];
  return lines.join("\n");
}

/**
 * Phase 2 with a model: one structured-output call (mode `self_improvement`)
 * returns the suspected cause, one change of one offered setting (by name,
 * direction and steps) or none, and the rationale. The new value is computed
 * here from the allowlist's step and is not clamped: the executor's allowlist
 * refuses a change that leaves the bounds.
 */
export async function diagnoseWithModel(
  input: AnalysisInput,
  options: { models: ModelRouter; settings: ModeSettings; signal?: AbortSignal },
): Promise<DiagnosisDraft> {
  const [first, ...rest] = input.targets.map((target) => target.label);
  if (first === undefined) throw new Error("diagnoseWithModel needs at least one target");
  const maxSteps = Math.max(...input.targets.map((target) => target.entry.maxSteps));
  const output = diagnosisAnswerSchema([first, ...rest], maxSteps);
  const mode = defineMode({
    ...diagnosisModeDeclaration,
    name: "self_improvement_diagnosis",
    description: "The suspected cause of a deviation and at most one bounded change of one listed setting.",
    system,
    prompt: renderPrompt,
    output,
  });
  const result = await generateWithMode(options.models.forMode(diagnosisModeId), mode, input, {
    settings: options.settings,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const answer = result.object;
  const description = `${describeTrigger(input.trigger)}. Failures: ${describeErrorCodes(input.baseline)}. Diagnosed by the model (${result.modelId}).`;
  if (answer.action.kind === "none") {
    return {
      description,
      suspected_cause: answer.suspected_cause,
      action: {
        kind: "none",
        reason: answer.action.reason,
        revisit_after: new Date(input.now.getTime() + input.config.analyzer.noActionRevisitMs).toISOString(),
      },
      rationale: answer.rationale,
      analyzer: "model",
      rule: null,
    };
  }
  const { target: label, direction, steps } = answer.action;
  const target = input.targets.find((option) => option.label === label);
  if (!target) throw new Error(`The model chose '${label}', which was not offered`);
  return {
    description,
    suspected_cause: answer.suspected_cause,
    action: {
      kind: "adjust",
      scope: target.scope,
      setting: target.setting,
      direction,
      steps,
      from: target.current,
      to: stepValue(target.entry, target.current, direction, steps),
      previous_override: target.override,
      previous_action_id: target.override_action_id,
    },
    rationale: answer.rationale,
    analyzer: "model",
    rule: null,
  };
}
