import type Anthropic from "@anthropic-ai/sdk";
import { describe, expect, it } from "vitest";
import { AnthropicStreamAccumulator } from "./anthropic-stream.ts";

/** The accumulator on hand-written event sequences (the fake server covers the whole wire format). */

const usage = {
  input_tokens: 10,
  output_tokens: 1,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 90,
} as Anthropic.Usage;

function start(): Anthropic.RawMessageStreamEvent {
  return {
    type: "message_start",
    message: {
      id: "msg_1",
      type: "message",
      role: "assistant",
      model: "claude-test",
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage,
    },
  } as unknown as Anthropic.RawMessageStreamEvent;
}

const toolStart = {
  type: "content_block_start",
  index: 0,
  content_block: { type: "tool_use", id: "toolu_1", name: "plan", input: {} },
} as unknown as Anthropic.RawMessageStreamEvent;

const json = (partial: string) =>
  ({
    type: "content_block_delta",
    index: 0,
    delta: { type: "input_json_delta", partial_json: partial },
  }) as Anthropic.RawMessageStreamEvent;

describe("AnthropicStreamAccumulator", () => {
  it("assembles the tool input from its JSON deltas, and the usage from message_start and message_delta", () => {
    const accumulator = new AnthropicStreamAccumulator();
    const deltas = [
      start(),
      toolStart,
      json('{"steps": ['),
      json('"measure", "cut"]}'),
      { type: "content_block_stop", index: 0 },
      {
        type: "message_delta",
        delta: { stop_reason: "tool_use", stop_sequence: null },
        usage: {
          output_tokens: 12,
          input_tokens: null,
          cache_creation_input_tokens: null,
          cache_read_input_tokens: 90,
        },
      },
      { type: "message_stop" },
    ].map((event) => accumulator.add(event as Anthropic.RawMessageStreamEvent));

    expect(deltas.filter((delta) => delta !== undefined)).toEqual([
      { phase: "answer", text: '{"steps": [' },
      { phase: "answer", text: '"measure", "cut"]}' },
    ]);
    expect(accumulator.complete).toBe(true);
    expect(accumulator.message?.content).toEqual([
      { type: "tool_use", id: "toolu_1", name: "plan", input: { steps: ["measure", "cut"] } },
    ]);
    expect(accumulator.message?.usage).toMatchObject({
      input_tokens: 10,
      output_tokens: 12,
      cache_read_input_tokens: 90,
    });
    expect(accumulator.message?.stop_reason).toBe("tool_use");
  });

  it("keeps JSON cut off mid-way as raw text instead of parsing it leniently into a partial object", () => {
    const accumulator = new AnthropicStreamAccumulator();
    for (const event of [start(), toolStart, json('{"steps": ["measure", "cu')]) accumulator.add(event);
    expect(accumulator.complete).toBe(false);
    const message = accumulator.message;
    expect(message?.content).toEqual([{ type: "tool_use", id: "toolu_1", name: "plan", input: {} }]);
    expect(accumulator.toolInputText.get("toolu_1")).toBe('{"steps": ["measure", "cu');
  });

  it("collects thinking with its signature, and text, in block order", () => {
    const accumulator = new AnthropicStreamAccumulator();
    const events = [
      start(),
      { type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "", signature: "" } },
      { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "Hmm." } },
      { type: "content_block_delta", index: 0, delta: { type: "signature_delta", signature: "sig" } },
      { type: "content_block_stop", index: 0 },
      { type: "content_block_start", index: 1, content_block: { type: "text", text: "", citations: null } },
      { type: "content_block_delta", index: 1, delta: { type: "text_delta", text: "Done" } },
      { type: "content_block_stop", index: 1 },
      { type: "message_stop" },
    ];
    const phases = events.map((event) => accumulator.add(event as Anthropic.RawMessageStreamEvent)?.phase);
    expect(phases.filter(Boolean)).toEqual(["thinking", "answer"]);
    expect(accumulator.message?.content).toEqual([
      { type: "thinking", thinking: "Hmm.", signature: "sig" },
      { type: "text", text: "Done", citations: null },
    ]);
  });

  it("ignores events before message_start", () => {
    const accumulator = new AnthropicStreamAccumulator();
    expect(accumulator.add(json("{}"))).toBeUndefined();
    expect(accumulator.message).toBeUndefined();
  });
});
