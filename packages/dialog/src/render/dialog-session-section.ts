import { mermaidLabel, type SessionSection } from "@deliberate/engine";
import type { DialogRepositories } from "../dialog-context.ts";
import type { DialogSessionRecord } from "./dialog-record.ts";
import { dialogTranscriptMarkdown } from "./transcript-markdown.ts";

/** Reads a session's whole dialog record; undefined when the session is not a dialog session. */
export async function readDialogSection(
  store: DialogRepositories,
  sessionId: string,
): Promise<DialogSessionRecord | undefined> {
  const session = await store.dialogSessions.findSession(sessionId);
  if (!session) return undefined;
  const [iterations, exchanges, summaries] = await Promise.all([
    store.dialogSessions.listIterations(sessionId),
    store.dialogSessions.listExchanges(sessionId),
    store.dialogSessions.listSummaries(sessionId),
  ]);
  return { session, iterations, exchanges, summaries };
}

/**
 * The dialog part of a session's record, export and resources: the Markdown
 * transcript (every turn of every iteration, quality per iteration, summaries)
 * and a flowchart of who spoke after whom.
 */
export const dialogSessionSection: SessionSection<DialogRepositories> = {
  name: "dialog",
  read: (store, sessionId) => readDialogSection(store, sessionId),
  markdown: (data) => dialogTranscriptMarkdown(data as DialogSessionRecord, { headingLevel: 2 }),
  mermaid(data, node) {
    const record = data as DialogSessionRecord;
    const lines: string[] = [];
    let previous: string[] = [];
    for (const iteration of record.iterations) {
      const turns = record.exchanges.filter((exchange) => exchange.iteration === iteration.iteration);
      const steps = [...new Set(turns.map((turn) => turn.step))].sort((a, b) => a - b);
      for (const step of steps) {
        const current = turns.filter((turn) => turn.step === step);
        for (const turn of current) {
          const score = turn.act === "review" ? (/^Score: ([\d.]+)/.exec(turn.content)?.[1] ?? "") : "";
          lines.push(
            `  ${node(turn.id)}["${mermaidLabel(`${iteration.iteration}: ${turn.agent} ${turn.act}s${score ? ` ${score}` : ""}`)}"]`,
          );
          for (const before of previous) lines.push(`  ${node(before)} --> ${node(turn.id)}`);
        }
        previous = current.map((turn) => turn.id);
      }
    }
    return lines;
  },
};
