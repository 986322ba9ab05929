import { DeliberateError, type FieldIssue } from "@deliberate/base";
import type { z } from "zod";
import type { JsonCandidate } from "./extract-json.ts";
import { addUsage, type FinishReason, type GenerateResult, type Usage } from "./language-model.ts";
import { checkAnswer, formatIssues, type AnswerFormat } from "./structured-answer.ts";

/** One model answer to a structured request, before validation. */
export interface AnswerAttempt<Turn> {
  /** The JSON the answer carries (tool input or JSON found in text), or why there is none. */
  candidate: JsonCandidate;
  /** The answer as text (the JSON text for tool answers). */
  text: string;
  usage: Usage;
  finishReason: FinishReason;
  modelId: string;
  /** Provider-specific record of the answer, needed to send it back in the repair round. */
  turn: Turn;
}

/** What a provider needs to ask for a corrected answer. */
export interface RepairRequest<Turn> {
  previous: AnswerAttempt<Turn>;
  issues: FieldIssue[];
  /** The repair prompt: the problems and what to send back (the provider adds how). */
  instruction: string;
}

export interface GenerateWithRepairOptions<T, Turn> {
  schema: z.ZodType<T>;
  format: AnswerFormat;
  signal?: AbortSignal | undefined;
  /** Asks the model; called once, and once more with `repair` when the first answer is invalid. */
  ask(repair: RepairRequest<Turn> | undefined): Promise<AnswerAttempt<Turn>>;
}

/**
 * The structured-output contract shared by every provider: ask, validate,
 * and on failure do exactly one repair round (the invalid answer goes back
 * with its problems); a second invalid answer fails with MODEL_OUTPUT_INVALID
 * listing the problems. Usage covers both rounds.
 */
export async function generateWithRepair<T, Turn>(
  options: GenerateWithRepairOptions<T, Turn>,
): Promise<GenerateResult<T>> {
  const first = await options.ask(undefined);
  const firstCheck = checkAnswer(options.schema, first.candidate, options.format);
  if (firstCheck.ok) return toResult(first, firstCheck.value, first.usage);

  let second: AnswerAttempt<Turn>;
  try {
    throwIfAborted(options.signal);
    second = await options.ask({
      previous: first,
      issues: firstCheck.issues,
      instruction: repairInstruction(options.format, firstCheck.issues, first.finishReason),
    });
  } catch (error) {
    throw withSpend(error, { usage: first.usage, answers: 1, modelId: first.modelId });
  }
  const usage = addUsage(first.usage, second.usage);
  const secondCheck = checkAnswer(options.schema, second.candidate, options.format);
  if (secondCheck.ok) return toResult(second, secondCheck.value, usage);

  const cutOff = second.finishReason === "length";
  const failure = new DeliberateError({
    code: "MODEL_OUTPUT_INVALID",
    message:
      `The model's answer did not match the "${options.format.name}" schema, even after one repair round: ` +
      `${formatIssues(secondCheck.issues)}.` +
      (cutOff ? " The answer was cut off at the token limit." : "") +
      ` Answer (excerpt): ${excerpt(second.text)}`,
    issues: secondCheck.issues,
    hint: cutOff
      ? "Raise maxTokens for this mode, or ask for a shorter answer."
      : "Call again, or configure a more capable model for this mode.",
  });
  throw withSpend(failure, { usage, answers: 2, modelId: second.modelId });
}

/** What a failed structured call had already spent: the answers received and their usage. */
export interface ModelSpend {
  usage: Usage;
  /** Answers the model gave before the failure (2 for MODEL_OUTPUT_INVALID after the repair round). */
  answers: number;
  modelId: string;
}

const spendOfFailure = new WeakMap<object, ModelSpend>();

function withSpend(error: unknown, spend: ModelSpend): unknown {
  if (typeof error === "object" && error !== null) spendOfFailure.set(error, spend);
  return error;
}

/**
 * What a structured call that failed had spent before failing (answers and
 * their tokens), so its invocation row can record it; undefined when the
 * failure came before any answer.
 */
export function modelSpendOf(error: unknown): ModelSpend | undefined {
  return typeof error === "object" && error !== null ? spendOfFailure.get(error) : undefined;
}

/** Throws CANCELLED when `signal` has been aborted. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) {
    throw new DeliberateError({ code: "CANCELLED", message: "The model call was cancelled.", cause: signal.reason });
  }
}

function repairInstruction(format: AnswerFormat, issues: FieldIssue[], finishReason: FinishReason): string {
  const lines = issues.map((issue) => `- ${issue.field}: ${issue.message}`);
  return [
    `Your previous answer does not match the required "${format.name}" schema:`,
    ...lines,
    ...(finishReason === "length" ? ["It was also cut off at the token limit: be more concise."] : []),
    "Answer again with the complete, corrected object (every required field, not only the fixed ones), keeping what was already right.",
  ].join("\n");
}

function toResult<T, Turn>(attempt: AnswerAttempt<Turn>, object: T, usage: Usage): GenerateResult<T> {
  return { object, text: attempt.text, usage, finishReason: attempt.finishReason, modelId: attempt.modelId };
}

function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  if (flat.length === 0) return "(empty)";
  return flat.length > 200 ? `${flat.slice(0, 200)}…` : flat;
}
