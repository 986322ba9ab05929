import { createHash } from "node:crypto";
import { DeliberateError, type FieldIssue } from "@deliberate/base";
import { containsNulCharacter, nulCharacterIssues, type PendingPrompt } from "@deliberate/contracts";
import {
  emptyUsage,
  extractJson,
  type GenerateOptions,
  type GenerateResult,
  type LanguageModel,
  type ModelRouter,
} from "@deliberate/providers";
import { answerJsonSchema } from "./answer-json-schema.ts";
import { CompletionNeeded } from "./completion-needed.ts";

export interface ReplayRouterOptions {
  /** Recorded answers by prompt id (from earlier rounds and this submission). */
  answers: Readonly<Record<string, unknown>>;
  /** Where each answer came from in the submission, to name the field in errors. */
  answerFields?: Readonly<Record<string, string>>;
}

/**
 * What identifies a prompt across replays: a digest of everything asked (the
 * answer's name and schema, the system text and every message, history
 * included), and, when the same prompt is asked more than once in one call,
 * its occurrence ("<digest>.2"). A prompt that changed between rounds gets a
 * new key, so it is asked again rather than answered with a stale reply.
 */
function promptDigest(options: GenerateOptions<unknown>): string {
  return createHash("sha256")
    .update(options.schemaName ?? "")
    .update("\u0000")
    .update(options.schema ? JSON.stringify(answerJsonSchema(options.schema)) : "text")
    .update("\u0000")
    .update(options.system)
    .update("\u0000")
    .update(options.messages.map((message) => `${message.role}:${message.content}`).join("\u0000"))
    .digest("hex")
    .slice(0, 12);
}

/**
 * A prompt id is `p<sequence>-<key>`: the sequence only numbers the prompts
 * for the reader; answers are looked up by the key, so a prompt asked at
 * another position of a later replay (concurrent steps finishing in another
 * order, an earlier step needing fewer prompts) keeps its answer.
 */
const promptIdPattern = /^p\d+-(.+)$/;

/** The key of a prompt id (the id itself for ids of another form). */
export function promptKey(id: string): string {
  return promptIdPattern.exec(id)?.[1] ?? id;
}

/** Agents often send the JSON as a string, sometimes fenced; accept both. */
function parseAnswer(answer: unknown, structured: boolean): unknown {
  if (typeof answer !== "string" || !structured) return answer;
  const candidate = extractJson(answer);
  return candidate.ok ? candidate.value : answer;
}

/** The replaying router, which also tells which prompts of this replay the host had answered (so had been sent). */
export interface ReplayRouter extends ModelRouter {
  answeredPrompts(): readonly PendingPrompt[];
}

/**
 * The host-executed provider: answers from the recorded completions, and
 * suspends (CompletionNeeded) on the first prompt it has no answer for.
 * Replaying a call with the same answers gives the same result, because the
 * engine's handlers reach the outside world only through their context.
 */
export function createReplayRouter(options: ReplayRouterOptions): ReplayRouter {
  return new HostReplayRouter(options);
}

/**
 * A class whose state is made on the first prompt: every model-free call of a host-executed service
 * gets one, and most never ask a model, so a fresh one is a single small object (its maps and model
 * were garbage that outlived young-generation collections while the call was in flight).
 */
class HostReplayRouter implements ReplayRouter, LanguageModel {
  readonly provider = "host";
  readonly configured = true;
  readonly modelId = "host";
  private sequence = 0;
  private answered: PendingPrompt[] | undefined;
  private occurrences: Map<string, number> | undefined;
  private answers: Map<string, { id: string; answer: unknown }> | undefined;

  constructor(private readonly options: ReplayRouterOptions) {}

  /** One model for every mode (an arrow so a caller may pass it on detached). */
  readonly forMode = (_mode: string): LanguageModel => this;

  answeredPrompts(): readonly PendingPrompt[] {
    return this.answered ?? [];
  }

  /** The recorded answers by prompt key, read once. */
  private recordedAnswers(): Map<string, { id: string; answer: unknown }> {
    if (this.answers === undefined) {
      this.answers = new Map();
      for (const [id, answer] of Object.entries(this.options.answers)) this.answers.set(promptKey(id), { id, answer });
    }
    return this.answers;
  }

  async generate<T>(generateOptions: GenerateOptions<T>): Promise<GenerateResult<T>> {
    this.sequence += 1;
    const digest = promptDigest(generateOptions as GenerateOptions<unknown>);
    this.occurrences ??= new Map();
    const occurrence = (this.occurrences.get(digest) ?? 0) + 1;
    this.occurrences.set(digest, occurrence);
    const key = occurrence === 1 ? digest : `${digest}.${occurrence}`;
    const schema = generateOptions.schema;
    const recorded = this.recordedAnswers().get(key);
    const prompt: PendingPrompt = {
      id: `p${this.sequence}-${key}`,
      name: generateOptions.schemaName ?? "answer",
      system: generateOptions.system,
      user: generateOptions.messages.map((message) => message.content).join("\n\n"),
      schema: schema ? answerJsonSchema(schema) : { type: "string" },
    };
    if (recorded === undefined) throw new CompletionNeeded([prompt]);
    this.answered ??= [];
    this.answered.push(prompt);
    return answerOf(recorded, schema, this.options.answerFields?.[recorded.id] ?? `answers[${recorded.id}]`);
  }
}

/** A recorded answer as the prompt's result: parsed and checked against its schema (errors name `field`). */
function answerOf<T>(
  recorded: { id: string; answer: unknown },
  schema: GenerateOptions<T>["schema"],
  field: string,
): GenerateResult<T> {
  const raw = parseAnswer(recorded.answer, schema !== undefined);
  // reasoning_submit's input check saw the answer as text; read as JSON, its escapes may decode to U+0000,
  // which is refused as it is in the same answer sent as an object.
  if (raw !== recorded.answer && containsNulCharacter(raw)) {
    throw invalidAnswer(
      field,
      nulCharacterIssues(raw).map((issue) => ({
        ...issue,
        field: issue.field === "(input)" ? field : `${field}.${issue.field}`,
      })),
    );
  }
  if (!schema) {
    if (typeof raw !== "string") throw invalidAnswer(field, [{ field, message: "expected a text answer" }]);
    return { object: undefined as T, text: raw, usage: emptyUsage, finishReason: "stop", modelId: "host" };
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    throw invalidAnswer(
      field,
      parsed.error.issues.map((issue) => ({
        field: [field, ...issue.path.map(String)].join("."),
        message: issue.message,
      })),
    );
  }
  return {
    object: parsed.data,
    text: JSON.stringify(parsed.data),
    usage: emptyUsage,
    finishReason: "stop",
    modelId: "host",
  };
}

const rejectedAnswers = new WeakSet<object>();

/**
 * True for the error a submitted answer gets when it does not match its
 * prompt's schema. It belongs to reasoning_submit's caller, so code that turns
 * a step's failure into a partial result (presets) must rethrow it instead.
 */
export function isRejectedAnswer(error: unknown): boolean {
  return typeof error === "object" && error !== null && rejectedAnswers.has(error);
}

function invalidAnswer(field: string, issues: FieldIssue[]): DeliberateError {
  const error = new DeliberateError({
    code: "INVALID_INPUT",
    message: `The answer ${field} does not match its prompt's schema: ${issues.map((issue) => `${issue.field}: ${issue.message}`).join("; ")}`,
    issues,
    hint: "Fix the answer to match the prompt's JSON schema and submit again with the same resume_token; nothing was lost.",
  });
  rejectedAnswers.add(error);
  return error;
}
