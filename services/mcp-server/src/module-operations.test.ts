import { defineModule, operationDefinerFor } from "@deliberate/engine";
import { useTestEngines } from "@deliberate/engine/testing";
import type { Client } from "@modelcontextprotocol/client";
import { InMemoryTransport } from "@modelcontextprotocol/server";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { testClient } from "../test/support/test-client.ts";
import { createServer } from "./create-server.ts";
import { createLogger } from "./logger.ts";

// A module with operations and no tables: a counter kept in the module, read and changed by operations.
const defineOperation = operationDefinerFor<object>();
let counted = 0;
const counterModule = defineModule({
  name: "counter",
  operations: [
    defineOperation({
      name: "read",
      method: "get",
      path: "",
      summary: "The count",
      output: z.object({ count: z.number() }),
      handler: async () => ({ count: counted }),
    }),
    defineOperation({
      name: "digits",
      method: "get",
      path: "/digits",
      summary: "The count's digits",
      output: z.array(z.number()),
      handler: async () => [...String(counted)].map(Number),
    }),
    defineOperation({
      name: "add",
      method: "post",
      path: "/:step_name",
      summary: "Adds to the count",
      input: z.object({ step_name: z.string().min(1), by: z.number().int().min(1) }),
      output: z.object({ count: z.number(), step_name: z.string(), caller: z.string().nullable() }),
      errors: ["CONFLICT"],
      handler: async (input, context) => {
        counted += input.by;
        return { count: counted, step_name: input.step_name, caller: context.caller };
      },
    }),
  ],
});

const engines = useTestEngines({ modules: [counterModule] });
const anyResult = z.record(z.string(), z.unknown());
const clients: Client[] = [];
afterEach(async () => {
  counted = 0;
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

describe("module operations over MCP", () => {
  it("serves each as the custom request <module>/<operation>: the whole input as params, the answer as result", async () => {
    const { engine } = await engines.setup({});
    const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
    await createServer({
      engine,
      logger: createLogger({ level: "error", sinks: [() => {}] }),
      connectionCaller: "stdio:test",
    }).connect(serverSide);
    const client = testClient({ name: "test", version: "1.0.0" });
    await client.connect(clientSide);
    clients.push(client);

    expect(await client.request({ method: "counter/read", params: {} }, anyResult)).toEqual({ count: 0 });
    expect(await client.request({ method: "counter/add", params: { step_name: "first", by: 2 } }, anyResult)).toEqual({
      count: 2,
      step_name: "first",
      caller: "stdio:test",
    });
    expect(await client.request({ method: "counter/read" }, anyResult)).toEqual({ count: 2 });
    // A JSON-RPC result is an object: a list comes as { items }.
    expect(await client.request({ method: "counter/digits" }, anyResult)).toEqual({ items: [2] });

    // Bad params: invalid params (-32602) with the same error body as a tool's, naming each field; nothing changed.
    const failure = await client.request({ method: "counter/add", params: { step_name: "", by: 0 } }, anyResult).then(
      () => undefined,
      (error: unknown) => error as { code: number; data: { code: string; issues: Array<{ field: string }> } },
    );
    expect(failure?.code).toBe(-32602);
    expect(failure?.data.code).toBe("INVALID_INPUT");
    expect(failure?.data.issues.map((issue) => issue.field).sort()).toEqual(["by", "step_name"]);
    expect(await client.request({ method: "counter/read" }, anyResult)).toEqual({ count: 2 });
    // They are requests, not tools: a model choosing tools never sees them.
    expect((await client.listTools()).tools.map((tool) => tool.name)).not.toContain("counter/add");
  });
});
