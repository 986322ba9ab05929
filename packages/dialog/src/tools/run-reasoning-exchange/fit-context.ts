import { DeliberateError } from "@deliberate/contracts";
import { askAgent, type SpendTally } from "../../ask-agent.ts";
import type { DialogToolContext } from "../../dialog-context.ts";
import type { DialogModeDefinition } from "../../modes/dialog-mode.ts";
import type { CurrentDocument, EarlierConversation, TurnPromptInput } from "../../modes/prompt-sections.ts";
import { createSummaryMode, summaryCharacterLimit } from "../../modes/summary.mode.ts";
import type { DialogSession, DialogSummaryRecord } from "../../store/repositories/dialog-session.repository.ts";
import { estimateTokens } from "../../token-estimate.ts";

/** A document a step's prompts showed shortened (the whole document stays stored and is returned). */
export interface ShortenedDocument {
  step: number;
  author: string;
  iteration: number;
  shown_characters: number;
  total_characters: number;
}

/** How a step's prompts fit the context budget. */
export interface StepFit {
  /** The earlier conversation, with a summary standing in for early iterations when one was needed. */
  earlier: EarlierConversation;
  /** The summary made in this iteration, if any (made at most once per iteration). */
  summary: DialogSummaryRecord | undefined;
  /** The documents as this step's prompts show them. */
  documents: CurrentDocument[];
  shortened: ShortenedDocument[];
}

export interface StepFitRequest {
  context: DialogToolContext;
  session: DialogSession;
  stepIndex: number;
  /** The step's modes (each turn's persona, rules and schema). */
  modes: ReadonlyArray<DialogModeDefinition<TurnPromptInput, unknown>>;
  /** The step's prompt input as the iteration stands. */
  input: TurnPromptInput;
  summary: DialogSummaryRecord | undefined;
  tally: SpendTally;
  /** Called before the summariser is asked. */
  onSummarise(throughIteration: number): void;
}

// A shortened document keeps at least this much of itself; below it, the budget is too small for any document.
const minimumShownCharacters = 400;

/**
 * Makes a step's largest prompt fit the session's context budget, in this order: nothing when it
 * fits; a summary of the iterations before last (one summariser call per iteration); then each
 * document shortened in proportion to its length, keeping its start and end, so a document larger
 * than the budget is reviewed and refined from what fits instead of failing the session. Only
 * when even that cannot fit (the persona, topic and context alone fill the budget) LIMIT_EXCEEDED.
 */
export async function fitStepToContext(request: StepFitRequest): Promise<StepFit> {
  const { session, input } = request;
  const budget = session.context_budget_tokens;
  const largestPrompt = (candidate: TurnPromptInput) =>
    Math.max(...request.modes.map((mode) => estimateTokens(mode.system) + estimateTokens(mode.prompt(candidate))));
  let summary = request.summary;
  let earlier = input.earlier;
  const fitted = (documents: CurrentDocument[], shortened: ShortenedDocument[]): StepFit => ({
    earlier,
    summary,
    documents,
    shortened,
  });
  if (largestPrompt(input) <= budget) return fitted(input.documents, []);

  if (summary === undefined && earlier.turns.length > 0) {
    summary = await summariseEarlier(request, earlier);
    earlier = { summary: { throughIteration: summary.through_iteration, content: summary.content }, turns: [] };
    if (largestPrompt({ ...input, earlier }) <= budget) return fitted(input.documents, []);
  }

  const totalCharacters = input.documents.reduce((sum, document) => sum + document.content.length, 0);
  let cut = (largestPrompt({ ...input, earlier }) - budget) * 4 + 400 * input.documents.length;
  for (let attempt = 0; attempt < 8 && totalCharacters > 0; attempt += 1) {
    const keepRatio = Math.max(0, (totalCharacters - cut) / totalCharacters);
    const documents = input.documents.map((document) =>
      shortenDocument(document, Math.floor(document.content.length * keepRatio)),
    );
    if (
      documents.some(
        (document) => document.shortened !== undefined && document.shortened.shownCharacters < minimumShownCharacters,
      )
    )
      break;
    const needed = largestPrompt({ ...input, earlier, documents });
    if (needed <= budget) {
      const shortened = documents.flatMap((document) =>
        document.shortened
          ? [
              {
                step: request.stepIndex,
                author: document.author,
                iteration: document.iteration,
                shown_characters: document.shortened.shownCharacters,
                total_characters: document.shortened.totalCharacters,
              },
            ]
          : [],
      );
      return fitted(documents, shortened);
    }
    cut += (needed - budget) * 4 + 200;
  }
  const needed = largestPrompt({ ...input, earlier });
  throw new DeliberateError({
    code: "LIMIT_EXCEEDED",
    message: `Step ${request.stepIndex} of iteration ${input.iteration} needs a prompt of about ${needed} tokens${earlier.summary ? " with earlier iterations summarised" : ""}${totalCharacters > 0 ? `, more than its documents shortened to ${minimumShownCharacters} characters leave room for` : ""}; the session's context budget is ${budget} tokens.`,
    issues: [{ field: "contextBudgetTokens", message: `about ${needed} tokens needed, ${budget} allowed` }],
    hint: "Start a session with a larger contextBudgetTokens, a shorter context, or agents with shorter system prompts.",
  });
}

async function summariseEarlier(request: StepFitRequest, earlier: EarlierConversation): Promise<DialogSummaryRecord> {
  const { context, session, input } = request;
  const throughIteration = input.iteration - 2;
  request.onSummarise(throughIteration);
  const answer = await askAgent(
    context,
    createSummaryMode(summaryCharacterLimit(session.context_budget_tokens)),
    { topic: session.topic, earlier, throughIteration },
    {},
    request.tally,
  );
  return {
    session_id: session.session_id,
    through_iteration: throughIteration,
    made_in_iteration: input.iteration,
    content: answer.object.summary,
    tokens: answer.tokens,
    model: answer.model,
    created_at: answer.at,
  };
}

/** The document with only its first two thirds and last third of `keep` characters shown, and a marker between. */
export function shortenDocument(document: CurrentDocument, keep: number): CurrentDocument {
  const total = document.content.length;
  if (keep >= total) return document;
  const head = Math.ceil((keep * 2) / 3);
  const tail = keep - head;
  const content = `${document.content.slice(0, head)}\n\n[… ${total - keep} characters omitted here to fit the context budget …]\n\n${tail > 0 ? document.content.slice(total - tail) : ""}`;
  return { ...document, content, shortened: { shownCharacters: keep, totalCharacters: total } };
}
