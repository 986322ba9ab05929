import { DeliberateError } from "@deliberate/base";
import type { ModeSettings } from "@deliberate/engine";
import type { ModelRouter } from "@deliberate/providers";
import { targetLabel } from "../types.ts";
import { type AnalysisInput, type DiagnosisDraft, ruledOutBy } from "./analysis-input.ts";
import { diagnoseWithModel } from "./model-analyzer.ts";
import { diagnoseByRules } from "./rules.ts";

/** What phase 2 needs besides its input: the service's models and the diagnosis mode's settings. */
export interface AnalyzeOptions {
  models: ModelRouter;
  /** Whether the service has a model of its own (not host-executed, not unconfigured). */
  serverModel: boolean;
  settings: ModeSettings;
  signal?: AbortSignal;
}

/** A diagnosis, and the model analyzer's failure the rules stood in for (null when none). */
export interface Analysis {
  draft: DiagnosisDraft;
  modelFailure: string | null;
}

/**
 * Phase 2: the model when the configuration and the service allow it, else the
 * rules. Two guards hold for every analyzer:
 * - a lesson rules a move out: a model proposal that repeats a change already
 *   found harmful, useless or rejected is set aside, and the rules (which skip
 *   such moves) diagnose instead, saying why;
 * - with `analyzer: auto`, a failed model call (provider down, invalid answer)
 *   falls back to the rules, and the diagnosis says the model failed and how.
 *   `analyzer: model` keeps the failure: the cycle fails (a breaker failure).
 */
export async function analyze(input: AnalysisInput, options: AnalyzeOptions): Promise<Analysis> {
  const { use } = input.config.analyzer;
  if (use === "model" && !options.serverModel) {
    throw new DeliberateError({
      code: "PROVIDER_NOT_CONFIGURED",
      message:
        "analyzer.use is 'model' but the service has no server-side model (set a provider, or use 'auto' or 'rules').",
    });
  }
  if (use === "rules" || !options.serverModel || input.targets.length === 0) {
    const because =
      use === "rules"
        ? "the analyzer is set to rules"
        : !options.serverModel
          ? "no server-side model is configured"
          : "no setting of the tool's modes is adjustable";
    return { draft: diagnoseByRules({ ...input, rulesBecause: because }), modelFailure: null };
  }
  let draft: DiagnosisDraft;
  try {
    draft = await diagnoseWithModel(input, {
      models: options.models,
      settings: options.settings,
      ...(options.signal ? { signal: options.signal } : {}),
    });
  } catch (error) {
    if (use === "model" || options.signal?.aborted) throw error;
    const message = error instanceof Error ? error.message : String(error);
    return {
      draft: diagnoseByRules({ ...input, rulesBecause: `the model analyzer failed: ${message}` }),
      modelFailure: message,
    };
  }
  const proposal = draft.action;
  if (proposal.kind === "adjust") {
    const lesson = ruledOutBy(input.lessons, proposal.scope, proposal.setting, proposal.direction);
    if (lesson) {
      const label = targetLabel(proposal.scope, proposal.setting);
      const because = `the model proposed to ${proposal.direction} ${label} (${proposal.from} → ${proposal.to}), which a lesson rules out (${lesson.verdict}: ${lesson.text})`;
      return { draft: diagnoseByRules({ ...input, rulesBecause: because }), modelFailure: null };
    }
  }
  return { draft, modelFailure: null };
}
