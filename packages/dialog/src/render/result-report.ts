import type { DialogResultFormat, DialogStopReason } from "@deliberate/contracts";
import type { DialogSessionRecord } from "./dialog-record.ts";
import { agentsUsed, totalTokens } from "./dialog-record.ts";
import { dialogTranscriptMarkdown, trajectoryTable } from "./transcript-markdown.ts";

/** The result as data: what format json serialises and format structured returns. */
export interface StructuredResult {
  topic: string;
  mode: DialogSessionRecord["session"]["mode"];
  document: string;
  open_directives: Array<{ agent: string; criterion: string; directive: string }>;
  quality_trajectory: Array<{
    iteration: number;
    reviewer_score: number;
    self_assessment: number;
    criteria: Record<string, number>;
    reviews: Array<{ agent: string; score: number; criteria: Record<string, number> }>;
    tokens: number;
  }>;
  stop_reason: DialogStopReason | null;
}

export function structuredResult(record: DialogSessionRecord, stopReason: DialogStopReason | null): StructuredResult {
  const last = record.iterations[record.iterations.length - 1];
  return {
    topic: record.session.topic,
    mode: record.session.mode,
    document: last?.document ?? "",
    open_directives: last?.directives ?? [],
    quality_trajectory: record.iterations.map((iteration) => ({
      iteration: iteration.iteration,
      reviewer_score: iteration.reviewer_score,
      self_assessment: iteration.self_assessment,
      criteria: iteration.criteria,
      reviews: iteration.reviews,
      tokens: iteration.tokens,
    })),
    stop_reason: stopReason,
  };
}

/** The Markdown report: the document, then how it got there (quality per iteration, open directives). */
export function markdownReport(record: DialogSessionRecord, stopReason: DialogStopReason | null, options: { includeFullExchange: boolean }): string {
  const structured = structuredResult(record, stopReason);
  const last = structured.quality_trajectory[structured.quality_trajectory.length - 1];
  const status = stopReason ? `completed (${stopReason})` : "in progress";
  const lines = [
    `# ${record.session.topic}`,
    "",
    `_Mode ${record.session.mode} · ${status} · ${record.iterations.length} iteration(s) · final quality ${last ? last.reviewer_score.toFixed(2) : "n/a"}${last ? ` (self-assessment ${last.self_assessment.toFixed(2)})` : ""} · ${totalTokens(record)} tokens · agents ${agentsUsed(record).join(", ") || "none yet"}_`,
    "",
    structured.document === "" ? "_No exchange has run yet._" : structured.document,
    "",
    "## Quality trajectory",
    "",
    trajectoryTable(record),
  ];
  if (structured.open_directives.length > 0) {
    lines.push("", stopReason ? "## Directives not yet incorporated" : "## Directives for the next iteration", "");
    structured.open_directives.forEach((directive, index) => lines.push(`${index + 1}. **[${directive.criterion}]** ${directive.directive} _(${directive.agent})_`));
  }
  if (options.includeFullExchange) lines.push("", "---", "", dialogTranscriptMarkdown(record));
  return `${lines.join("\n")}\n`;
}

/** The `result` string of get_reasoning_result in the requested format. */
export function renderResult(
  record: DialogSessionRecord,
  stopReason: DialogStopReason | null,
  format: DialogResultFormat,
  options: { includeFullExchange: boolean },
): string {
  if (format === "markdown") return markdownReport(record, stopReason, options);
  const structured = structuredResult(record, stopReason);
  if (format === "structured") return structured.document;
  return JSON.stringify(
    {
      session_id: record.session.session_id,
      ...structured,
      ...(options.includeFullExchange ? { exchanges: record.exchanges } : {}),
    },
    null,
    2,
  );
}
