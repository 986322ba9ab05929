import { architectureDecisionPreset } from "./architecture-decision.preset.ts";
import { codeReviewPreset } from "./code-review.preset.ts";
import { debugAnalysisPreset } from "./debug-analysis.preset.ts";
import type { PresetDefinition } from "./preset-definition.ts";
import { researchSynthesisPreset } from "./research-synthesis.preset.ts";
import { riskAssessmentPreset } from "./risk-assessment.preset.ts";

/** The built-in presets, in the order `list` shows them. */
export const builtinPresets: readonly PresetDefinition[] = [
  codeReviewPreset,
  debugAnalysisPreset,
  architectureDecisionPreset,
  riskAssessmentPreset,
  researchSynthesisPreset,
];
