/**
 * A value in a step's arguments or a preset's output, resolved when the step runs:
 *
 * - a string is text with `{{reference}}` placeholders, e.g.
 *   `"Review this code:\n{{input.code}}"`; a placeholder renders values as
 *   readable text (see `renderValue`): strings as is, lists one `- item` per
 *   line, records as their fields, ids and timestamps left out (never raw
 *   JSON); a missing value renders as nothing;
 * - `{ $ref: "reference" }` is the referenced value itself (any type); when it
 *   is missing the argument is left out; `pluck: "field"` maps a list of
 *   objects to that field of each;
 * - numbers, booleans, null, lists and objects are literals (resolved inside).
 *
 * A reference is `input.<name>[.path]` (a preset input), `steps.<id>[.path]`
 * (an earlier step's output; the step must be among the dependencies) or
 * `session_id` (the caller's session, else the one the preset's session step
 * started). Paths are dotted; list items are addressed by index (`branches.0.id`).
 */
export type ArgumentTemplate =
  | string
  | number
  | boolean
  | null
  | PresetReference
  | readonly ArgumentTemplate[]
  | { readonly [key: string]: ArgumentTemplate };

/** A reference to a whole value (see {@link ArgumentTemplate}). */
export interface PresetReference {
  readonly $ref: string;
  /** Maps a list of objects to this field of each. */
  readonly pluck?: string;
}

/** One input a preset takes. */
export interface PresetInput {
  readonly name: string;
  readonly description: string;
  /** Required inputs must be given (unless they have a default). */
  readonly required: boolean;
  /** Used when the caller leaves the input out. */
  readonly default?: unknown;
}

/** One step: a call of another tool, with arguments built from the inputs and earlier steps. */
export interface PresetStep {
  readonly id: string;
  /** The tool to call, e.g. `reasoning_divergent`. */
  readonly tool: string;
  readonly description: string;
  /** Steps that must finish first; steps with no unfinished dependency run concurrently. */
  readonly depends_on?: readonly string[];
  readonly arguments: { readonly [key: string]: ArgumentTemplate };
}

/**
 * A workflow as data: a DAG of tool calls. Validated when an engine is
 * created (unknown tool, unknown dependency, cycle, bad reference -> error).
 */
export interface PresetDefinition {
  /** kebab-case, e.g. `code-review`. */
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly category: string;
  readonly inputs: readonly PresetInput[];
  /**
   * The step whose session the others continue when the caller gives no
   * session_id (its output's `session_id`); it must precede every step that
   * uses `session_id`.
   */
  readonly session_step?: string;
  readonly steps: readonly PresetStep[];
  /** The preset's final_output, assembled from the steps' outputs. */
  readonly output: { readonly [key: string]: ArgumentTemplate };
}

/** Keeps a preset's literal types; presets are plain data. */
export function definePreset(preset: PresetDefinition): PresetDefinition {
  return preset;
}
