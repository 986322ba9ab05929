import type { z } from "zod";

/** MCP tool annotations; kept true to what the handler does. */
export interface ToolAnnotations {
  title: string;
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/**
 * A tool, defined once. MCP, REST and the client derive everything from this
 * record; no surface writes its own schema or switch over names.
 */
export interface ToolDefinition<Input extends z.ZodType = z.ZodType, Output extends z.ZodType = z.ZodType> {
  name: string;
  /** Shown to models; at most 1,024 characters. */
  description: string;
  inputSchema: Input;
  outputSchema: Output;
  annotations: ToolAnnotations;
  /** Operations the tool supports (empty for single-operation tools). */
  operations: readonly string[];
  /** Whether some operation may call a language model. */
  usesModel: boolean;
}

/** Builds a definition, keeping the schema types. */
export function defineTool<Input extends z.ZodType, Output extends z.ZodType>(
  definition: ToolDefinition<Input, Output>,
): ToolDefinition<Input, Output> {
  if (definition.description.length > 1024) {
    throw new Error(
      `Tool ${definition.name}: description is ${definition.description.length} characters; the limit is 1,024`,
    );
  }
  return definition;
}

export type ToolInput<T extends ToolDefinition> = z.output<T["inputSchema"]>;
export type ToolOutput<T extends ToolDefinition> = z.output<T["outputSchema"]>;
