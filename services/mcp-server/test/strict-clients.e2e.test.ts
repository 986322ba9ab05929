import { join } from "node:path";
import { type MCPServer, mcpToFunctionTool } from "@openai/agents-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectToolError, startStdioServer, type StdioServer, temporaryDirectory } from "./support/server-process.ts";

// Strict-mode clients, against the built server over stdio: the OpenAI Agents
// SDK's own conversion of MCP tools (`mcpToFunctionTool` with
// convertSchemasToStrict, the function `MCPServer.listTools` feeds) takes every
// listed tool in strict mode, and the `null` such clients send for a field
// they leave out reads as "not given".

// The conversion reads only the server's name and optional hooks.
const agentsServer = { name: "deliberate" } as unknown as MCPServer;
// The SDK's type wants properties, required and additionalProperties; its conversion fills in the missing ones itself.
type AgentsMcpTool = Parameters<typeof mcpToFunctionTool>[0];

type Listed = Awaited<ReturnType<StdioServer["client"]["listTools"]>>["tools"][number];

/** What a call came to: accepted, or the error code with the fields it names. */
function outcomeOf(result: { isError?: boolean; content?: unknown }): unknown {
  if (result.isError !== true) return { accepted: true };
  const error = expectToolError(result);
  return { code: error.code, fields: (error.issues ?? []).map((issue) => issue.field).sort() };
}

const optionalFieldsOf = (tool: Listed): string[] => {
  const required = new Set(tool.inputSchema.required ?? []);
  return Object.keys(tool.inputSchema.properties ?? {}).filter((field) => !required.has(field));
};

describe("stdio: strict-mode clients (OpenAI Agents SDK)", () => {
  const directory = temporaryDirectory();
  let server: StdioServer;
  let tools: Listed[];

  beforeAll(async () => {
    server = await startStdioServer({ DATABASE_PATH: join(directory.path, "strict.db") });
    tools = (await server.client.listTools()).tools;
  });
  afterAll(async () => {
    await server?.close();
    directory.remove();
  });

  it("converts every listed tool to strict mode, with no fallback", () => {
    expect(tools.length).toBeGreaterThanOrEqual(27);
    const converted = tools.map((tool) => ({
      name: tool.name,
      functionTool: mcpToFunctionTool(tool as AgentsMcpTool, agentsServer, true),
    }));
    expect(converted.filter((entry) => entry.functionTool.strict !== true).map((entry) => entry.name)).toEqual([]);
    for (const { name, functionTool } of converted) {
      expect(functionTool.parameters, name).toMatchObject({ type: "object", additionalProperties: false });
    }
  });

  it("reads null for every optional field of every tool as not given", async () => {
    for (const tool of tools) {
      const fields = optionalFieldsOf(tool);
      if (fields.length === 0) continue;
      const withNulls = Object.fromEntries(fields.map((field) => [field, null]));
      const [absent, nulled] = [
        await server.client.callTool({ name: tool.name, arguments: {} }),
        await server.client.callTool({ name: tool.name, arguments: withNulls }),
      ];
      expect(outcomeOf(nulled), `${tool.name} with ${fields.join(", ")} null`).toEqual(outcomeOf(absent));
    }
  });

  it("takes a strict client's whole call: session_id null and the rest given", async () => {
    const result = await server.client.callTool({ name: "listWorkflows", arguments: {} });
    expect(result.isError).not.toBe(true);
    const nulled = await server.client.callTool({
      name: "reasoning_checkpoint",
      arguments: { operation: "list", session_id: null },
    });
    expect(outcomeOf(nulled)).toMatchObject({ code: "INVALID_INPUT", fields: ["session_id"] });
  });
});
