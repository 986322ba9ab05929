/** What one follow-up question of the refinement loop found (§1.3.3 B). */
export interface FollowUpFinding {
  question: string;
  answer: string;
  confidence: number | null;
}

/**
 * The `hostProvidedPriorReasoningSummary` of a refinement call: the user's original question, the answer to it in
 * hand, and what each follow-up found. Follow-ups are asked in service of the original question, so the server
 * always sees it; the closing synthesis call (goal: the original question) answers it from all of this.
 */
export function refinementSummary(input: {
  query: string;
  answer: string;
  findings: readonly FollowUpFinding[];
  synthesis: boolean;
}): string {
  const lines = [`Original question (the one to answer): ${input.query}`, `Answer so far: ${input.answer}`];
  if (input.findings.length > 0) {
    lines.push("Follow-up findings:");
    for (const finding of input.findings) lines.push(`- ${finding.question} -> ${finding.answer}`);
  }
  lines.push(
    input.synthesis
      ? "Answer the original question, using the answer so far and every follow-up finding."
      : "The goal is a follow-up asked to improve the answer to the original question.",
  );
  return lines.join("\n");
}
