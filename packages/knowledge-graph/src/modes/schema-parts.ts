import { lazySchema, type AvailableTool } from "@deliberate/contracts";
import { z } from "zod";

/**
 * A relation type as the model writes it: asked for in snake_case, but any
 * short text is accepted and normalised in code (`normalizePredicate`: case,
 * spaces and punctuation), so one off-pattern predicate never fails a call.
 */
export const predicateAnswerSchema = lazySchema(() =>
  z
    .string()
    .min(1)
    .max(60)
    .describe("snake_case relation type, e.g. located_in; not_<type> states that the relation does not hold"),
);

/** An entity name: one of `names` when the graph has entities, else any short name. */
export function entityNameSchema(names: readonly string[], description = "An entity name exactly as listed") {
  if (names.length === 0) return z.string().min(1).max(120).describe(description);
  return z.enum(names as [string, ...string[]]).describe(description);
}

/** A fact citing graph entities by name. */
export function tripleAnswerSchema(names: readonly string[]) {
  return z.object({
    subject: entityNameSchema(names),
    predicate: predicateAnswerSchema,
    object: entityNameSchema(names),
  });
}

/** A verbalized confidence. */
export const confidenceAnswerSchema = lazySchema(() =>
  z.number().min(0).max(1).describe("Your confidence, 0 (none) to 1 (certain)"),
);

/** A host tool as modes see it: name, description and the schema of its arguments. */
export interface HostTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

/** The host's tools from the request, as a list. */
export function hostToolsOf(
  availableTools:
    | AvailableTool[]
    | Record<
        string,
        { description?: string | null | undefined; inputSchema?: Record<string, unknown> | null | undefined }
      >
    | null
    | undefined,
): HostTool[] {
  if (availableTools == null) return [];
  const list = Array.isArray(availableTools)
    ? availableTools
    : Object.entries(availableTools).map(([name, tool]) => ({ name, ...tool }));
  return list.map((tool) => ({
    name: tool.name,
    description: tool.description ?? "",
    inputSchema: tool.inputSchema ?? { type: "object", additionalProperties: true },
  }));
}

/** The schema of one tool's arguments, from its JSON Schema. */
export function toolArgumentsSchema(tool: HostTool): z.ZodType<Record<string, unknown>> {
  return z.fromJSONSchema(tool.inputSchema as Parameters<typeof z.fromJSONSchema>[0]) as z.ZodType<
    Record<string, unknown>
  >;
}

/**
 * A tool call the model may propose: one alternative per host tool, its
 * arguments constrained by that tool's own schema, so a schema-constrained
 * model cannot name an unknown tool or send arguments the tool would reject.
 */
export function toolCallAnswerSchemas(tools: readonly HostTool[], extra: Record<string, z.ZodType>) {
  return tools.map((tool) =>
    z.object({
      ...extra,
      toolName: z.literal(tool.name),
      toolArguments: toolArgumentsSchema(tool),
    }),
  );
}

/** Tools listed for a prompt. */
export function describeTools(tools: readonly HostTool[]): string {
  if (tools.length === 0) return "(none)";
  return tools
    .map(
      (tool) =>
        `- ${tool.name}: ${tool.description || "(no description)"}\n  arguments: ${JSON.stringify(tool.inputSchema)}`,
    )
    .join("\n");
}
