import type OpenAI from "openai";
import { throwIfAborted } from "./generate-with-repair.ts";
import type { GenerateOptions } from "./language-model.ts";
import {
  type ProviderErrorContext,
  type SdkApiError,
  type SdkErrorClasses,
  toProviderError,
} from "./provider-error.ts";
import {
  createIdleWatchdog,
  linkedAbort,
  type ProgressTracker,
  shouldStream,
  streamEndedEarlyError,
  streamStalledError,
} from "./streaming.ts";

type CreateParams = OpenAI.Chat.ChatCompletionCreateParamsNonStreaming;

/** The OpenAI API, used when no base URL is given. */
export const defaultOpenAIBaseURL = "https://api.openai.com/v1";

/** Sent as the key to servers that need none (Ollama, vLLM, LM Studio): the SDK insists on one. */
const placeholderApiKey = "not-needed";

/** What the SDK client is made with (the connection part of `OpenAIModelOptions`). */
export interface OpenAIConnectionOptions {
  apiKey?: string | undefined;
  baseURL?: string | undefined;
  timeoutMs: number;
  maxRetries: number;
}

/** Sends one chat completion, streamed when asked and the server allows; errors come out as provider errors. */
export type OpenAISend = (
  call: GenerateOptions<unknown>,
  body: CreateParams,
  progress: ProgressTracker,
  attempt: number,
) => Promise<OpenAIAnswer>;

/** One SDK client (loaded on first use) and the send step over it. */
export function createOpenAISender(options: OpenAIConnectionOptions): OpenAISend {
  const baseURL = options.baseURL ?? defaultOpenAIBaseURL;
  // The SDK loads on first use, not at start-up: a server that never calls this provider never pays for it.
  let loaded: Promise<{ client: OpenAI; errorContext: ProviderErrorContext }> | undefined;
  const load = () =>
    (loaded ??= import("openai").then((sdk) => {
      const errors: SdkErrorClasses = {
        base: sdk.OpenAIError,
        api: sdk.APIError,
        connection: sdk.APIConnectionError,
        timeout: sdk.APIConnectionTimeoutError,
        abort: sdk.APIUserAbortError,
      };
      return {
        client: new sdk.default({
          apiKey: options.apiKey ?? placeholderApiKey,
          baseURL,
          timeout: options.timeoutMs,
          maxRetries: options.maxRetries,
        }),
        errorContext: { provider: "openai", baseURL, secrets: [options.apiKey], errors },
      };
    }));

  /** Model ids whose server refused a streamed request: asked without streaming from then on. */
  const refusedStreaming = new Set<string>();
  async function send(
    call: GenerateOptions<unknown>,
    body: CreateParams,
    progress: ProgressTracker,
    attempt: number,
  ): Promise<OpenAIAnswer> {
    throwIfAborted(call.signal);
    progress.start(attempt);
    const { client, errorContext } = await load();
    const maxTokens = body.max_completion_tokens ?? body.max_tokens ?? 0;
    if (shouldStream(call, maxTokens) && !refusedStreaming.has(body.model)) {
      try {
        return await sendStreaming(client, call, body, progress, { baseURL, timeoutMs: options.timeoutMs });
      } catch (error) {
        if (!refusesStreaming(error, errorContext.errors)) throw toProviderError(error, errorContext);
        refusedStreaming.add(body.model);
        progress.start(attempt);
      }
    }
    try {
      const completion = await client.chat.completions.create(body, {
        ...(call.timeoutMs !== undefined ? { timeout: call.timeoutMs } : {}),
        ...(call.signal ? { signal: call.signal } : {}),
      });
      const choice = completion.choices[0];
      const answer: OpenAIAnswer = {
        hasChoice: choice !== undefined,
        content: choice?.message.content ?? "",
        refusal: choice?.message.refusal,
        finishReason: choice?.finish_reason,
        model: completion.model || body.model,
        usage: completion.usage,
      };
      progress.finish(answer.usage?.completion_tokens ?? 0);
      return answer;
    } catch (error) {
      throw toProviderError(error, errorContext);
    }
  }
  return send;
}

/** One answer as received, streamed or not. */
export interface OpenAIAnswer {
  /** False when the server sent no choice at all. */
  hasChoice: boolean;
  content: string;
  refusal: string | null | undefined;
  finishReason: string | null | undefined;
  model: string;
  usage: OpenAI.CompletionUsage | undefined;
}

/**
 * One streamed request: content and refusal accumulated from the chunks,
 * usage from the last chunk (`include_usage`). Failures are thrown as the
 * SDK raised them (the caller converts them), except a stalled stream and
 * the caller's cancel.
 */
async function sendStreaming(
  client: OpenAI,
  call: GenerateOptions<unknown>,
  body: CreateParams,
  progress: ProgressTracker,
  server: { baseURL: string; timeoutMs: number },
): Promise<OpenAIAnswer> {
  const { baseURL } = server;
  const timeout = call.timeoutMs ?? server.timeoutMs;
  const { controller, release } = linkedAbort(call.signal);
  const watchdog = createIdleWatchdog(timeout, () => controller.abort());
  const answer: OpenAIAnswer = {
    hasChoice: false,
    content: "",
    refusal: undefined,
    finishReason: undefined,
    model: body.model,
    usage: undefined,
  };
  let ended = false;
  try {
    const stream = await client.chat.completions.create(
      { ...body, stream: true, stream_options: { include_usage: true } },
      { timeout, signal: controller.signal },
    );
    watchdog.touch();
    for await (const chunk of stream) {
      watchdog.touch();
      if (chunk.model) answer.model = chunk.model;
      if (chunk.usage) answer.usage = chunk.usage;
      const choice = chunk.choices.find((candidate) => candidate.index === 0) ?? chunk.choices[0];
      if (!choice) continue;
      answer.hasChoice = true;
      const content = choice.delta.content ?? "";
      if (content.length > 0) {
        answer.content += content;
        progress.delta("answer", content);
      }
      if (choice.delta.refusal) answer.refusal = (answer.refusal ?? "") + choice.delta.refusal;
      if (choice.finish_reason) {
        answer.finishReason = choice.finish_reason;
        ended = true;
      }
    }
  } catch (error) {
    if (watchdog.fired) throw streamStalledError(`the OpenAI-compatible server at ${baseURL}`, timeout);
    throwIfAborted(call.signal);
    throw error;
  } finally {
    watchdog.stop();
    release();
  }
  // The SDK ends an aborted stream quietly: tell the caller's cancel and the watchdog apart from a cut connection.
  if (watchdog.fired) throw streamStalledError(`the OpenAI-compatible server at ${baseURL}`, timeout);
  throwIfAborted(call.signal);
  if (!ended && answer.hasChoice) throw streamEndedEarlyError(`the OpenAI-compatible server at ${baseURL}`);
  progress.finish(answer.usage?.completion_tokens ?? 0);
  return answer;
}

/**
 * A 400 refusing `stream` (OpenAI: "Your organization must be verified to
 * stream this model"), or `stream_options` on an older compatible server:
 * worth asking again without streaming.
 */
function refusesStreaming(error: unknown, errors: SdkErrorClasses): boolean {
  if (!(error instanceof errors.api)) return false;
  const apiError: SdkApiError = error;
  if (apiError.status !== 400 && apiError.status !== 422) return false;
  const body = apiError.error as
    | { param?: unknown; message?: unknown; error?: { param?: unknown; message?: unknown } }
    | undefined;
  const param = body?.param ?? body?.error?.param;
  if (param === "stream" || param === "stream_options") return true;
  const message = String(body?.message ?? body?.error?.message ?? apiError.message);
  return /\bstream(?:ing|_options)?\b/i.test(message);
}
