import { expandNeedsCompletion, needsCompletionSchema } from "@deliberate/contracts";
import { answerDialogPrompt } from "@deliberate/dialog/testing";
import { hostModelRouter } from "@deliberate/engine";
import { createModelRouterFromModel, type GenerateOptions } from "@deliberate/providers";
import { createScriptedModel, type FakeModelRequest } from "@deliberate/providers/testing";
import type { Store } from "@deliberate/store";
import type { Client } from "@modelcontextprotocol/client";
import { testClient } from "./support/test-client.ts";
import { InMemoryTransport, type Tool } from "@modelcontextprotocol/server";
import { Ajv } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createServer } from "../src/create-server.ts";
import { createLogger } from "../src/logger.ts";
import { scriptedAnswers } from "./support/fake-answers.ts";
import { createComposedEngine } from "./support/test-engine.ts";
import { respondAnalysis, respondStateful } from "./support/tool-answers.ts";
import { callEveryTool } from "./support/every-tool-call.ts";

// One conformance loop over every tool and every operation, answered directly
// by a server-side (scripted) model: each result's structuredContent must pass
// the official SDK client's own output validation (which is what every host
// built on the SDK runs), a strict JSON Schema 2020-12 validator (ajv 2020),
// and a draft-07 validator (ajv's default, as SDK 1.x hosts use: a schema
// without `$schema` is read as draft-07 there) against the published schema. The loop checks its own coverage:
// a tool or operation the engine publishes but the loop does not call fails it.

/** The scripted model: the shared scripted answers, by the schema name each mode sends. */
function answer(options: GenerateOptions<unknown>, index: number): unknown {
  const prompt = options.messages.filter((message) => message.role === "user").at(-1)?.content ?? "";
  const jsonSchema = options.schema
    ? (z.toJSONSchema(options.schema as z.ZodType, { unrepresentable: "any" }) as Record<string, unknown>)
    : undefined;
  const request = {
    schemaName: options.schemaName,
    prompt: typeof prompt === "string" ? prompt : JSON.stringify(prompt),
    system: options.system,
    index,
    jsonSchema,
  } as FakeModelRequest;
  const name = options.schemaName ?? "";
  if (scriptedAnswers[name]) return scriptedAnswers[name](request);
  if (name.startsWith("dialog_"))
    return answerDialogPrompt(
      { schemaName: name, system: options.system, user: request.prompt, jsonSchema: jsonSchema ?? {} },
      {},
    );
  for (const respond of [respondStateful, respondAnalysis]) {
    const reply = respond(request) as { object?: unknown; status?: number };
    if (reply.status === undefined && reply.object !== undefined) return reply.object;
  }
  throw new Error(`no scripted answer for mode ${name}`);
}

/** Keywords JSON Schema drafts read differently (2019-09/2020-12 only, or changed meaning): a published schema must use none. */
const draftSensitiveKeywords = [
  "prefixItems",
  "unevaluatedItems",
  "unevaluatedProperties",
  "dependentRequired",
  "dependentSchemas",
  "$dynamicRef",
  "$dynamicAnchor",
  "$recursiveRef",
  "additionalItems",
];

function draftSensitivePaths(schema: unknown, path = "#"): string[] {
  if (Array.isArray(schema)) return schema.flatMap((item, index) => draftSensitivePaths(item, `${path}/${index}`));
  if (schema === null || typeof schema !== "object") return [];
  const found: string[] = [];
  for (const [key, value] of Object.entries(schema)) {
    if (draftSensitiveKeywords.includes(key)) found.push(`${path}/${key}`);
    // `items` as an array (draft-07 tuple) or a boolean (2020-12 "no more items") changes meaning between drafts.
    if (key === "items" && (Array.isArray(value) || typeof value === "boolean")) found.push(`${path}/items`);
    if (key !== "properties" || (value !== null && typeof value === "object"))
      found.push(...draftSensitivePaths(value, `${path}/${key}`));
  }
  return found;
}

type Structured = Record<string, unknown>;

describe("conformance: every tool and operation, answered directly, valid for the SDK client and for a strict 2020-12 validator", () => {
  const logger = createLogger({ level: "error", sinks: [() => {}] });
  const ajv = new Ajv2020({ strict: true, allErrors: true, validateFormats: false });
  const draft07 = new Ajv({ strict: false, allErrors: true, validateFormats: false });
  const validators = new Map<string, Array<ReturnType<typeof ajv.compile>>>();
  const covered = new Set<string>();
  let store: Store;
  let client: Client;
  let tools: Tool[];

  beforeAll(async () => {
    const composed = await createComposedEngine(createModelRouterFromModel(createScriptedModel(answer)));
    store = composed.store;
    const engine = composed.engine;
    const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
    await createServer({ engine, logger, sessions: engine }).connect(serverSide);
    client = testClient({ name: "conformance", version: "1.0.0" });
    await client.connect(clientSide);
    tools = (await client.listTools()).tools;
  });
  afterAll(async () => {
    await client?.close();
    await store?.close();
  });

  /** Calls through the SDK client (which validates structuredContent against the published outputSchema), then checks with ajv 2020. */
  async function call(name: string, args: Structured): Promise<Structured> {
    const result = await client.callTool({ name, arguments: args });
    const text = (result.content as Array<{ text?: string }>)[0]?.text ?? "";
    expect(result.isError, `${name} ${JSON.stringify(args).slice(0, 120)}: ${text}`).toBeFalsy();
    let checks = validators.get(name);
    if (!checks) {
      const schema = tools.find((tool) => tool.name === name)?.outputSchema;
      expect(schema, `${name} publishes an output schema`).toBeDefined();
      checks = [ajv.compile(schema as object), draft07.compile(schema as object)];
      validators.set(name, checks);
    }
    for (const [index, validate] of checks.entries()) {
      expect(
        validate(result.structuredContent),
        `${name} (${index === 0 ? "2020-12" : "draft-07"}): ${ajv.errorsText(validate.errors)}`,
      ).toBe(true);
    }
    const operation = args["operation"] ?? args["type"] ?? args["query"];
    covered.add(`${name}${typeof operation === "string" ? `:${operation}` : ""}`);
    return result.structuredContent as Structured;
  }

  it("publishes no schema keyword that draft-07 and 2020-12 validators read differently", () => {
    const found = tools.flatMap((tool) => [
      ...draftSensitivePaths(tool.inputSchema).map((path) => `${tool.name} input ${path}`),
      ...draftSensitivePaths(tool.outputSchema).map((path) => `${tool.name} output ${path}`),
    ]);
    expect(found).toEqual([]);
    // Hosts hand input schemas to model APIs as tool definitions: an object root with no anyOf/oneOf/allOf there (the Messages API refuses those).
    expect(
      tools
        .filter(
          (tool) =>
            tool.inputSchema.type !== "object" ||
            ["anyOf", "oneOf", "allOf"].some((keyword) => keyword in tool.inputSchema),
        )
        .map((tool) => tool.name),
    ).toEqual([]);
    // Every published schema compiles under strict 2020-12 rules.
    for (const tool of tools) {
      expect(() => ajv.compile(tool.inputSchema), `${tool.name} input`).not.toThrow();
      expect(() => ajv.compile(tool.outputSchema as object), `${tool.name} output`).not.toThrow();
    }
  });

  it("publishes the defaults of fields that also accept strings", () => {
    const property = (tool: string, field: string) =>
      (tools.find((candidate) => candidate.name === tool)?.inputSchema.properties?.[field] ?? {}) as {
        default?: unknown;
      };
    expect(property("reasoning_tree", "num_branches").default).toBe(3);
    expect(property("reasoning_mcts", "iterations").default).toBe(10);
    expect(property("reasoning_mcts", "exploration_constant").default).toBe(Math.SQRT2);
    expect(property("reasoning_mcts", "quality_threshold").default).toBe(0.5);
    expect(property("reasoning_graph", "k").default).toBeDefined();
    expect(property("reasoning_detect", "check_formal").default).toBeDefined();
    expect(property("reasoning_metrics", "limit").default).toBeDefined();
  });

  it("runs every tool and operation with a valid result", { timeout: 120_000 }, async () => {
    await callEveryTool(call);
  });

  it("validates host-executed steps and reasoning_submit the same way", { timeout: 120_000 }, async () => {
    const { engine, store: hostStore } = await createComposedEngine(hostModelRouter);
    const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
    await createServer({ engine, logger }).connect(serverSide);
    const hostClient = testClient({ name: "conformance-host", version: "1.0.0" });
    await hostClient.connect(clientSide);
    try {
      const hostTools = (await hostClient.listTools()).tools;
      const validate = (name: string, value: unknown) => {
        for (const validator of [ajv, draft07]) {
          const check = validator.compile(hostTools.find((tool) => tool.name === name)?.outputSchema as object);
          expect(check(value), `${name}: ${ajv.errorsText(check.errors)}`).toBe(true);
        }
      };
      const first = await hostClient.callTool({
        name: "reasoning_timeline",
        arguments: { operation: "create", content: "Kickoff." },
      });
      const step = needsCompletionSchema.safeParse(first.structuredContent);
      // create asks no model: a direct result; branch asks one, so it suspends.
      expect(step.success).toBe(false);
      validate("reasoning_timeline", first.structuredContent);
      const suspended = await hostClient.callTool({
        name: "reasoning_timeline",
        arguments: { operation: "branch", timeline_id: (first.structuredContent as Structured)["timeline_id"] },
      });
      validate("reasoning_timeline", suspended.structuredContent);
      const pending = needsCompletionSchema.parse(suspended.structuredContent);
      const answers = expandNeedsCompletion(pending).map((prompt) => ({
        prompt_id: prompt.id,
        answer: answer(
          {
            system: prompt.system,
            messages: [{ role: "user", content: prompt.user }],
            schemaName: prompt.name,
            maxTokens: 100,
          },
          0,
        ),
      }));
      const resumed = await hostClient.callTool({
        name: "reasoning_submit",
        arguments: { resume_token: pending.resume_token, answers },
      });
      expect(resumed.isError, JSON.stringify(resumed.content)).toBeFalsy();
      validate("reasoning_submit", resumed.structuredContent);
      covered.add("reasoning_submit");
    } finally {
      await hostClient.close();
      await hostStore.close();
    }
  });

  it("covered every tool and every operation the server publishes", async () => {
    const expected = new Set<string>();
    const { allToolDefinitions } = await import("@deliberate/contracts");
    for (const tool of tools) {
      const operations = allToolDefinitions.find((definition) => definition.name === tool.name)?.operations ?? [];
      if (operations.length === 0) expected.add(tool.name);
      for (const operation of operations) expected.add(`${tool.name}:${operation}`);
    }
    expect([...expected].filter((entry) => !covered.has(entry))).toEqual([]);
  });
});
