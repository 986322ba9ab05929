import type { DialogAct } from "@deliberate/contracts";
import type { RubricCriterion } from "../presets/dialog-preset.ts";
import type { DialogDirective } from "../store/repositories/dialog-session.repository.ts";

/** An earlier turn as later prompts show it. */
export interface EarlierTurn {
  iteration: number;
  agent: string;
  act: DialogAct;
  content: string;
}

/** What later prompts show of the conversation before the current iteration. */
export interface EarlierConversation {
  /** A summary standing in for iterations 0..throughIteration. */
  summary: { throughIteration: number; content: string } | null;
  /** The turns after the summary, in order. */
  turns: EarlierTurn[];
}

/** A document the turn works on. */
export interface CurrentDocument {
  author: string;
  iteration: number;
  content: string;
  /** Set when the document was larger than the context budget allows and `content` shows only its start and end. */
  shortened?: { shownCharacters: number; totalCharacters: number };
}

/** Everything a turn's prompt is made of; no ids or times, so replays ask the same prompt. */
export interface TurnPromptInput {
  topic: string;
  context: string | null;
  iteration: number;
  earlier: EarlierConversation;
  documents: CurrentDocument[];
  directives: DialogDirective[];
}

const actLabels: Record<DialogAct, string> = { produce: "document", merge: "merged document", review: "review" };

export function rubricLines(criteria: readonly RubricCriterion[]): string {
  return criteria
    .map((criterion) => `- ${criterion.name} (${Math.round(criterion.weight * 100)}%): ${criterion.description}`)
    .join("\n");
}

export function renderDirectives(directives: readonly DialogDirective[]): string {
  return directives
    .map(
      (directive, index) => `${index + 1}. [${directive.criterion}] ${directive.directive} (from ${directive.agent})`,
    )
    .join("\n");
}

/** The sections every turn's prompt starts with: topic, context, earlier conversation. */
export function renderSessionSections(input: TurnPromptInput): string {
  const sections = [`# Topic\n${input.topic}`];
  if (input.context !== null && input.context.trim() !== "") sections.push(`# Context\n${input.context}`);
  const earlier = renderEarlier(input.earlier);
  if (earlier !== "") sections.push(earlier);
  return sections.join("\n\n");
}

export function renderEarlier(earlier: EarlierConversation): string {
  if (earlier.summary === null && earlier.turns.length === 0) return "";
  const parts = ["# Earlier in this session"];
  if (earlier.summary !== null)
    parts.push(`## Summary of iterations 0-${earlier.summary.throughIteration}\n${earlier.summary.content}`);
  for (const turn of earlier.turns)
    parts.push(`## Iteration ${turn.iteration}: ${turn.agent}'s ${actLabels[turn.act]}\n${turn.content}`);
  return parts.join("\n\n");
}

/** The documents of the turn, each delimited so their own headings stay inside them; a shortened one says so. */
export function renderDocuments(documents: readonly CurrentDocument[], heading: string): string {
  return documents
    .map((document) => {
      const note = document.shortened
        ? `\n_Shortened to fit the context budget: its start and end are shown (${document.shortened.shownCharacters} of ${document.shortened.totalCharacters} characters); the part in between is omitted here, not lost._`
        : "";
      return `# ${heading} (iteration ${document.iteration}, by ${document.author})${note}\n<document author="${document.author}">\n${document.content}\n</document>`;
    })
    .join("\n\n");
}

/** What a writer is told when the document it works from was shortened: write a complete one that fits. */
export function shortenedDocumentTask(documents: readonly CurrentDocument[]): string {
  const shortened = documents.filter((document) => document.shortened !== undefined);
  if (shortened.length === 0) return "";
  const room = Math.min(...shortened.map((document) => document.shortened?.shownCharacters ?? 0));
  return `\nThe document above was too long for the context budget and is shown shortened: write a complete document that keeps its essential content in at most about ${room} characters.`;
}

/** The rules every turn's system prompt shares, after the agent's persona. */
export function sessionRole(agent: { name: string; role: string }): string {
  return `You are "${agent.name}" (${agent.role}) in a multi-agent reasoning session: agents take turns writing, merging and reviewing one document until the reviewers judge it good enough. Answer only with the JSON object asked for.`;
}
