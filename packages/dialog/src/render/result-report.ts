import type { DialogGradedBy, DialogResultFormat, DialogStopReason } from "@deliberate/contracts";
import { toExchangeOutput } from "./exchange-output.ts";
import { bestIteration } from "./best-iteration.ts";
import type { DialogSessionRecord } from "./dialog-record.ts";
import { dialogTranscriptMarkdown, trajectoryTable } from "./transcript-markdown.ts";

/** The result as data: what format json serialises and format structured returns. */
export interface StructuredResult {
  topic: string;
  mode: DialogSessionRecord["session"]["mode"];
  document: string;
  document_iteration: number | null;
  graded_by: DialogGradedBy | null;
  open_directives: Array<{ agent: string; criterion: string; directive: string }>;
  quality_trajectory: Array<{
    iteration: number;
    reviewer_score: number;
    self_assessment: number;
    criteria: Record<string, number>;
    reviews: Array<{ agent: string; score: number; criteria: Record<string, number> }>;
    tokens: number;
    graded_by: DialogGradedBy | null;
  }>;
  stop_reason: DialogStopReason | null;
}

/** How a result is rendered beyond the record: who spoke, and the page of turns to show (with include_full_exchange). */
export interface ResultRenderOptions {
  agentsUsed: readonly string[];
  /** The page of turns and the iterations they belong to; null without include_full_exchange. */
  transcript: DialogSessionRecord | null;
}

/** The result as data: the best-scoring iteration's document (see bestIteration), its directives, the whole trajectory. */
export function structuredResult(record: DialogSessionRecord, stopReason: DialogStopReason | null): StructuredResult {
  const best = bestIteration(record.iterations);
  return {
    topic: record.session.topic,
    mode: record.session.mode,
    document: best?.document ?? "",
    document_iteration: best?.iteration ?? null,
    graded_by: best?.graded_by ?? null,
    open_directives: best?.directives ?? [],
    quality_trajectory: record.iterations.map((iteration) => ({
      iteration: iteration.iteration,
      reviewer_score: iteration.reviewer_score,
      self_assessment: iteration.self_assessment,
      criteria: iteration.criteria,
      reviews: iteration.reviews,
      tokens: iteration.tokens,
      graded_by: iteration.graded_by,
    })),
    stop_reason: stopReason,
  };
}

function gradingNote(gradedBy: DialogGradedBy | null): string {
  if (gradedBy === "host" || gradedBy === "sampling") {
    return `> Graded by the calling client (graded_by: ${gradedBy}): it answered every agent's prompt, the reviews included, so the scores are not an independent review.`;
  }
  return "";
}

/** The Markdown report: the returned document, then how it got there (quality per iteration, open directives). */
export function markdownReport(
  record: DialogSessionRecord,
  stopReason: DialogStopReason | null,
  options: ResultRenderOptions,
): string {
  const structured = structuredResult(record, stopReason);
  const best = structured.quality_trajectory.find((entry) => entry.iteration === structured.document_iteration);
  const last = structured.quality_trajectory[structured.quality_trajectory.length - 1];
  const status = stopReason ? `completed (${stopReason})` : "in progress";
  const returned =
    best && last && best.iteration !== last.iteration
      ? ` · returned: iteration ${best.iteration}, the best-scoring (${best.reviewer_score.toFixed(2)}; last ${last.reviewer_score.toFixed(2)})`
      : "";
  const lines = [
    `# ${record.session.topic}`,
    "",
    `_Mode ${record.session.mode} · ${status} · ${record.iterations.length} iteration(s) · quality ${best ? best.reviewer_score.toFixed(2) : "n/a"}${best ? ` (self-assessment ${best.self_assessment.toFixed(2)})` : ""}${returned} · ${record.session.tokens_used} tokens · agents ${options.agentsUsed.join(", ") || "none yet"}_`,
  ];
  const note = gradingNote(structured.graded_by);
  if (note !== "") lines.push("", note);
  lines.push(
    "",
    structured.document === "" ? "_No exchange has run yet._" : structured.document,
    "",
    "## Quality trajectory",
    "",
    trajectoryTable(record),
  );
  if (structured.open_directives.length > 0) {
    lines.push("", stopReason ? "## Directives not yet incorporated" : "## Directives for the next iteration", "");
    structured.open_directives.forEach((directive, index) =>
      lines.push(`${index + 1}. **[${directive.criterion}]** ${directive.directive} _(${directive.agent})_`),
    );
  }
  if (options.transcript) lines.push("", "---", "", dialogTranscriptMarkdown(options.transcript));
  return `${lines.join("\n")}\n`;
}

/** The `result` string of get_reasoning_result in the requested format. */
export function renderResult(
  record: DialogSessionRecord,
  stopReason: DialogStopReason | null,
  format: DialogResultFormat,
  options: ResultRenderOptions,
): string {
  if (format === "markdown") return markdownReport(record, stopReason, options);
  const structured = structuredResult(record, stopReason);
  if (format === "structured") return structured.document;
  return JSON.stringify(
    {
      session_id: record.session.session_id,
      ...structured,
      ...(options.transcript ? { exchanges: options.transcript.exchanges.map(toExchangeOutput) } : {}),
    },
    null,
    2,
  );
}
