import { answerDialogPrompt } from "@deliberate/dialog/testing";
import { dialogModule } from "@deliberate/dialog";
import { createEngine } from "@deliberate/engine";
import { testStorePlace } from "@deliberate/engine/testing";
import { knowledgeGraphModule } from "@deliberate/knowledge-graph";
import { answerFor, scenarioDomainKnowledge, scenarioWeatherTool } from "@deliberate/knowledge-graph/testing";
import { createModelRouter, parseProviderEnvironment } from "@deliberate/providers";
import {
  createFakeModelServer,
  type FakeModelRequest,
  type FakeModelServer,
  type FakeReply,
} from "@deliberate/providers/testing";
import { reasoningModule } from "@deliberate/reasoning";
import { openStore, type Store } from "@deliberate/store";
import type { Client } from "@modelcontextprotocol/client";
import { InMemoryTransport } from "@modelcontextprotocol/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createServer } from "../src/create-server.ts";
import { createLogger } from "../src/logger.ts";
import { callEveryTool } from "./support/every-tool-call.ts";
import { scriptedAnswers } from "./support/fake-answers.ts";
import { testClient } from "./support/test-client.ts";
import { respondAnalysis, respondStateful } from "./support/tool-answers.ts";

// Done means: every request the server makes is one the real API accepts, and
// asks for constrained output. With each provider and each configured model
// (the default, the current generation and the one before it), the server runs every tool
// and operation, every preset, dialog exchanges and every knowledge-graph
// reasoning type through the real SDKs against the loopback fake model
// server, which refuses what the Anthropic and OpenAI APIs refuse (adaptive-
// only models given budgets, forced tools while thinking, sampling
// parameters, max_tokens on reasoning models, schemas outside the strict
// subsets, composition at a tool schema's root, ...). /agent_intent has the
// same loop in services/http-api/test/agent-intent.test.ts.

const configurations = [
  // The built-in default, then the models the issue names.
  { wire: "anthropic", model: "claude-sonnet-5" },
  { wire: "anthropic", model: "claude-opus-4-8" },
  { wire: "anthropic", model: "claude-sonnet-4-5" },
  { wire: "openai", model: "gpt-5-mini" },
  { wire: "openai", model: "gpt-4.1-mini" },
] as const;

/** Answers any structured request by its schema name, as the scripted conformance loop does. */
function answer(request: FakeModelRequest): FakeReply {
  const name = request.schemaName ?? "";
  if (scriptedAnswers[name]) return { object: scriptedAnswers[name](request) };
  if (name.startsWith("dialog_"))
    return {
      object: answerDialogPrompt(
        { schemaName: name, system: request.system, user: request.prompt, jsonSchema: request.jsonSchema ?? {} },
        {},
      ),
    };
  if (name.startsWith("knowledge_graph_")) return { object: answerFor(name, request.prompt) };
  for (const respond of [respondStateful, respondAnalysis]) {
    const reply = respond(request) as { object?: unknown; status?: number };
    if (reply.status === undefined && reply.object !== undefined) return { object: reply.object };
  }
  return { status: 500, message: `no scripted answer for ${name}` };
}

const anyResult = z.record(z.string(), z.unknown());

/** Values for a preset's required inputs, by name. */
function presetInputs(required: readonly string[]): Record<string, unknown> {
  const values: Record<string, unknown> = {
    options: ["monolith", "services"],
    code: "function add(a, b) { return a - b; }",
  };
  return Object.fromEntries(
    required.map((name) => [
      name,
      values[name] ?? `The ${name} of a team moving its billing system to a new database.`,
    ]),
  );
}

describe.each(configurations)("real-API requests: $wire with $model", ({ wire, model }) => {
  const logger = createLogger({ level: "error", sinks: [() => {}] });
  let fake: FakeModelServer;
  let store: Store;
  let client: Client;
  const failures: string[] = [];

  beforeAll(async () => {
    fake = await createFakeModelServer({ respond: answer });
    const settings = parseProviderEnvironment({
      ...fake.environment(wire),
      [wire === "anthropic" ? "ANTHROPIC_MODEL" : "OPENAI_MODEL"]: model,
      MAX_RETRIES: "0",
    });
    const modules = [reasoningModule, dialogModule, knowledgeGraphModule];
    store = await openStore({ ...(await testStorePlace()), modules });
    const engine = createEngine({ store, modules, models: createModelRouter(settings) });
    const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
    await createServer({ engine, logger, sessions: engine }).connect(serverSide);
    client = testClient({ name: "real-api-requests", version: "1.0.0" });
    await client.connect(clientSide);
  });
  afterAll(async () => {
    await client?.close();
    await store?.close();
    await fake?.close();
  });

  async function call(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
    const result = await client.callTool({ name, arguments: args });
    if (result.isError)
      failures.push(
        `${name} ${JSON.stringify(args).slice(0, 80)}: ${(result.content as Array<{ text?: string }>)[0]?.text ?? ""}`,
      );
    return (result.structuredContent ?? {}) as Record<string, unknown>;
  }

  it("every tool, operation, preset, dialog exchange and knowledge-graph reasoning type: no refusal, constrained output throughout", {
    timeout: 120_000,
  }, async () => {
    await callEveryTool(call);

    const listed = await call("reasoning_preset", { operation: "list" });
    const presets = listed["presets"] as Array<{ id: string; required_inputs: string[] }>;
    expect(presets.length).toBeGreaterThanOrEqual(5);
    for (const preset of presets)
      await call("reasoning_preset", {
        operation: "run",
        preset_id: preset.id,
        inputs: presetInputs(preset.required_inputs),
      });

    const knowledge = { domainKnowledge: scenarioDomainKnowledge };
    const tasks = [
      ...["deductive", "inductive", "abductive"].map((reasoningType) => ({
        reasoningType,
        goalQuery: "Is Alice an ancestor of Dave?",
        contextData: knowledge,
      })),
      {
        reasoningType: "planAndExecuteCoT",
        goalQuery: "Should the family picnic in Paris go ahead on Saturday?",
        contextData: { availableTools: [scenarioWeatherTool] },
      },
    ];
    for (const [index, task] of tasks.entries()) {
      await client
        .request({ method: "reasoning/executeTask", params: { taskId: `task-${index}`, ...task } }, anyResult)
        .catch((error: unknown) => failures.push(`${task.reasoningType}: ${String(error)}`));
    }
    expect(failures).toEqual([]);

    const refused = fake.requests
      .filter((request) => request.refused !== undefined)
      .map((request) => `${request.schemaName}: ${request.refused}`);
    expect(refused).toEqual([]);
    const unconstrained = fake.requests
      .filter((request) => !request.strict)
      .map((request) => `${request.schemaName ?? "(plain text)"} (${request.structured})`);
    expect(unconstrained).toEqual([]);
    // Every mode family was asked: reasoning, presets (their steps), dialog and the knowledge graph.
    const names = new Set(fake.requests.map((request) => request.schemaName));
    for (const expected of [
      "linear_continuation",
      "mcts_expand",
      "knowledge_graph_extraction",
      "knowledge_graph_hypotheses",
    ])
      expect(names).toContain(expected);
    expect([...names].some((name) => name?.startsWith("dialog_"))).toBe(true);
  });
});
