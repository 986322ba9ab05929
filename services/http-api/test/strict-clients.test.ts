import { type MCPServer, mcpToFunctionTool } from "@openai/agents-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getJson, postJson, type RunningService, startService } from "./support/service-harness.ts";

// Strict-mode clients over REST: every tool's request body in /openapi.json and
// its input_schema at GET /v1/tools convert to OpenAI strict mode with the
// OpenAI Agents SDK's own conversion (the one it applies to MCP tools, which
// refuses what it cannot convert without changing the accepted values), and
// the null such clients send for an optional field reads as "not given".

type Json = Record<string, unknown>;
const agentsServer = { name: "deliberate-rest" } as unknown as MCPServer;

/** `schema` made self-contained: the components it refers to (transitively) as local `$defs`. */
function selfContained(schema: Json, components: Record<string, Json>): Json {
  const needed = new Map<string, Json>();
  const rewrite = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(rewrite);
    if (node === null || typeof node !== "object") return node;
    const copy: Json = {};
    for (const [key, value] of Object.entries(node)) {
      if (key === "$ref" && typeof value === "string" && value.startsWith("#/components/schemas/")) {
        const name = value.slice("#/components/schemas/".length);
        if (!needed.has(name)) {
          needed.set(name, {});
          needed.set(name, rewrite(components[name]) as Json);
        }
        copy[key] = `#/$defs/${name}`;
      } else copy[key] = rewrite(value);
    }
    return copy;
  };
  const root = rewrite(schema) as Json;
  return needed.size > 0 ? { ...root, $defs: Object.fromEntries(needed) } : root;
}

const strictFailures = (schemas: Array<{ name: string; schema: Json }>) =>
  schemas
    .filter(
      ({ name, schema }) =>
        mcpToFunctionTool(
          { name, inputSchema: schema } as unknown as Parameters<typeof mcpToFunctionTool>[0],
          agentsServer,
          true,
        ).strict !== true,
    )
    .map(({ name }) => name);

/** What a call came to: its status, and for a refusal the error code with the fields it names. */
const outcomeOf = (response: {
  status: number;
  json: { error?: { code: string; issues?: Array<{ field: string }> } };
}) =>
  response.status < 400
    ? { status: response.status }
    : {
        status: response.status,
        code: response.json.error?.code,
        fields: (response.json.error?.issues ?? []).map((issue) => issue.field).sort(),
      };

let running: RunningService;
beforeAll(async () => {
  running = await startService();
});
afterAll(async () => {
  await running.stop();
});

describe("strict-mode clients over REST (OpenAI Agents SDK)", () => {
  it("converts every tool's OpenAPI request body to strict mode, with no fallback", async () => {
    const document = (await getJson(`${running.url}/openapi.json`)).json;
    const components = document.components.schemas as Record<string, Json>;
    const tools = running.service.engine.tools;
    expect(tools.length).toBeGreaterThanOrEqual(27);
    const bodies = tools.map((tool) => ({
      name: tool.name,
      schema: selfContained(
        document.paths[`/v1/tools/${tool.name}`].post.requestBody.content["application/json"].schema,
        components,
      ),
    }));
    expect(strictFailures(bodies)).toEqual([]);
  });

  it("converts every input_schema listed at GET /v1/tools to strict mode, with no fallback", async () => {
    const listed = (await getJson(`${running.url}/v1/tools`)).json as {
      tools: Array<{ name: string; input_schema: Json }>;
    };
    expect(listed.tools.length).toBeGreaterThanOrEqual(27);
    expect(strictFailures(listed.tools.map((tool) => ({ name: tool.name, schema: tool.input_schema })))).toEqual([]);
  });

  it("reads null for every optional field of every tool as not given", async () => {
    const listed = (await getJson(`${running.url}/v1/tools`)).json as {
      tools: Array<{ name: string; input_schema: { properties?: Json; required?: string[] } }>;
    };
    for (const tool of listed.tools) {
      const required = new Set(tool.input_schema.required ?? []);
      const optional = Object.keys(tool.input_schema.properties ?? {}).filter((field) => !required.has(field));
      if (optional.length === 0) continue;
      const absent = await postJson(`${running.url}/v1/tools/${tool.name}`, {});
      const nulled = await postJson(
        `${running.url}/v1/tools/${tool.name}`,
        Object.fromEntries(optional.map((field) => [field, null])),
      );
      expect(outcomeOf(nulled), `${tool.name} with ${optional.join(", ")} null: ${nulled.text.slice(0, 300)}`).toEqual(
        outcomeOf(absent),
      );
    }
  });

  it("runs a tool called the strict way: optional fields null, a record as pairs", async () => {
    const started = await postJson(`${running.url}/v1/tools/startWorkflow`, {
      workflow: "root_cause_analysis",
      inputs: [{ name: "problem", value: "The nightly build got slow" }],
    });
    const viaObject = await postJson(`${running.url}/v1/tools/startWorkflow`, {
      workflow: "root_cause_analysis",
      inputs: { problem: "The nightly build got slow" },
    });
    expect(started.status, started.text).toBe(viaObject.status);
    const listed = await postJson(`${running.url}/v1/tools/reasoning_preset`, {
      operation: "list",
      preset_id: null,
      category: null,
      inputs: null,
      session_id: null,
    });
    expect(listed.status, listed.text).toBe(200);
    expect(listed.json.presets.length).toBeGreaterThan(0);
    const refused = await postJson(`${running.url}/v1/tools/reasoning_checkpoint`, {
      operation: "list",
      session_id: null,
    });
    expect(outcomeOf(refused)).toEqual({ status: 400, code: "INVALID_INPUT", fields: ["session_id"] });
  });
});
