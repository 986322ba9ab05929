import type Anthropic from "@anthropic-ai/sdk";
import type { GenerateProgress } from "./language-model.ts";

type Message = Anthropic.Message;
type StreamEvent = Anthropic.RawMessageStreamEvent;

/** What one stream event added that counts as output: its phase and text. */
export interface StreamDelta {
  phase: GenerateProgress["phase"];
  text: string;
}

/**
 * Builds the Message a streamed Anthropic answer amounts to, from the raw
 * events (`message_start`, `content_block_*`, `message_delta`,
 * `message_stop`). Tool input JSON is accumulated as text and parsed strictly
 * when its block stops: an answer cut off mid-JSON stays invalid (the SDK's
 * stream helper would parse it leniently into a partial object).
 */
export class AnthropicStreamAccumulator {
  #message: Message | undefined;
  /** Raw input JSON of every tool_use block, by block id. */
  readonly toolInputText = new Map<string, string>();
  #buffers = new Map<number, string>();
  #complete = false;

  /** Adds one event; returns the output text it carried, if any. */
  add(event: StreamEvent): StreamDelta | undefined {
    if (event.type === "message_start") {
      this.#message = { ...event.message, content: [...event.message.content], usage: { ...event.message.usage } };
      return undefined;
    }
    const message = this.#message;
    if (!message) return undefined;
    switch (event.type) {
      case "content_block_start": {
        message.content[event.index] = { ...event.content_block } as Anthropic.ContentBlock;
        if (event.content_block.type === "tool_use") this.#buffers.set(event.index, "");
        if (event.content_block.type === "text" && event.content_block.text.length > 0) {
          return { phase: "answer", text: event.content_block.text };
        }
        return undefined;
      }
      case "content_block_delta": {
        const block = message.content[event.index];
        const delta = event.delta;
        if (delta.type === "text_delta" && block?.type === "text") {
          block.text += delta.text;
          return { phase: "answer", text: delta.text };
        }
        if (delta.type === "input_json_delta" && this.#buffers.has(event.index)) {
          this.#buffers.set(event.index, (this.#buffers.get(event.index) ?? "") + delta.partial_json);
          return { phase: "answer", text: delta.partial_json };
        }
        if (delta.type === "thinking_delta" && block?.type === "thinking") {
          block.thinking += delta.thinking;
          return { phase: "thinking", text: delta.thinking };
        }
        if (delta.type === "signature_delta" && block?.type === "thinking") {
          block.signature = delta.signature;
        }
        return undefined;
      }
      case "content_block_stop": {
        const block = message.content[event.index];
        const buffer = this.#buffers.get(event.index);
        if (block?.type === "tool_use" && buffer !== undefined) {
          this.toolInputText.set(block.id, buffer);
          block.input = parseToolInput(buffer);
        }
        return undefined;
      }
      case "message_delta": {
        message.stop_reason = event.delta.stop_reason;
        message.stop_sequence = event.delta.stop_sequence;
        const usage = event.usage;
        message.usage.output_tokens = usage.output_tokens;
        // The other counters are cumulative totals, sent when they apply: overwrite, never add.
        if (usage.input_tokens != null) message.usage.input_tokens = usage.input_tokens;
        if (usage.cache_creation_input_tokens != null)
          message.usage.cache_creation_input_tokens = usage.cache_creation_input_tokens;
        if (usage.cache_read_input_tokens != null)
          message.usage.cache_read_input_tokens = usage.cache_read_input_tokens;
        return undefined;
      }
      case "message_stop":
        this.#complete = true;
        return undefined;
      default:
        return undefined;
    }
  }

  /** True once `message_stop` arrived. */
  get complete(): boolean {
    return this.#complete;
  }

  /** The message so far; tool blocks still open get their input parsed as far as it is valid JSON. */
  get message(): Message | undefined {
    const message = this.#message;
    if (!message) return undefined;
    for (const [index, buffer] of this.#buffers) {
      const block = message.content[index];
      if (block?.type === "tool_use" && !this.toolInputText.has(block.id)) {
        this.toolInputText.set(block.id, buffer);
        block.input = parseToolInput(buffer);
      }
    }
    // Blocks are indexed by the stream; drop holes left by unknown block kinds.
    message.content = message.content.filter((block) => block !== undefined);
    return message;
  }
}

/** The tool input as the API would have given it; `{}` for empty or invalid JSON (the raw text is kept apart). */
function parseToolInput(text: string): unknown {
  if (text.trim().length === 0) return {};
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? value : {};
  } catch {
    return {};
  }
}
