/** One earlier tool call found in the history. */
export interface PastToolCall {
  toolName: string;
  args: unknown;
  /** The result as text, when the entry carries one. */
  result: string | undefined;
}

const toolNameKeys = ["tool_name", "tool", "name", "action"] as const;
const argumentKeys = ["tool_args", "args", "arguments", "input"] as const;
const resultKeys = ["result", "results", "output", "observation", "response", "content"] as const;

function firstString(entry: Record<string, unknown>, keys: readonly string[]): string | undefined {
  for (const key of keys) {
    const value = entry[key];
    if (typeof value === "string" && value.trim() !== "") return value;
  }
  return undefined;
}

function asText(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === "string") return value.trim() === "" ? undefined : value;
  if (Array.isArray(value) && value.length === 0) return undefined;
  if (typeof value === "object" && Object.keys(value).length === 0) return undefined;
  return JSON.stringify(value);
}

/**
 * The tool calls in a history, in order. Entries are free-form (the spec does
 * not fix their shape): objects naming the tool under tool_name / tool / name /
 * action with arguments and a result under the usual keys, or strings that
 * mention one of `knownTools`.
 */
export function pastToolCalls(history: readonly unknown[], knownTools: readonly string[]): PastToolCall[] {
  const calls: PastToolCall[] = [];
  for (const entry of history) {
    if (typeof entry === "string") {
      const toolName = knownTools.find((name) => entry.includes(name));
      if (toolName) calls.push({ toolName, args: undefined, result: entry });
      continue;
    }
    if (typeof entry !== "object" || entry === null || Array.isArray(entry)) continue;
    const record = entry as Record<string, unknown>;
    const toolName = firstString(record, toolNameKeys);
    if (!toolName) continue;
    const argsKey = argumentKeys.find((key) => key in record);
    const resultValue = resultKeys.map((key) => record[key]).find((value) => asText(value) !== undefined);
    calls.push({ toolName, args: argsKey ? record[argsKey] : undefined, result: asText(resultValue) });
  }
  return calls;
}

/** `text` cut to `limit` characters with an ellipsis. */
export function clip(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit)}…`;
}
