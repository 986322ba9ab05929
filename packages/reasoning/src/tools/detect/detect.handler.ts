import {
  biasTypes,
  DeliberateError,
  type Detection,
  detectionCategoryOf,
  type DetectSeverity,
  detectTool,
  formalFallacyTypes,
  informalFallacyTypes,
  type Thought,
  type ToolInput,
} from "@deliberate/contracts";
import { runMode } from "@deliberate/engine";
import { type ReasoningContext, defineHandler } from "../../define-handler.ts";
import { createDetectMode } from "./detect.mode.ts";
import { locateQuote } from "./quote-locator.ts";
import { recordAnalysis } from "../../record-analysis.ts";
import { historyMessages, loadSessionHistory, type SessionHistory } from "../../session-history.ts";

type DetectInput = ToolInput<typeof detectTool>;

/** How much one detection lowers overall quality, per unit of confidence. */
export const severityWeights: Readonly<Record<DetectSeverity, number>> = {
  low: 0.05,
  medium: 0.15,
  high: 0.3,
  critical: 0.5,
};

/** `Π (1 − severity_weight × confidence)`: 1 with nothing found, lower with more, graver, surer findings. */
export function overallQuality(detections: ReadonlyArray<Pick<Detection, "severity" | "confidence">>): number {
  return detections.reduce(
    (quality, detection) => quality * (1 - severityWeights[detection.severity] * detection.confidence),
    1,
  );
}

const severityOrder: Record<DetectSeverity, number> = { critical: 0, high: 1, medium: 2, low: 3 };

/** The types to search: check_types if given, else every type of the kind (fallacies filtered by formal/informal). */
function typesToCheck(input: DetectInput): string[] {
  if (input.check_types !== undefined) return [...new Set(input.check_types)];
  if (input.type === "biases") return [...biasTypes];
  return [...(input.check_formal ? formalFallacyTypes : []), ...(input.check_informal ? informalFallacyTypes : [])];
}

interface AnalysedText {
  source: "content" | "thought" | "session";
  text: string;
  thoughts: Thought[];
}

/** Resolves what to analyse and which session to record in (reads only; NOT_FOUND before any model call). */
async function resolveText(
  input: DetectInput,
  context: ReasoningContext,
): Promise<{ analysed: AnalysedText; history: SessionHistory }> {
  if (input.thought_id !== undefined) {
    const thought = await context.store.thoughts.get(input.thought_id);
    if (input.session_id !== undefined && thought.session_id !== input.session_id) {
      throw new DeliberateError({
        code: "INVALID_INPUT",
        message: `Thought ${thought.id} belongs to session ${thought.session_id}, not ${input.session_id}.`,
        issues: [
          { field: "thought_id", message: `belongs to session '${thought.session_id}', not '${input.session_id}'` },
        ],
        hint: "Omit session_id (the result is then recorded in the thought's session) or pass the thought's own session.",
      });
    }
    const history = await loadSessionHistory(context, thought.session_id);
    return { analysed: { source: "thought", text: thought.content, thoughts: [thought] }, history };
  }
  const history = await loadSessionHistory(context, input.session_id);
  if (input.content !== undefined)
    return { analysed: { source: "content", text: input.content, thoughts: [] }, history };
  const thoughts = history.thoughts.filter((thought) => thought.mode !== "detect");
  if (thoughts.length === 0) {
    throw new DeliberateError({
      code: "INVALID_INPUT",
      message: `Session ${history.sessionId} has no thoughts to analyse.`,
      issues: [{ field: "session_id", message: "the session has no active thoughts to analyse" }],
      hint: "Pass content (the text to analyse) or a thought_id.",
    });
  }
  return {
    analysed: { source: "session", text: thoughts.map((thought) => thought.content).join("\n\n"), thoughts },
    history,
  };
}

function summarize(
  input: DetectInput,
  checked: readonly string[],
  detections: readonly Detection[],
  discarded: number,
): string {
  const kind = input.type === "biases" ? "bias" : "fallacy";
  const kinds = input.type === "biases" ? "biases" : "fallacies";
  const scope = `${checked.length} ${kind} type${checked.length === 1 ? "" : "s"} checked`;
  const found =
    detections.length === 0
      ? `No ${kinds} detected (${scope}).`
      : `${detections.length} ${detections.length === 1 ? kind : kinds} detected (${scope}): ` +
        detections
          .map((detection) => `${detection.type} [${detection.severity}, confidence ${detection.confidence}]`)
          .join("; ") +
        ".";
  const dropped =
    discarded === 0
      ? ""
      : ` ${discarded} model finding${discarded === 1 ? "" : "s"} discarded because the quoted evidence does not occur in the text.`;
  return found + dropped;
}

export const detectHandler = defineHandler(detectTool, async (input, context) => {
  const checked = typesToCheck(input);
  const { analysed, history } = await resolveText(input, context);
  // When the session itself is the text analysed, it is not repeated as history.
  const messages = analysed.source === "session" ? [] : historyMessages(history);
  const answer = await runMode(
    context,
    createDetectMode(input.type, checked),
    { type: input.type, text: analysed.text, types: checked },
    { history: messages },
  );

  const detections: Detection[] = [];
  const discarded: Array<{ type: string; evidence: string; reason: string }> = [];
  const seen = new Set<string>();
  for (const finding of answer.detections) {
    const lookup = locateQuote(analysed.text, finding.evidence);
    if (!lookup.found) {
      discarded.push({ type: finding.type, evidence: finding.evidence, reason: lookup.reason });
      continue;
    }
    const key = `${finding.type}@${lookup.match.start}:${lookup.match.end}`;
    if (seen.has(key)) {
      discarded.push({
        type: finding.type,
        evidence: finding.evidence,
        reason: "duplicates an earlier finding of the same type on the same passage",
      });
      continue;
    }
    seen.add(key);
    detections.push({
      type: finding.type,
      category: detectionCategoryOf(finding.type) ?? "informal",
      severity: finding.severity,
      confidence: finding.confidence,
      evidence: lookup.match.text,
      evidence_span: { start: lookup.match.start, end: lookup.match.end },
      explanation: finding.explanation,
      remediation: finding.remediation,
    });
  }
  // Gravest first, then surest, then in text order: the same answer always gives the same list.
  detections.sort(
    (left, right) =>
      severityOrder[left.severity] - severityOrder[right.severity] ||
      right.confidence - left.confidence ||
      left.evidence_span.start - right.evidence_span.start,
  );
  const quality = overallQuality(detections);
  const summary = summarize(input, checked, detections, discarded.length);
  const analysedInfo = {
    source: analysed.source,
    thought_ids: analysed.thoughts.map((thought) => thought.id),
    characters: analysed.text.length,
  };

  const thoughtId = await recordAnalysis(context, history, {
    mode: "detect",
    content: summary,
    metadata: {
      type: input.type,
      checked_types: checked,
      analyzed: analysedInfo,
      detections,
      discarded,
      overall_quality: quality,
    },
    ...(analysed.source === "content" ? { inputContent: analysed.text } : {}),
    ...(analysed.source === "thought" ? { parentId: analysed.thoughts[0]?.id ?? null } : {}),
  });

  return {
    session_id: history.sessionId,
    thought_id: thoughtId,
    type: input.type,
    checked_types: checked,
    analyzed: analysedInfo,
    detections,
    discarded,
    summary,
    overall_quality: quality,
  };
});
