/**
 * A prompt a module offers to hosts (MCP `prompts/list`; Claude Code shows them
 * as slash commands): a short, argumented entry point that leads to exactly
 * one tool call. The service renders the call into the prompt's text, so a
 * host without a key, or a model that did not know the tool, makes the right
 * call at once.
 */
export interface ModulePrompt {
  /** Unique among the composed modules' prompts (kebab-case). */
  readonly name: string;
  readonly title: string;
  /** One line: what the prompt is for. */
  readonly description: string;
  /** The tool the prompt leads to; the prompt is offered only while that tool is served. */
  readonly tool: string;
  readonly arguments: readonly ModulePromptArgument[];
  /**
   * The tool call for the given arguments (every required one is present and
   * non-blank when this runs). Throws a DeliberateError INVALID_INPUT naming
   * the argument when a value cannot be used.
   */
  call(args: Readonly<Record<string, string>>): Readonly<Record<string, unknown>>;
  /** What to do with the result (one or two sentences), shown after the call. */
  readonly followUp: string;
}

/** One argument of a module prompt (prompt arguments are strings). */
export interface ModulePromptArgument {
  readonly name: string;
  readonly description: string;
  readonly required: boolean;
  /** Values offered as completions (e.g. preset ids), matched by prefix. */
  readonly values?: readonly string[];
  /** `session_id`: completed with the ids of the sessions the service serves. */
  readonly completes?: "session_id";
}

/** A list argument of a prompt: one item per line, or comma-separated when on one line. */
export function splitPromptList(value: string): string[] {
  const separator = value.includes("\n") ? "\n" : ",";
  return value
    .split(separator)
    .map((item) => item.replace(/^\s*(?:[-*\u2022]|\d+[.)])\s+/, "").trim())
    .filter((item) => item !== "");
}
