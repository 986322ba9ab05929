import type { ToolDefinition, ToolInput, ToolOutput } from "@deliberate/contracts";
import type { ToolContext } from "./context.ts";

/**
 * How a tool's invocation row names its session and quality when its input and
 * output do not use `session_id` and `quality_score` / `confidence` /
 * `overall_quality` (e.g. the camelCase wire shapes of reasoning/executeTask).
 */
export interface InvocationFields {
  sessionId?(input: Record<string, unknown>, output?: Record<string, unknown>): string | undefined;
  quality?(output: Record<string, unknown>): number | undefined;
}

/** A tool definition paired with the code that does its work; `Extra` is its module's repositories. */
export interface ToolHandler<Definition extends ToolDefinition = ToolDefinition, Extra extends object = object> {
  readonly definition: Definition;
  /** Where the invocation row finds the session and quality, when not in the usual fields. */
  readonly recording?: InvocationFields;
  /** Receives input already validated against the definition's input schema. */
  handle(input: ToolInput<Definition>, context: ToolContext<Extra>): Promise<ToolOutput<Definition>>;
}

/** Pairs a definition with its handler (for tools that use only the shared repositories). */
export function defineHandler<Definition extends ToolDefinition>(
  definition: Definition,
  handle: (input: ToolInput<Definition>, context: ToolContext) => Promise<ToolOutput<Definition>>,
): ToolHandler<Definition> {
  return { definition, handle };
}

/**
 * A `defineHandler` whose handlers see a module's repositories in `context.store`:
 * `export const defineHandler = handlerDefinerFor<ReasoningRepositories>();`
 */
export function handlerDefinerFor<Extra extends object>() {
  return <Definition extends ToolDefinition>(
    definition: Definition,
    handle: (input: ToolInput<Definition>, context: ToolContext<Extra>) => Promise<ToolOutput<Definition>>,
    recording?: InvocationFields,
  ): ToolHandler<Definition, Extra> => ({ definition, handle, ...(recording ? { recording } : {}) });
}
