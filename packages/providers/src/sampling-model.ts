import { DeliberateError } from "@deliberate/base";
import { extractJson } from "./extract-json.ts";
import { generateWithRepair, throwIfAborted } from "./generate-with-repair.ts";
import {
  emptyUsage,
  type GenerateOptions,
  type GenerateResult,
  type LanguageModel,
  type ModelMessage,
} from "./language-model.ts";
import { describeAnswerFormat } from "./structured-answer.ts";

/** The MCP `sampling/createMessage` request, as far as this provider uses it. */
export interface SamplingRequest {
  systemPrompt: string;
  messages: Array<{ role: "user" | "assistant"; content: { type: "text"; text: string } }>;
  maxTokens: number;
  temperature?: number;
  includeContext: "none";
}

/** The parts of a sampling result this provider reads. */
export interface SamplingResponse {
  model?: string;
  stopReason?: string;
  content: { type: string; text?: string } | Array<{ type: string; text?: string }>;
}

export interface SamplingModelOptions {
  /**
   * Sends `sampling/createMessage` to the connected client (e.g. the MCP
   * server's `createMessage`). Kept as a function so this package does not
   * depend on an MCP SDK.
   */
  createMessage: (request: SamplingRequest, options: { signal?: AbortSignal }) => Promise<SamplingResponse>;
}

function textOf(response: SamplingResponse): string {
  const blocks = Array.isArray(response.content) ? response.content : [response.content];
  return blocks
    .filter((block) => block.type === "text" && typeof block.text === "string")
    .map((block) => block.text as string)
    .join("");
}

function toSamplingMessages(messages: readonly ModelMessage[]): SamplingRequest["messages"] {
  return messages.map((message) => ({ role: message.role, content: { type: "text", text: message.content } }));
}

/**
 * A model that asks the connected MCP client's model through sampling. The
 * client owns the model, so no key is needed on the server. Structured answers
 * are requested as JSON in text (sampling has no tool use), validated, with
 * the same single repair round as every provider. Token usage is not reported
 * by sampling and is recorded as zero.
 */
export function createSamplingModel(options: SamplingModelOptions): LanguageModel {
  async function ask(generateOptions: GenerateOptions<unknown>, messages: ModelMessage[], system: string) {
    throwIfAborted(generateOptions.signal);
    let response: SamplingResponse;
    try {
      response = await options.createMessage(
        {
          systemPrompt: system,
          messages: toSamplingMessages(messages),
          maxTokens: generateOptions.maxTokens,
          ...(generateOptions.temperature !== undefined ? { temperature: generateOptions.temperature } : {}),
          includeContext: "none",
        },
        generateOptions.signal ? { signal: generateOptions.signal } : {},
      );
    } catch (error) {
      throwIfAborted(generateOptions.signal);
      throw new DeliberateError({
        code: "PROVIDER_UNAVAILABLE",
        message: `The client's model did not answer the sampling request: ${error instanceof Error ? error.message : String(error)}`,
        hint: "The connected client declined or failed sampling; configure ANTHROPIC_API_KEY / OPENAI_API_KEY, or set DELIBERATE_PROVIDER=host.",
        cause: error,
      });
    }
    return {
      text: textOf(response),
      modelId: response.model ?? "sampling",
      finishReason: response.stopReason === "maxTokens" ? ("length" as const) : ("stop" as const),
    };
  }

  return {
    provider: "sampling",
    modelId: "sampling",
    async generate<T>(generateOptions: GenerateOptions<T>): Promise<GenerateResult<T>> {
      const untyped = generateOptions as GenerateOptions<unknown>;
      if (!generateOptions.schema) {
        const answer = await ask(untyped, generateOptions.messages, generateOptions.system);
        return {
          object: undefined as T,
          text: answer.text,
          usage: emptyUsage,
          finishReason: answer.finishReason,
          modelId: answer.modelId,
        };
      }
      const format = describeAnswerFormat({
        schema: generateOptions.schema,
        schemaName: generateOptions.schemaName,
        schemaDescription: generateOptions.schemaDescription,
      });
      const system = [
        generateOptions.system,
        `Answer with one JSON object only (no prose, no code fence) matching this JSON schema ("${format.name}"):`,
        JSON.stringify(format.jsonSchema),
      ].join("\n\n");
      return generateWithRepair<T, string>({
        schema: generateOptions.schema,
        format,
        signal: generateOptions.signal,
        async ask(repair) {
          const messages: ModelMessage[] = repair
            ? [
                ...generateOptions.messages,
                { role: "assistant", content: repair.previous.turn },
                { role: "user", content: repair.instruction },
              ]
            : generateOptions.messages;
          const answer = await ask(untyped, messages, system);
          return {
            candidate: extractJson(answer.text),
            text: answer.text,
            usage: emptyUsage,
            finishReason: answer.finishReason,
            modelId: answer.modelId,
            turn: answer.text,
          };
        },
      });
    },
  };
}
