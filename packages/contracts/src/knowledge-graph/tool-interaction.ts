import { z } from "zod";
import { endlessRefs, schemaExpansion, unsafePatterns } from "../json-schema-patterns.ts";
import { knowledgeGraphRequestLimits as limits } from "./vocabulary.ts";
import { jsonObjectInput, publishAs } from "../published-form.ts";
import { lazySchema } from "../lazy-schema.ts";

const toolNamePattern = /^[A-Za-z0-9_][A-Za-z0-9_.:/-]{0,127}$/;

/** Checks that a tool's input schema is a JSON Schema the server can validate arguments against. */
function checkJsonSchema(
  schema: Record<string, unknown> | undefined,
  context: z.RefinementCtx,
  path: Array<string | number>,
): void {
  if (schema === undefined) return;
  const unsafe = [...unsafePatterns(schema), ...endlessRefs(schema)];
  if (unsafe.length === 0) unsafe.push(...schemaExpansion(schema));
  for (const issue of unsafe)
    context.addIssue({ code: "custom", path: [...path, ...issue.path], message: issue.message });
  if (unsafe.length > 0) return;
  try {
    z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
  } catch (error) {
    context.addIssue({ code: "custom", path, message: `not a usable JSON Schema: ${(error as Error).message}` });
  }
  if (schema["type"] !== undefined && schema["type"] !== "object") {
    context.addIssue({
      code: "custom",
      path: [...path, "type"],
      message: "a tool's input schema describes an object; use type 'object'",
    });
  }
}

const toolDescriptionFields = {
  description: z.string().max(2_000, "keep a tool description under 2,000 characters").nullish(),
  inputSchema: jsonObjectInput("inputSchema").nullish().describe("JSON Schema of its arguments"),
};

/** A host tool the server may ask the host to call, as an MCP tool listing describes it. */
export const availableToolSchema = lazySchema(() =>
  z.strictObject({
    name: z.string().regex(toolNamePattern, "a tool name is 1-128 letters, digits, '_', '.', ':', '/' or '-'"),
    ...toolDescriptionFields,
  }),
);
export type AvailableTool = z.infer<typeof availableToolSchema>;

/**
 * The host's tools: a list of `{ name, description, inputSchema }` (as MCP
 * lists tools) or an object keyed by tool name (accepted, not published).
 * `inputSchema` is an object or its JSON text.
 */
const availableToolListSchema = lazySchema(() =>
  z.array(availableToolSchema).max(limits.availableTools, `list at most ${limits.availableTools} tools`),
);

// Published as the list only (strict clients cannot send an object keyed by open names); the keyed object stays accepted.
export const availableToolsSchema = lazySchema(() =>
  publishAs(
    z
      .union([
        availableToolListSchema,
        z.record(
          z.string().regex(toolNamePattern, "a tool name is 1-128 letters, digits, '_', '.', ':', '/' or '-'"),
          z.strictObject(toolDescriptionFields),
        ),
      ])
      .superRefine((tools, context) => {
        if (Array.isArray(tools)) {
          const seen = new Set<string>();
          tools.forEach((tool, index) => {
            if (seen.has(tool.name))
              context.addIssue({
                code: "custom",
                path: [index, "name"],
                message: `'${tool.name}' is listed twice; list each tool once`,
              });
            seen.add(tool.name);
            checkJsonSchema(tool.inputSchema ?? undefined, context, [index, "inputSchema"]);
          });
          return;
        }
        const names = Object.keys(tools);
        if (names.length > limits.availableTools)
          context.addIssue({ code: "custom", path: [], message: `list at most ${limits.availableTools} tools` });
        for (const name of names)
          checkJsonSchema(tools[name]?.inputSchema ?? undefined, context, [name, "inputSchema"]);
      }),
    availableToolListSchema,
  ),
);

/** What the server asks the host to run (status `pending_tool_call`). */
export const toolCallRequestSchema = lazySchema(() =>
  z.object({
    toolName: z.string().describe("A tool from contextData.availableTools"),
    toolArguments: z.record(z.string(), z.unknown()).describe("Validated against the tool's inputSchema"),
    toolCallId: z.string().describe("Echo it in toolResults[].toolCallId"),
  }),
);
export type ToolCallRequest = z.infer<typeof toolCallRequestSchema>;

/** The host's answer to a toolCallRequest, sent in its next call for the session. */
export const toolResultSchema = lazySchema(() =>
  z
    .strictObject({
      toolCallId: z.string().min(1, "toolCallId must not be empty").describe("The toolCallId of the toolCallRequest"),
      result: z.unknown().describe("What the tool returned (any JSON)"),
      isError: z.boolean().nullish().describe("True if the tool failed"),
    })
    .superRefine((value, context) => {
      if (value.result === undefined)
        context.addIssue({
          code: "custom",
          path: ["result"],
          message: "result is required: send what the tool returned",
        });
    }),
);
export type ToolResult = z.infer<typeof toolResultSchema>;
