import type { ExecuteTaskResponse, ReasoningType, Triple } from "@deliberate/contracts";
import type { CoordinatorPolicy } from "./policy.ts";
import type { FollowUpFinding } from "./refinement.ts";

/** How sure an answer is, for presentation (§1.4.5). */
export type ConfidenceBand = "high" | "moderate" | "low" | "insufficient" | "unknown";

/** The band of a confidence score: at or above `high`, `moderate`, `low`; below `low` insufficient; no score unknown. */
export function confidenceBand(score: number | null | undefined, bands: CoordinatorPolicy["bands"]): ConfidenceBand {
  if (typeof score !== "number" || Number.isNaN(score)) return "unknown";
  if (score >= bands.high) return "high";
  if (score >= bands.moderate) return "moderate";
  if (score >= bands.low) return "low";
  return "insufficient";
}

/**
 * The server's confidence in a response: `result.confidenceScore` (the knowledge-graph module computes it from the
 * evidence its code checked: proofs, cited facts found, contradicted or unknown citations, the model's self-report
 * as one bounded term), else the trace's confidence report; null when the server gives none.
 */
export function serverConfidence(response: ExecuteTaskResponse): number | null {
  const score = response.result?.confidenceScore ?? response.result?.reasoningTrace?.confidence?.score ?? null;
  return typeof score === "number" && Number.isFinite(score) ? score : null;
}

/**
 * Why an answer is the low-confidence row of the fallback matrix (§1.5.2 row 4), or null: the server's confidence is
 * below `threshold`, or the server says the host's `desiredConfidenceLevel` was not met.
 */
export function lowConfidenceReason(response: ExecuteTaskResponse, threshold: number): string | null {
  const score = serverConfidence(response);
  if (score !== null && score < threshold) return `the server's confidence ${score} is below ${threshold}`;
  const report = response.result?.reasoningTrace?.confidence;
  if (report?.targetMet === false)
    return `the server's confidence ${report.score} is below the desired level ${report.desiredConfidenceLevel}`;
  return null;
}

/** How each band turns an answer into text: direct when sure, hedged when less, a disclaimer when unsure. */
export type HedgeTemplates = Record<ConfidenceBand, (answer: string) => string>;

export const defaultHedges: HedgeTemplates = {
  high: (answer) => answer,
  moderate: (answer) => `My current thinking suggests the following, though I'm not fully certain: ${answer}`,
  low: (answer) => `My confidence in this is low, but one possibility is: ${answer} You may want to verify this.`,
  insufficient: (answer) =>
    `I couldn't reach a confident conclusion. The best I have is: ${answer} Please verify it before relying on it.`,
  unknown: (answer) => `${answer} (I couldn't assess how confident I am in this.)`,
};

/** The user-facing label of a band. */
export const bandLabels: Record<ConfidenceBand, string> = {
  high: "High",
  moderate: "Moderate",
  low: "Low",
  insufficient: "Very low",
  unknown: "Unknown",
};

/** "Show my work": a human-readable summary of the trace (§1.4.5), no raw JSON. */
export interface WorkSummary {
  /** e.g. "Deductive analysis: applying rules to the known facts". */
  approach: string;
  /** What the analysis rested on: the facts that supported the answer, tool results, the user's answers. */
  keyInformation: string[];
  /** The main steps, in order. */
  mainSteps: string[];
  /** Follow-up questions asked while refining the answer. */
  refinements: string[];
  confidence: { band: ConfidenceBand; label: string; score: number | null };
  /** The same as Markdown, for an expandable "details" section. */
  markdown: string;
}

const approaches: Record<ReasoningType, string> = {
  deductive: "Deductive analysis: applying rules to the known facts",
  abductive: "Hypothesis generation: finding the most plausible explanation",
  inductive: "Pattern finding: generalising from the examples",
  planAndExecuteCoT: "Plan and execute: working through a multi-step plan",
};

const variations: Record<string, string> = {
  selfConsistency: "several independent answers compared for agreement",
  selfAsk: "sub-questions answered along the way",
  treeOfThoughts_basic: "several lines of thought explored and scored",
};

const tripleText = (triple: Triple) => `${triple.subject} ${triple.predicate.replace(/_/g, " ")} ${triple.object}`;

/**
 * Summarises a completed response's trace for the user: approach (from the
 * reasoning type and the variation used), key information (the facts the
 * answer rests on, tool results, the user's answers), main steps, confidence.
 */
export function summarizeWork(input: {
  response: ExecuteTaskResponse;
  reasoningType: ReasoningType;
  refinements?: readonly string[];
  /** What the refinement loop's follow-ups found (shown as key information). */
  findings?: readonly FollowUpFinding[];
  bands: CoordinatorPolicy["bands"];
  maxItems?: number;
}): WorkSummary {
  const limit = input.maxItems ?? 6;
  const trace = input.response.result?.reasoningTrace ?? null;
  const used = trace?.cotVariation.used;
  const approach = `${approaches[trace?.reasoningType ?? input.reasoningType]}${used && variations[used] ? `, with ${variations[used]}` : ""}`;
  const keyInformation: string[] = [];
  for (const fact of trace?.confidence?.supportingFacts ?? []) keyInformation.push(`Supported by: ${tripleText(fact)}`);
  // Citations the server's checks did not bear out count against the answer: say so.
  for (const fact of trace?.confidence?.contradictedFacts ?? [])
    keyInformation.push(`Contradicted by the graph: ${tripleText(fact)}`);
  for (const fact of trace?.confidence?.unsupportedFacts ?? [])
    keyInformation.push(`Not found in the graph: ${tripleText(fact)}`);
  for (const step of trace?.steps ?? []) {
    if (step.kind === "toolResult" || step.kind === "userInput") keyInformation.push(step.summary);
  }
  for (const finding of input.findings ?? []) keyInformation.push(`Follow-up "${finding.question}": ${finding.answer}`);
  const selected = trace?.hypotheses.find((hypothesis) => hypothesis.selected);
  const mainSteps = (trace?.steps ?? [])
    .filter((step) => step.kind !== "seed" && step.kind !== "answer")
    .map((step) => step.summary);
  if (selected && !mainSteps.some((step) => step.includes(selected.name)))
    mainSteps.push(`Selected the hypothesis "${selected.name}": ${selected.explanation}`);
  if (trace && trace.derivations.length > 0)
    mainSteps.push(
      `Derived ${trace.derivations.length} fact${trace.derivations.length === 1 ? "" : "s"} from the rules`,
    );
  const score = serverConfidence(input.response);
  const band = confidenceBand(score, input.bands);
  const confidence = { band, label: bandLabels[band], score };
  const refinements = [...(input.refinements ?? [])];
  const keyShown = keyInformation.slice(0, limit);
  const stepsShown = mainSteps.slice(0, limit);
  const lines = [
    `**Reasoning approach:** ${approach}`,
    ...(keyShown.length > 0 ? ["", "**Key information considered:**", ...keyShown.map((item) => `- ${item}`)] : []),
    ...(stepsShown.length > 0
      ? ["", "**Main steps:**", ...stepsShown.map((item, index) => `${index + 1}. ${item}`)]
      : []),
    ...(refinements.length > 0
      ? ["", "**Follow-up questions explored:**", ...refinements.map((item) => `- ${item}`)]
      : []),
    "",
    `**Confidence in this analysis:** ${confidence.label}${score !== null ? ` (${Math.round(score * 100)}%)` : ""}`,
  ];
  return {
    approach,
    keyInformation: keyShown,
    mainSteps: stepsShown,
    refinements,
    confidence,
    markdown: lines.join("\n"),
  };
}

/** The text of a `pending_user_input` question for the user (§1.4.5). */
export function userInputPrompt(question: string): string {
  return `To help me reason more effectively about this, could you please tell me: ${question}`;
}
