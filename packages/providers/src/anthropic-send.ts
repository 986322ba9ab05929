import type Anthropic from "@anthropic-ai/sdk";
import { AnthropicStreamAccumulator } from "./anthropic-stream.ts";
import { throwIfAborted } from "./generate-with-repair.ts";
import type { GenerateOptions } from "./language-model.ts";
import { type ProviderErrorContext, type SdkErrorClasses, toProviderError } from "./provider-error.ts";
import {
  createIdleWatchdog,
  linkedAbort,
  longRequestTokens,
  type ProgressTracker,
  shouldStream,
  streamEndedEarlyError,
  streamStalledError,
} from "./streaming.ts";

type MessageCreateParams = Anthropic.MessageCreateParamsNonStreaming;

/** The Anthropic API, used when no base URL is given. */
export const defaultAnthropicBaseURL = "https://api.anthropic.com";

/** A model answer as received: the message, and for a streamed answer the raw JSON text of each tool input. */
export interface AnthropicReceived {
  message: Anthropic.Message;
  /** Streamed answers only: tool input JSON as sent, by tool_use id (validated strictly, not leniently). */
  toolInputText?: ReadonlyMap<string, string>;
}

/** Sends one Messages request, streamed or not, reporting progress; errors come out as provider errors. */
export type AnthropicSend = (
  call: GenerateOptions<unknown>,
  body: MessageCreateParams,
  progress: ProgressTracker,
  attempt: number,
) => Promise<AnthropicReceived>;

/** What the SDK client is made with (the connection part of `AnthropicModelOptions`). */
export interface AnthropicConnectionOptions {
  apiKey: string;
  baseURL?: string | undefined;
  timeoutMs: number;
  maxRetries: number;
}

/** One SDK client (loaded on first use) and the send step over it. */
export function createAnthropicSender(options: AnthropicConnectionOptions): AnthropicSend {
  const baseURL = options.baseURL ?? defaultAnthropicBaseURL;
  // The SDK loads on first use, not at start-up: a server that never calls this provider never pays for it.
  let loaded: Promise<{ client: Anthropic; errorContext: ProviderErrorContext }> | undefined;
  const load = () =>
    (loaded ??= import("@anthropic-ai/sdk").then((sdk) => {
      const errors: SdkErrorClasses = {
        base: sdk.AnthropicError,
        api: sdk.APIError,
        connection: sdk.APIConnectionError,
        timeout: sdk.APIConnectionTimeoutError,
        abort: sdk.APIUserAbortError,
      };
      return {
        client: new sdk.default({
          apiKey: options.apiKey,
          baseURL,
          timeout: options.timeoutMs,
          maxRetries: options.maxRetries,
        }),
        errorContext: { provider: "anthropic", baseURL, secrets: [options.apiKey], errors },
      };
    }));

  async function send(
    call: GenerateOptions<unknown>,
    body: MessageCreateParams,
    progress: ProgressTracker,
    attempt: number,
  ): Promise<AnthropicReceived> {
    throwIfAborted(call.signal);
    progress.start(attempt);
    const { client, errorContext } = await load();
    const timeout = call.timeoutMs ?? options.timeoutMs;
    // Past longRequestTokens the SDK refuses to send without streaming (room for adaptive thinking can get there): stream then.
    if (!shouldStream(call, body.max_tokens) && body.max_tokens <= longRequestTokens) {
      try {
        const message = await client.messages.create(body, {
          ...(call.timeoutMs !== undefined ? { timeout: call.timeoutMs } : {}),
          ...(call.signal ? { signal: call.signal } : {}),
        });
        progress.finish(message.usage.output_tokens ?? 0);
        return { message };
      } catch (error) {
        throw toProviderError(error, errorContext);
      }
    }

    // Streaming: the SDK's timeout covers the wait for the response headers; the watchdog covers silence after them.
    const { controller, release } = linkedAbort(call.signal);
    const watchdog = createIdleWatchdog(timeout, () => controller.abort());
    const accumulator = new AnthropicStreamAccumulator();
    try {
      const stream = await client.messages.create({ ...body, stream: true }, { timeout, signal: controller.signal });
      watchdog.touch();
      for await (const event of stream) {
        watchdog.touch();
        const delta = accumulator.add(event);
        if (delta) progress.delta(delta.phase, delta.text);
      }
    } catch (error) {
      if (watchdog.fired) throw streamStalledError("Anthropic", timeout);
      throwIfAborted(call.signal);
      throw toProviderError(error, errorContext);
    } finally {
      watchdog.stop();
      release();
    }
    // The SDK ends an aborted stream quietly: tell the caller's cancel and the watchdog apart from a cut connection.
    if (watchdog.fired) throw streamStalledError("Anthropic", timeout);
    throwIfAborted(call.signal);
    const message = accumulator.message;
    if (!message || !accumulator.complete) throw streamEndedEarlyError("Anthropic");
    progress.finish(message.usage.output_tokens ?? 0);
    return { message, toolInputText: accumulator.toolInputText };
  }
  return send;
}
