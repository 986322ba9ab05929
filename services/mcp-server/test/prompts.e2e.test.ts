import { hostModelRouter } from "@deliberate/engine";
import { builtinPresets as dialogPresets } from "@deliberate/dialog";
import { builtinPresets, workflowDefinitions } from "@deliberate/reasoning";
import type { Store } from "@deliberate/store";
import type { Client } from "@modelcontextprotocol/client";
import { InMemoryTransport, ProtocolError } from "@modelcontextprotocol/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServer } from "../src/create-server.ts";
import { createComposedEngine } from "./support/test-engine.ts";
import { testClient } from "./support/test-client.ts";

/** A keyless host following a prompt: the one tool named in backticks, with the JSON block as its arguments. */
function followPrompt(text: string): { name: string; arguments: Record<string, unknown> } {
  const name = /Make exactly one tool call now: `([^`]+)`/.exec(text)?.[1];
  const json = /```json\n([\s\S]*?)\n```/.exec(text)?.[1];
  if (name === undefined || json === undefined) throw new Error(`the prompt names no tool call:\n${text}`);
  return { name, arguments: JSON.parse(json) as Record<string, unknown> };
}

/** Arguments that fill every required argument of a prompt with a plausible value. */
function argumentsFor(
  prompt: { name: string; arguments?: Array<{ name: string; required?: boolean }> },
  sessionId: string,
): Record<string, string> {
  const samples: Record<string, string> = {
    session_id: sessionId,
    preset: builtinPresets[0]?.id ?? "",
    options: "Postgres, SQLite, DynamoDB",
    evidence: "Three outages last month\nThe vendor's status page shows 99.9%",
    workflow: workflowDefinitions[0]?.name ?? "",
  };
  return Object.fromEntries(
    (prompt.arguments ?? [])
      .filter((argument) => argument.required)
      .map((argument) => [argument.name, samples[argument.name] ?? `A ${argument.name} for ${prompt.name}`]),
  );
}

describe("prompts: short entry points that lead a keyless host to one tool call", () => {
  let store: Store;
  let client: Client;

  beforeAll(async () => {
    const composed = await createComposedEngine(hostModelRouter);
    store = composed.store;
    const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
    await createServer({ engine: composed.engine, sessions: composed.engine }).connect(serverSide);
    client = testClient({ name: "prompts", version: "1.0.0" });
    await client.connect(clientSide);
  });
  afterAll(async () => {
    await client?.close();
    await store?.close();
  });

  it("lists the task prompts and one per reasoning and dialog preset, each with described arguments", async () => {
    expect(client.getServerCapabilities()?.prompts).toBeDefined();
    const { prompts } = await client.listPrompts();
    const names = prompts.map((prompt) => prompt.name);
    for (const name of [
      "decide",
      "weigh-evidence",
      "pre-mortem",
      "debug",
      "review-document",
      "guided-workflow",
      "run-preset",
      "review-session",
    ])
      expect(names).toContain(name);
    for (const preset of builtinPresets) expect(names).toContain(`preset-${preset.id}`);
    for (const preset of dialogPresets) expect(names).toContain(`dialog-${preset.name.replaceAll("_", "-")}`);
    for (const prompt of prompts) {
      expect(prompt.description, prompt.name).toBeTruthy();
      for (const argument of prompt.arguments ?? [])
        expect(argument.description, `${prompt.name}.${argument.name}`).toBeTruthy();
    }
  });

  it("every prompt, followed by a scripted host, makes one valid call of the tool it names", {
    timeout: 120_000,
  }, async () => {
    const { prompts } = await client.listPrompts();
    // Computed in code (weights and scores given): a session without a model.
    const decided = await client.callTool({
      name: "reasoning_decision",
      arguments: {
        type: "weighted",
        question: "q",
        options: ["a", "b"],
        criteria: [{ name: "c", weight: 1 }],
        scores: [[1], [2]],
      },
    });
    const sessionId = (decided.structuredContent as { session_id: string }).session_id;
    expect(sessionId).toBeTruthy();
    for (const prompt of prompts) {
      const got = await client.getPrompt({ name: prompt.name, arguments: argumentsFor(prompt, sessionId) });
      const text = ((got.messages[0]?.content ?? {}) as { text: string }).text;
      const call = followPrompt(text);
      const result = await client.callTool(call);
      expect(
        result.isError,
        `${prompt.name} -> ${call.name}: ${JSON.stringify(result.content).slice(0, 300)}`,
      ).toBeFalsy();
    }
  });

  it("decide renders the options and criteria as reasoning_decision's arguments", async () => {
    const got = await client.getPrompt({
      name: "decide",
      arguments: { question: "Which database?", options: "- Postgres\n- SQLite", criteria: "cost, ops effort" },
    });
    const call = followPrompt(((got.messages[0]?.content ?? {}) as { text: string }).text);
    expect(call).toEqual({
      name: "reasoning_decision",
      arguments: {
        type: "weighted",
        question: "Which database?",
        options: ["Postgres", "SQLite"],
        criteria: [{ name: "cost" }, { name: "ops effort" }],
      },
    });
  });

  it("refuses a missing required argument, an unknown one, too few options and an unknown prompt, naming the field", async () => {
    const refusal = async (params: { name: string; arguments?: Record<string, string> }) => {
      const error = await client.getPrompt(params).then(
        () => undefined,
        (failure: unknown) => failure,
      );
      expect(error).toBeInstanceOf(ProtocolError);
      return (error as ProtocolError).message;
    };
    expect(await refusal({ name: "decide", arguments: { options: "a, b" } })).toMatch(/question: required/);
    expect(await refusal({ name: "decide", arguments: { question: "q", options: "a, b", colour: "red" } })).toMatch(
      /colour: not an argument of prompt decide/,
    );
    expect(await refusal({ name: "decide", arguments: { question: "q", options: "only one" } })).toMatch(
      /options: give at least 2/,
    );
    expect(await refusal({ name: "guided-workflow", arguments: { workflow: "nope", input: "x" } })).toMatch(
      /workflow: use one of/,
    );
    expect(
      await refusal({ name: "review-document", arguments: { topic: "t", document: "d", preset: "nope" } }),
    ).toMatch(/preset: use one of/);
    expect(await refusal({ name: "no-such-prompt" })).toMatch(/name: no prompt named 'no-such-prompt'/);
  });

  it("completes prompt arguments from the modules' data, by prefix", async () => {
    const workflows = await client.complete({
      ref: { type: "ref/prompt", name: "guided-workflow" },
      argument: { name: "workflow", value: "" },
    });
    expect(workflows.completion.values).toEqual(workflowDefinitions.map((workflow) => workflow.name));
    const filtered = await client.complete({
      ref: { type: "ref/prompt", name: "review-document" },
      argument: { name: "preset", value: "CO" },
    });
    expect(filtered.completion.values).toEqual(["code_review"]);
    const free = await client.complete({
      ref: { type: "ref/prompt", name: "decide" },
      argument: { name: "question", value: "Wh" },
    });
    expect(free.completion.values).toEqual([]);
    await expect(
      client.complete({ ref: { type: "ref/prompt", name: "decide" }, argument: { name: "colour", value: "" } }),
    ).rejects.toThrow(/has no argument 'colour'/);
    await expect(
      client.complete({ ref: { type: "ref/prompt", name: "nope" }, argument: { name: "x", value: "" } }),
    ).rejects.toThrow(/no prompt named 'nope'/);
  });

  it("completes the session resource templates' session_id with the sessions served, newest first", async () => {
    const first = (
      await client.callTool({
        name: "reasoning_decision",
        arguments: {
          type: "weighted",
          question: "q",
          options: ["a", "b"],
          criteria: [{ name: "c", weight: 1 }],
          scores: [[1], [2]],
        },
      })
    ).structuredContent as { session_id: string };
    const { resourceTemplates } = await client.listResourceTemplates();
    const template = resourceTemplates.find((candidate) =>
      candidate.uriTemplate.startsWith("deliberate://sessions/{session_id}{"),
    );
    expect(template).toBeDefined();
    const all = await client.complete({
      ref: { type: "ref/resource", uri: template?.uriTemplate ?? "" },
      argument: { name: "session_id", value: "" },
    });
    expect(all.completion.values).toContain(first.session_id);
    const prefixed = await client.complete({
      ref: { type: "ref/resource", uri: template?.uriTemplate ?? "" },
      argument: { name: "session_id", value: first.session_id.slice(0, 6) },
    });
    expect(prefixed.completion.values).toContain(first.session_id);
    const viaPrompt = await client.complete({
      ref: { type: "ref/prompt", name: "review-session" },
      argument: { name: "session_id", value: first.session_id.slice(0, 6) },
    });
    expect(viaPrompt.completion.values).toContain(first.session_id);
    const presets = await client.complete({
      ref: { type: "ref/prompt", name: "run-preset" },
      argument: { name: "preset", value: "" },
    });
    expect(presets.completion.values).toEqual(builtinPresets.map((preset) => preset.id));
    const none = await client.complete({
      ref: { type: "ref/resource", uri: template?.uriTemplate ?? "" },
      argument: { name: "session_id", value: "zzzz-no-such" },
    });
    expect(none.completion.values).toEqual([]);
    await expect(
      client.complete({
        ref: { type: "ref/resource", uri: "deliberate://nothing/{x}" },
        argument: { name: "x", value: "" },
      }),
    ).rejects.toThrow(/no resource template/);
  });
});
