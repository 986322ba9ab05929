import type { ToolDefinition, ToolInput, ToolOutput } from "@deliberate/contracts";
import type { ToolContext } from "./context.ts";

/** A tool definition paired with the code that does its work. */
export interface ToolHandler<Definition extends ToolDefinition = ToolDefinition> {
  readonly definition: Definition;
  /** Receives input already validated against the definition's input schema. */
  handle(input: ToolInput<Definition>, context: ToolContext): Promise<ToolOutput<Definition>>;
}

export function defineHandler<Definition extends ToolDefinition>(
  definition: Definition,
  handle: (input: ToolInput<Definition>, context: ToolContext) => Promise<ToolOutput<Definition>>,
): ToolHandler<Definition> {
  return { definition, handle };
}
