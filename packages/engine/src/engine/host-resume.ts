import { DeliberateError } from "@deliberate/base";
import {
  type NeedsCompletion,
  type PendingPrompt,
  parseInput,
  submitInputSchema,
  submitTool,
} from "@deliberate/contracts";
import type { SuspendedCall } from "@deliberate/store";
import type { InvokeOptions } from "../engine-types.ts";
import { compactStep, type SentBlocks } from "../host/compact-step.ts";
import type { CompletionNeeded } from "../host/completion-needed.ts";
import { hostInstructions } from "../host/host-instructions.ts";
import type { EngineCore } from "./core.ts";

/** How long one submission may hold a suspended call (replay makes no model call, so this is generous). */
const claimLeaseMs = 2 * 60 * 1000;

/** Where a host-executed call stands when it is resumed: its suspended row and the answers so far. */
export interface Resumption {
  call: SuspendedCall;
  answers: Record<string, unknown>;
  /** Where each answer came from in the submission (`answers.N.answer`), for errors that name the field. */
  answerFields: Record<string, string>;
}

/** Runs a call (fresh or resumed) to completion, failure, or its next suspension. */
export type ExecuteCall = (
  toolName: string,
  rawArguments: unknown,
  invokeOptions: InvokeOptions,
  resumption?: Resumption,
) => Promise<Record<string, unknown>>;

const nothingSent: SentBlocks = { texts: new Set(), schemas: new Set() };

/**
 * The step the caller gets, in the engine's form: compact (each block once per call, `sent` being what
 * earlier steps of the call sent) or full.
 */
function stepFor(
  core: EngineCore,
  call: { id: string; tool: string; expiresAt: string },
  prompts: PendingPrompt[],
  sent: SentBlocks,
): NeedsCompletion {
  const common = { status: "needs_completion" as const, resume_token: call.id, tool: call.tool };
  if (core.hostPrompts === "full") {
    return { ...common, prompts, instructions: hostInstructions(prompts.length, "full"), expires_at: call.expiresAt };
  }
  const compact = compactStep(prompts, sent);
  return {
    ...common,
    prompts: compact.prompts,
    context: compact.context,
    schemas: compact.schemas,
    // Blocks an earlier step sent are not repeated, nor are its instructions.
    instructions: hostInstructions(prompts.length, "compact", sent.texts.size > 0),
    expires_at: call.expiresAt,
  };
}

/** Saves a host-executed call that needs completions and returns the needs-completion step for the caller. */
export async function suspend(
  core: EngineCore,
  call: { id: string; startedAt: Date; toolName: string; rawArguments: unknown },
  suspension: CompletionNeeded,
  { resumption, sent }: { resumption: Resumption | undefined; sent: SentBlocks },
): Promise<NeedsCompletion> {
  const now = core.clock.now();
  const expiresAt = new Date(now.getTime() + core.suspendedCallTtlMs).toISOString();
  const suspended: SuspendedCall = {
    id: call.id,
    tool: call.toolName,
    arguments: call.rawArguments,
    answers: resumption?.answers ?? {},
    pending: suspension.prompts,
    rounds: (resumption?.call.rounds ?? 0) + 1,
    // When the first round started: the invocation's latency runs from here.
    created_at: resumption?.call.created_at ?? call.startedAt.toISOString(),
    updated_at: now.toISOString(),
    expires_at: expiresAt,
  };
  await core.store.suspendedCalls.save(suspended);
  return stepFor(core, { id: suspended.id, tool: call.toolName, expiresAt }, suspension.prompts, sent);
}

/** Merges a submission's answers into the suspended call's; INVALID_INPUT naming each unknown prompt id. */
function mergeAnswers(
  call: SuspendedCall,
  submitted: ReadonlyArray<{ prompt_id: string; answer: unknown }>,
): Omit<Resumption, "call"> {
  const pendingIds = new Set(call.pending.map((prompt) => prompt.id));
  const answers = { ...call.answers };
  const answerFields: Record<string, string> = {};
  const unknown: Array<{ field: string; message: string }> = [];
  for (const [index, entry] of submitted.entries()) {
    if (!pendingIds.has(entry.prompt_id)) {
      unknown.push({
        field: `answers.${index}.prompt_id`,
        message: `'${entry.prompt_id}' is not a pending prompt; pending: ${[...pendingIds].join(", ")}`,
      });
      continue;
    }
    answers[entry.prompt_id] = entry.answer;
    answerFields[entry.prompt_id] = `answers.${index}.answer`;
  }
  if (unknown.length > 0) {
    throw new DeliberateError({
      code: "INVALID_INPUT",
      message: `Unknown prompt ids for resume_token ${call.id}: ${unknown.map((issue) => issue.message).join("; ")}`,
      issues: unknown,
      hint: "Answer the prompts of the latest needs_completion result, using their ids as prompt_id.",
    });
  }
  return { answers, answerFields };
}

/** reasoning_submit: merge the answers into the suspended call and replay it. */
export async function resume(
  core: EngineCore,
  execute: ExecuteCall,
  rawArguments: unknown,
  invokeOptions: InvokeOptions,
): Promise<Record<string, unknown>> {
  const input = parseInput(submitInputSchema, rawArguments ?? {}, submitTool.name);
  const call = await core.store.suspendedCalls.get(input.resume_token, core.clock.now().toISOString());
  // The step again, every block in it: nothing is answered, replayed or claimed.
  if (input.answers === undefined)
    return stepFor(core, { id: call.id, tool: call.tool, expiresAt: call.expires_at }, call.pending, nothingSent);
  const { answers, answerFields } = mergeAnswers(call, input.answers);
  // Claim the call so a retried or duplicated submission cannot replay it a second time.
  const now = core.clock.now();
  const claimed = await core.store.suspendedCalls.claim({
    id: call.id,
    now: now.toISOString(),
    until: new Date(now.getTime() + claimLeaseMs).toISOString(),
  });
  if (!claimed) {
    throw new DeliberateError({
      code: "CONFLICT",
      message: `The suspended call ${call.id} is being resumed by another submission.`,
      issues: [{ field: "resume_token", message: "already being resumed" }],
      hint: "Wait for the other reasoning_submit to return: it gives the result or the next step.",
      retryable: true,
    });
  }
  try {
    return await execute(call.tool, call.arguments, invokeOptions, { call, answers, answerFields });
  } catch (error) {
    // Still resumable (e.g. an invalid answer): let the next submission in.
    await core.store.suspendedCalls.release(call.id);
    throw error;
  }
}
