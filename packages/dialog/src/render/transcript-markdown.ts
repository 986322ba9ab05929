import type { DialogSessionRecord } from "./dialog-record.ts";

const actTitles = { produce: "writes", merge: "merges", review: "reviews" } as const;

/** The quality trajectory as a Markdown table: reviewers' score, self-assessment, each criterion. */
export function trajectoryTable(record: DialogSessionRecord): string {
  if (record.iterations.length === 0) return "_No iteration has run yet._";
  const criteria = Object.keys(record.iterations[0]?.criteria ?? {});
  const header = `| Iteration | Reviewers | Self-assessment | ${criteria.join(" | ")} | Tokens |`;
  const rule = `|${" --- |".repeat(criteria.length + 4)}`;
  const rows = record.iterations.map(
    (iteration) =>
      `| ${iteration.iteration} | ${iteration.reviewer_score.toFixed(2)} | ${iteration.self_assessment.toFixed(2)} | ${criteria
        .map((name) => (iteration.criteria[name] ?? 0).toFixed(2))
        .join(" | ")} | ${iteration.tokens} |`,
  );
  return [header, rule, ...rows].join("\n");
}

/**
 * The whole session as a Markdown transcript (headings from `headingLevel`, default 1): header, agents, every turn of every iteration
 * with its quality, and the summaries made for context overflow (the raw turns stay in full).
 */
export function dialogTranscriptMarkdown(record: DialogSessionRecord, options: { headingLevel?: number } = {}): string {
  const { session } = record;
  const level = options.headingLevel ?? 1;
  const heading = (depth: number) => "#".repeat(level + depth);
  const lines = [
    `${heading(0)} Reasoning session ${session.session_id}`,
    "",
    `**Topic:** ${session.topic}`,
    "",
    `- Mode: ${session.mode}`,
    `- Status: ${session.status}${session.stop_reason ? ` (${session.stop_reason})` : ""}`,
    `- Iterations: ${session.completed_iterations} of at most ${session.max_iterations}; quality threshold ${session.quality_threshold}`,
    `- Tokens: ${session.tokens_used}${session.token_budget !== null ? ` of ${session.token_budget}` : ""}`,
    `- Started: ${session.created_at}; last activity: ${session.updated_at}`,
    "",
    `${heading(1)} Agents`,
    "",
    ...session.agents.map(
      (agent) => `- **${agent.name}**: ${agent.role}${agent.model ? ` (model ${agent.model})` : ""}`,
    ),
    "",
    `${heading(1)} Turn plan`,
    "",
    ...session.plan.map(
      (step, index) =>
        `${index + 1}. ${step.map((turn) => `${turn.agent} ${turn.act}s`).join(" + ")}${step.length > 1 ? " (concurrently)" : ""}`,
    ),
  ];
  if (session.context) lines.push("", `${heading(1)} Context`, "", session.context);
  for (const iteration of record.iterations) {
    lines.push("", `${heading(1)} Iteration ${iteration.iteration}`, "");
    for (const summary of record.summaries.filter((candidate) => candidate.made_in_iteration === iteration.iteration)) {
      lines.push(
        `${heading(2)} Summary of iterations 0-${summary.through_iteration} (used in later prompts instead of them)`,
        "",
        summary.content,
        "",
      );
    }
    for (const exchange of record.exchanges.filter((candidate) => candidate.iteration === iteration.iteration)) {
      lines.push(
        `${heading(2)} ${exchange.agent} ${actTitles[exchange.act]} (${exchange.role}${exchange.state ? `, ${exchange.state}` : ""})`,
        "",
        `_${exchange.created_at} · ${exchange.tokens.input} in / ${exchange.tokens.output} out${exchange.tokens.estimated ? " (estimated)" : ""}${exchange.model ? ` · ${exchange.model}` : ""}_`,
        "",
        exchange.content,
        "",
      );
    }
    lines.push(
      `**Quality:** reviewers ${iteration.reviewer_score.toFixed(2)}${iteration.graded_by && iteration.graded_by !== "server_model" ? ` (graded by the calling client: ${iteration.graded_by})` : ""}, self-assessment ${iteration.self_assessment.toFixed(2)}; status ${iteration.status}.`,
    );
  }
  if (session.status === "error" && session.error) lines.push("", `**Last exchange failed:** ${session.error}`);
  lines.push("", `${heading(1)} Quality trajectory`, "", trajectoryTable(record), "");
  return lines.join("\n");
}
