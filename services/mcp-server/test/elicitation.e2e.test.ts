import { executeTaskResponseSchema } from "@deliberate/contracts";
import { createEngine, type DeliberateEngine } from "@deliberate/engine";
import { testStorePlace } from "@deliberate/engine/testing";
import { createKnowledgeGraphModule } from "@deliberate/knowledge-graph";
import { answerFor, scenarioWeatherTool } from "@deliberate/knowledge-graph/testing";
import { createModelRouterFromModel, type GenerateOptions } from "@deliberate/providers";
import { createScriptedModel } from "@deliberate/providers/testing";
import { openStore, type Store } from "@deliberate/store";
import { InMemoryTransport } from "@modelcontextprotocol/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createServer } from "../src/create-server.ts";
import { testClient } from "./support/test-client.ts";

const planned = {
  reasoningType: "planAndExecuteCoT",
  goalQuery: "Should the family picnic in Paris go ahead on Saturday?",
  contextData: { availableTools: [scenarioWeatherTool] },
};

function answer(options: GenerateOptions<unknown>): unknown {
  const prompt = options.messages.filter((message) => message.role === "user").at(-1)?.content ?? "";
  return answerFor(options.schemaName ?? "", typeof prompt === "string" ? prompt : JSON.stringify(prompt));
}

describe("elicitation: a knowledge-graph question goes to the user directly when the client can ask", () => {
  let store: Store;
  let engine: DeliberateEngine;

  beforeAll(async () => {
    const modules = [createKnowledgeGraphModule({})];
    store = await openStore({ ...(await testStorePlace()), modules });
    engine = createEngine({ store, modules, models: createModelRouterFromModel(createScriptedModel(answer)) });
  });
  afterAll(async () => {
    await store?.close();
  });

  async function connect(options: {
    elicitation: boolean;
    reply?: (message: string) => { action: "accept" | "decline" | "cancel"; content?: Record<string, string> };
  }) {
    const asked: string[] = [];
    const client = testClient(
      { name: "elicit", version: "1.0.0" },
      { capabilities: options.elicitation ? { elicitation: { form: {} } } : {} },
    );
    if (options.elicitation) {
      client.setRequestHandler("elicitation/create", (request) => {
        asked.push(request.params.message);
        return options.reply?.(request.params.message) ?? { action: "cancel" as const };
      });
    }
    const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
    await createServer({ engine }).connect(serverSide);
    await client.connect(clientSide);
    /** Runs the plan to its user question: the weather tool round trip first. */
    const toQuestion = async (
      method: (params: Record<string, unknown>) => Promise<Record<string, unknown>>,
      prefix: string,
    ) => {
      const first = executeTaskResponseSchema.parse(await method({ taskId: `${prefix}-1`, ...planned }));
      expect(first.status).toBe("pending_tool_call");
      return executeTaskResponseSchema.parse(
        await method({
          taskId: `${prefix}-2`,
          ...planned,
          sessionState: first.updatedSessionState,
          toolResults: [{ toolCallId: first.toolCallRequest?.toolCallId, result: { forecast: "rain" } }],
        }),
      );
    };
    const viaTool = async (params: Record<string, unknown>) =>
      (await client.callTool({ name: "reasoning_execute_task", arguments: params })).structuredContent as Record<
        string,
        unknown
      >;
    const viaMethod = (params: Record<string, unknown>) =>
      client.request({ method: "reasoning/executeTask", params }, z.record(z.string(), z.unknown()));
    return { client, asked, toQuestion, viaTool, viaMethod };
  }

  it("asks the user through elicitation and completes the task in the same call (tool and method)", {
    timeout: 60_000,
  }, async () => {
    const { client, asked, toQuestion, viaTool, viaMethod } = await connect({
      elicitation: true,
      reply: () => ({ action: "accept", content: { answer: "Yes, everyone has one." } }),
    });
    const done = await toQuestion(viaTool, "tool");
    expect(asked).toEqual(["Does the group have umbrellas?"]);
    expect(done.status).toBe("completed");
    expect(done.result?.plan?.steps.map((step) => step.status)).toEqual(["done", "done", "done"]);
    const viaProtocol = await toQuestion(viaMethod, "method");
    expect(viaProtocol.status).toBe("completed");
    expect(asked).toHaveLength(2);
    await client.close();
  });

  it("returns pending_user_input as before when the user declines", { timeout: 60_000 }, async () => {
    const { client, asked, toQuestion, viaTool } = await connect({
      elicitation: true,
      reply: () => ({ action: "decline" }),
    });
    const pending = await toQuestion(viaTool, "declined");
    expect(asked).toEqual(["Does the group have umbrellas?"]);
    expect(pending.status).toBe("pending_user_input");
    expect(pending.userInputRequest).toBe("Does the group have umbrellas?");
    await client.close();
  });

  it("returns pending_user_input when the user's answer is one the task refuses (too long)", {
    timeout: 60_000,
  }, async () => {
    const { client, toQuestion, viaTool } = await connect({
      elicitation: true,
      reply: () => ({ action: "accept", content: { answer: "x".repeat(20_001) } }),
    });
    const pending = await toQuestion(viaTool, "too-long");
    expect(pending.status).toBe("pending_user_input");
    expect(pending.userInputRequest).toBe("Does the group have umbrellas?");
    await client.close();
  });

  it("keeps today's round trip when the client does not declare elicitation", { timeout: 60_000 }, async () => {
    const { client, toQuestion, viaTool } = await connect({ elicitation: false });
    const pending = await toQuestion(viaTool, "plain");
    expect(pending.status).toBe("pending_user_input");
    const done = executeTaskResponseSchema.parse(
      await viaTool({
        taskId: "plain-3",
        ...planned,
        reasoningSessionId: pending.reasoningSessionId,
        userInput: "Yes, everyone has one.",
      }),
    );
    expect(done.status).toBe("completed");
    await client.close();
  });
});
