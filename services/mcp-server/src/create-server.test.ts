import { DeliberateError, defineTool, looseInteger, parseInput, type ToolDefinition } from "@deliberate/contracts";
import type { Engine, InvokeOptions } from "@deliberate/engine";
import type { Client } from "@modelcontextprotocol/client";
import { testClient } from "../test/support/test-client.ts";
import { InMemoryTransport } from "@modelcontextprotocol/server";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createServer } from "./create-server.ts";
import { createLogger } from "./logger.ts";

const countTool = defineTool({
  name: "count_things",
  description: "Counts things, reporting progress.",
  inputSchema: z.object({
    count: looseInteger({ min: 1, max: 5 }).default(2),
    mode: z.enum(["fast", "slow", "fail", "crash", "overflow", "storage", "hang"]).default("fast"),
  }),
  outputSchema: z.object({ counted: z.number().int(), received: z.unknown() }),
  annotations: {
    title: "Count Things",
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  operations: [],
  usesModel: false,
});

interface Call {
  tool: string;
  rawArguments: unknown;
  options: InvokeOptions;
}

/** A small engine over one tool: validates like the real one and records what it was given. */
function createFakeEngine(): Engine & { calls: Call[] } {
  const calls: Call[] = [];
  return {
    calls,
    tools: [countTool as ToolDefinition],
    async invoke(tool, rawArguments, options = {}) {
      calls.push({ tool, rawArguments, options });
      const input = parseInput(countTool.inputSchema, rawArguments ?? {}, tool);
      switch (input.mode) {
        case "fail":
          throw new DeliberateError({
            code: "CONFLICT",
            message: "Branch b1 is completed.",
            issues: [{ field: "branch_id", message: "branch is completed" }],
            hint: "Pick an active branch.",
          });
        case "crash":
          throw new TypeError("cannot read properties of undefined (secret internals)");
        case "overflow":
          // What the engine makes of an unexpected failure: INTERNAL with the raw message inside.
          throw new DeliberateError({
            code: "INTERNAL",
            message: "Internal error: Maximum call stack size exceeded at zod.parse (secret internals)",
          });
        case "storage":
          throw new DeliberateError({
            code: "STORAGE",
            message: "SQLITE_BUSY: database is locked in UPDATE sessions SET (secret internals)",
            retryable: true,
          });
        case "hang":
          return new Promise((_resolve, reject) => {
            options.signal?.addEventListener("abort", () =>
              reject(new DeliberateError({ code: "CANCELLED", message: "cancelled" })),
            );
          });
        case "slow":
          // Steps 1, 2, then a nested restart at 1 (dropped: not increasing), then 3.
          for (const progress of [1, 2, 1, 3]) options.progress?.({ progress, total: 3, message: `step ${progress}` });
          return { counted: input.count, received: rawArguments };
        default:
          return { counted: input.count, received: rawArguments };
      }
    },
  };
}

const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

async function connect(engine: Engine, logger = createLogger({ level: "error", sinks: [() => {}] })): Promise<Client> {
  const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
  await createServer({ engine, logger }).connect(serverSide);
  const client = testClient({ name: "test", version: "1.0.0" });
  await client.connect(clientSide);
  clients.push(client);
  return client;
}

function textOf(result: { content?: unknown }): string {
  const content = result.content as Array<{ type: string; text?: string }>;
  expect(content).toHaveLength(1);
  expect(content[0]?.type).toBe("text");
  return content[0]?.text ?? "";
}

describe("createServer", () => {
  it("registers every engine tool with title, description, JSON Schemas and annotations", async () => {
    const client = await connect(createFakeEngine());
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(1);
    const [tool] = tools;
    expect(tool).toMatchObject({
      name: "count_things",
      title: "Count Things",
      description: "Counts things, reporting progress.",
      annotations: {
        title: "Count Things",
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
      // Closed, and an optional field also takes null ("not given"), as strict-mode clients send it.
      inputSchema: {
        type: "object",
        additionalProperties: false,
        properties: { count: { type: ["integer", "null"], minimum: 1, maximum: 5 } },
      },
      outputSchema: { type: "object", required: ["counted", "received"] },
    });
    // Inputs are published as the caller may send them: fields with defaults are optional.
    expect(tool?.inputSchema.required ?? []).toEqual([]);
  });

  it("returns structuredContent and the same JSON as text, passing raw arguments to the engine", async () => {
    const engine = createFakeEngine();
    const client = await connect(engine);
    const result = await client.callTool({ name: "count_things", arguments: { count: "3" } });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ counted: 3, received: { count: "3" } });
    expect(textOf(result)).toBe(JSON.stringify(result.structuredContent));
    expect(engine.calls[0]?.rawArguments).toEqual({ count: "3" });
  });

  it("lets the engine's validator answer bad arguments, naming the field", async () => {
    const client = await connect(createFakeEngine());
    const result = await client.callTool({ name: "count_things", arguments: { count: "nine", mode: "sideways" } });
    expect(result.isError).toBe(true);
    const body = JSON.parse(textOf(result)) as { code: string; issues: Array<{ field: string }>; hint: string };
    expect(body.code).toBe("INVALID_INPUT");
    expect(body.issues.map((issue) => issue.field).sort()).toEqual(["count", "mode"]);
    expect(body.hint).toContain("Fix the named fields");
  });

  it("maps a DeliberateError to isError with its JSON body", async () => {
    const client = await connect(createFakeEngine());
    const result = await client.callTool({ name: "count_things", arguments: { mode: "fail" } });
    expect(result.isError).toBe(true);
    expect(JSON.parse(textOf(result))).toEqual({
      code: "CONFLICT",
      message: "Branch b1 is completed.",
      issues: [{ field: "branch_id", message: "branch is completed" }],
      hint: "Pick an active branch.",
      retryable: false,
    });
  });

  it("hides the details of an unexpected failure behind INTERNAL", async () => {
    const client = await connect(createFakeEngine());
    const result = await client.callTool({ name: "count_things", arguments: { mode: "crash" } });
    expect(result.isError).toBe(true);
    const text = textOf(result);
    expect(JSON.parse(text)).toMatchObject({ code: "INTERNAL", retryable: false });
    expect(text).not.toContain("secret internals");
  });

  it("answers INTERNAL and STORAGE errors with a stable message and an error id, logging the details under that id", async () => {
    const logs: string[] = [];
    const client = await connect(
      createFakeEngine(),
      createLogger({ level: "error", sinks: [(line) => void logs.push(line)] }),
    );
    for (const [mode, code, retryable] of [
      ["overflow", "INTERNAL", false],
      ["storage", "STORAGE", true],
      ["crash", "INTERNAL", false],
    ] as const) {
      const text = textOf(await client.callTool({ name: "count_things", arguments: { mode } }));
      expect(text).not.toContain("secret internals");
      expect(text).not.toContain("Maximum call stack");
      const body = JSON.parse(text) as { code: string; message: string; error_id: string; retryable: boolean };
      expect(body).toMatchObject({ code, retryable });
      expect(body.error_id).toMatch(/^err_[0-9a-f]{16}$/);
      expect(body.message).toContain(body.error_id);
      const logged = logs
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .find((entry) => entry["error_id"] === body.error_id);
      expect(logged, `a log line for ${mode}`).toBeDefined();
      expect(JSON.stringify(logged)).toContain("secret internals");
    }
  });

  it("answers tools named like Object.prototype members as unknown tools, not disabled ones", async () => {
    const client = await connect(createFakeEngine());
    const unknown = await client.callTool({ name: "no_such_tool", arguments: {} }).then(
      () => undefined,
      (error: unknown) => error as { code?: number; message: string },
    );
    expect(unknown?.message).toContain("no_such_tool not found");
    for (const name of ["constructor", "__proto__", "toString", "hasOwnProperty", "valueOf"]) {
      const error = await client.callTool({ name, arguments: {} }).then(
        () => undefined,
        (caught: unknown) => caught as { code?: number; message: string },
      );
      expect(error?.code, name).toBe(unknown?.code);
      expect(error?.message, name).toContain(`Tool ${name} not found`);
      expect(error?.message, name).not.toContain("disabled");
    }
  });

  it("forwards increasing progress when the request has a progress token, and none without one", async () => {
    const engine = createFakeEngine();
    const client = await connect(engine);
    const updates: unknown[] = [];
    const result = await client.callTool(
      { name: "count_things", arguments: { mode: "slow" } },
      { onprogress: (update) => updates.push(update) },
    );
    expect(result.isError).toBeFalsy();
    expect(updates).toEqual([
      { progress: 1, total: 3, message: "step 1" },
      { progress: 2, total: 3, message: "step 2" },
      { progress: 3, total: 3, message: "step 3" },
    ]);
    await client.callTool({ name: "count_things", arguments: { mode: "fast" } });
    expect(engine.calls[1]?.options.progress).toBeUndefined();
  });

  it("passes the request's abort signal to the engine, so cancelling aborts the call", async () => {
    const engine = createFakeEngine();
    const client = await connect(engine);
    const controller = new AbortController();
    const pending = client.callTool(
      { name: "count_things", arguments: { mode: "hang" } },
      { signal: controller.signal },
    );
    // Wait until the engine holds the call, then cancel it from the client.
    while (engine.calls.length === 0) await new Promise((resolve) => setImmediate(resolve));
    const signal = engine.calls[0]?.options.signal;
    expect(signal?.aborted).toBe(false);
    controller.abort(new Error("user pressed stop"));
    await expect(pending).rejects.toThrow("user pressed stop");
    while (signal?.aborted !== true) await new Promise((resolve) => setImmediate(resolve));
    expect(signal.aborted).toBe(true);
  });
});
