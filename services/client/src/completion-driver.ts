import {
  createHostContext,
  DeliberateError,
  expandNeedsCompletion,
  type HostContext,
  type NeedsCompletion,
  needsCompletionSchema,
  type PendingPrompt,
} from "@deliberate/contracts";
import type { CompleteFunction, ToolCallOptions } from "./call-options.ts";
import { DeliberateClientError, isClientError } from "./errors.ts";
import type { CallOptions, Transport } from "./transport.ts";
import { checkResponse } from "./validation.ts";

/** What driving a call through its needs_completion steps takes. */
export interface CompletionSettings {
  transport: Transport;
  /** The client's `complete`; a call's own takes precedence. */
  complete: CompleteFunction | undefined;
  /** Most steps one call may take. */
  maxRounds: number;
  /** Prompts of one step answered at once. */
  concurrency: number;
}

/** Answers steps until the output is final; one rejected submission is answered again with the server's feedback. */
export async function driveCompletion(
  settings: CompletionSettings,
  first: unknown,
  callOptions: ToolCallOptions,
): Promise<unknown> {
  const { transport, maxRounds } = settings;
  let output = first;
  let step = asNeedsCompletion(output);
  let round = 0;
  // What the call's steps sent: a compact step sends each text block and schema once per call.
  const known = createHostContext();
  while (step) {
    const complete = callOptions.complete ?? settings.complete;
    if (!complete) {
      throw new DeliberateClientError({
        code: "COMPLETION_REQUIRED",
        message: `${step.tool} needs the host's model: the server has none (${step.prompts.length} prompt(s) to answer).`,
        hint: "Pass complete(prompt) to createDeliberateClient, or answer the step (error.needsCompletion) and call resume().",
        needsCompletion: step,
      });
    }
    round += 1;
    if (round > maxRounds) {
      throw new DeliberateClientError({
        code: "COMPLETION_FAILED",
        message: `${step.tool} still needed completions after ${maxRounds} rounds.`,
        hint: "Raise maxCompletionRounds.",
      });
    }
    const feedback = new Map<string, string>();
    const prompts = await promptsOf(transport, step, known, callOptions);
    for (let attempt = 0; ; attempt += 1) {
      const answers = await answer(step, prompts, round, complete, callOptions, feedback, settings.concurrency);
      try {
        output = await transport.callTool(
          "reasoning_submit",
          { resume_token: step.resume_token, answers },
          { ...callOptions, idempotent: false },
        );
        break;
      } catch (error) {
        // An answer the server rejects leaves the call resumable: ask again once, saying what was wrong.
        if (attempt > 0 || !isClientError(error, "INVALID_INPUT")) throw error;
        for (const [index, entry] of answers.entries()) {
          const problems = error.issues
            .filter((issue) => issue.field.startsWith(`answers.${index}.`))
            .map((issue) => `${issue.field}: ${issue.message}`);
          feedback.set(entry.prompt_id, problems.length > 0 ? problems.join("; ") : error.message);
        }
      }
    }
    step = asNeedsCompletion(output);
  }
  return output;
}

/** Answers a step's prompts with the host's `complete()`, `concurrency` at a time; `feedback` says what the server rejected last time. */
async function answer(
  step: NeedsCompletion,
  prompts: readonly PendingPrompt[],
  round: number,
  complete: CompleteFunction,
  callOptions: CallOptions,
  feedback: Map<string, string>,
  concurrency: number,
) {
  return mapConcurrent(prompts, concurrency, async (prompt) => {
    const note = feedback.get(prompt.id);
    try {
      const value = await complete(prompt, {
        tool: step.tool,
        round,
        signal: callOptions.signal,
        ...(note !== undefined ? { feedback: note } : {}),
      });
      return { prompt_id: prompt.id, answer: value };
    } catch (error) {
      throw new DeliberateClientError({
        code: "COMPLETION_FAILED",
        message: `The host's complete() failed on prompt ${prompt.name} of ${step.tool}: ${error instanceof Error ? error.message : String(error)}`,
        cause: error,
      });
    }
  });
}

/**
 * The step's prompts in full. A compact step names blocks earlier steps of the call sent (kept in `known`);
 * when one is missing (a step resumed from elsewhere), the server is asked to resend the step whole.
 */
async function promptsOf(
  transport: Transport,
  step: NeedsCompletion,
  known: HostContext,
  callOptions: CallOptions,
): Promise<PendingPrompt[]> {
  try {
    return expandNeedsCompletion(step, known);
  } catch (error) {
    if (!DeliberateError.isInstance(error)) throw error;
    const resent = asNeedsCompletion(
      await transport.callTool(
        "reasoning_submit",
        { resume_token: step.resume_token, resend: true },
        { ...callOptions, idempotent: true },
      ),
    );
    if (resent === undefined)
      throw new DeliberateClientError({
        code: "MALFORMED_RESPONSE",
        message: `reasoning_submit resend for ${step.tool} did not return its step.`,
      });
    return expandNeedsCompletion(resent, known);
  }
}

function asNeedsCompletion(value: unknown): NeedsCompletion | undefined {
  if (typeof value !== "object" || value === null || (value as { status?: unknown }).status !== "needs_completion")
    return undefined;
  return checkResponse(needsCompletionSchema, value, "A needs_completion step");
}

/** Runs `work` over `items`, at most `limit` at a time, keeping the order. */
async function mapConcurrent<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
