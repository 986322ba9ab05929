import { DeliberateError } from "@deliberate/base";
import { extractJson, type JsonCandidate } from "../extract-json.ts";
import { generateWithRepair, throwIfAborted, type AnswerAttempt } from "../generate-with-repair.ts";
import type { GenerateOptions, GenerateResult, LanguageModel, ModelMessage, Usage } from "../language-model.ts";
import { createProgressTracker, type ProgressTracker } from "../streaming.ts";
import { describeAnswerFormat } from "../structured-answer.ts";
import { abortableDelay } from "./abortable-delay.ts";

/**
 * Computes the answer to one call. A string is the model's text (for a
 * structured call it is searched for JSON, like a real provider does); any
 * other value is the structured answer itself. Throwing simulates a provider
 * failure (throw a DeliberateError with the code you want).
 */
export type ScriptedResponder = (options: GenerateOptions<unknown>, callIndex: number) => unknown;

/** The long form of a script. */
export interface ScriptedModelOptions {
  /** Answers every call: a responder function, or a fixed value. */
  answer?: unknown;
  /**
   * One answer per call, in order, repair rounds included; an Error in the
   * list is thrown for that call. Running out fails the call.
   */
  answers?: readonly unknown[];
  /** Defaults to `scripted`. */
  provider?: string;
  /** Defaults to `scripted-model`. */
  modelId?: string;
  /** Fixed latency of every call; honours the call's signal (CANCELLED). */
  latencyMs?: number;
  /** Figures to report instead of the estimate (characters / 4). */
  usage?: Partial<Usage>;
}

/** A responder, a list of answers (one per call), or the long form. */
export type ScriptedModelScript = ScriptedResponder | readonly unknown[] | ScriptedModelOptions;

/** One recorded call: the options the script saw (a repair round shows the invalid answer and the problems). */
export interface ScriptedCall extends GenerateOptions<unknown> {
  /** 0-based, over every call of this model. */
  index: number;
  /** True for the repair round after an invalid structured answer. */
  repair: boolean;
}

/** The scripted fake: a LanguageModel that also records its calls. */
export interface ScriptedModel extends LanguageModel {
  readonly calls: ScriptedCall[];
}

/**
 * A fake LanguageModel for tests and demos: answers by function, by a fixed
 * value, or from a list (one per call); records every call in `calls`; and
 * validates structured answers exactly like the real providers, with one
 * repair round before MODEL_OUTPUT_INVALID. `onProgress` receives each
 * answer as one delta and its completion. Never a default for real use.
 *
 * @example
 * const model = createScriptedModel([{ wrong: true }, { answer: 42 }]);
 * const result = await model.generate({ system: "", messages, schema, maxTokens: 100 });
 * // result.object is { answer: 42 }; model.calls[1].repair is true
 */
export function createScriptedModel(script: ScriptedModelScript): ScriptedModel {
  const options: ScriptedModelOptions =
    typeof script === "function"
      ? { answer: script }
      : Array.isArray(script)
        ? { answers: script }
        : (script as ScriptedModelOptions);
  const queue = options.answers ? [...options.answers] : undefined;
  const provider = options.provider ?? "scripted";
  const defaultModelId = options.modelId ?? "scripted-model";
  const calls: ScriptedCall[] = [];

  async function answer(
    call: GenerateOptions<unknown>,
    repair: boolean,
    progress: ProgressTracker,
  ): Promise<{ value: unknown; usage: Usage; modelId: string }> {
    throwIfAborted(call.signal);
    const index = calls.length;
    calls.push({ ...call, index, repair });
    if (options.latencyMs !== undefined && options.latencyMs > 0) await abortableDelay(options.latencyMs, call.signal);
    let value: unknown;
    if (queue) {
      if (queue.length === 0) {
        throw new DeliberateError({
          code: "INTERNAL",
          message: `The scripted model ran out of answers at call ${index + 1} (it was given ${options.answers?.length ?? 0}).`,
        });
      }
      value = queue.shift();
      if (value instanceof Error) throw value;
    } else if (typeof options.answer === "function") {
      value = await (options.answer as ScriptedResponder)(call, index);
    } else if ("answer" in options) {
      value = options.answer;
    } else {
      throw new DeliberateError({
        code: "INTERNAL",
        message: "The scripted model was given no answer, answers or responder.",
      });
    }
    const text = typeof value === "string" ? value : (JSON.stringify(value) ?? "");
    const usage = estimateUsage(call, text, options.usage);
    progress.start(repair ? 1 : 0);
    progress.delta("answer", text);
    progress.finish(usage.outputTokens);
    return { value, usage, modelId: call.modelId ?? defaultModelId };
  }

  async function generate<T>(call: GenerateOptions<T>): Promise<GenerateResult<T>> {
    const untyped = call as GenerateOptions<unknown>;
    const progress = createProgressTracker(call.onProgress);
    if (!call.schema) {
      const { value, usage, modelId } = await answer(untyped, false, progress);
      const text = typeof value === "string" ? value : (JSON.stringify(value) ?? "");
      return { object: undefined as T, text, usage, finishReason: "stop", modelId };
    }
    const format = describeAnswerFormat({
      schema: call.schema,
      schemaName: call.schemaName,
      schemaDescription: call.schemaDescription,
    });
    return generateWithRepair<T, undefined>({
      schema: call.schema,
      format,
      signal: call.signal,
      ask: async (repair): Promise<AnswerAttempt<undefined>> => {
        const messages: ModelMessage[] = repair
          ? [
              ...call.messages,
              { role: "assistant", content: repair.previous.text },
              { role: "user", content: `${repair.instruction}\nReply with only the JSON object.` },
            ]
          : call.messages;
        const { value, usage, modelId } = await answer({ ...untyped, messages }, repair !== undefined, progress);
        const candidate: JsonCandidate = typeof value === "string" ? extractJson(value) : { ok: true, value };
        const text = typeof value === "string" ? value : (JSON.stringify(value) ?? "");
        return { candidate, text, usage, finishReason: "stop", modelId, turn: undefined };
      },
    });
  }

  return { provider, modelId: defaultModelId, calls, generate };
}

function estimateUsage(call: GenerateOptions<unknown>, answer: string, override: Partial<Usage> | undefined): Usage {
  const prompt = call.system.length + call.messages.reduce((total, message) => total + message.content.length, 0);
  return {
    inputTokens: Math.ceil(prompt / 4),
    outputTokens: Math.ceil(answer.length / 4),
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    ...override,
  };
}
