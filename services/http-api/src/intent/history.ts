/** One earlier tool call found in the history. */
export interface PastToolCall {
  toolName: string;
  args: unknown;
  /** The result as text, when the entry carries one. */
  result: string | undefined;
}

const toolNameKeys = ["tool_name", "tool", "name"] as const;
const argumentKeys = ["tool_args", "args", "arguments", "input"] as const;
const resultKeys = ["result", "results", "output", "observation", "response", "content"] as const;
/** Step kinds the spec runtime records besides tool calls (`action: "finish"`, ...): not tool calls. */
const otherStepKinds = new Set([
  "finish",
  "final",
  "answer",
  "reason",
  "reasoning",
  "think",
  "thought",
  "message",
  "respond",
  "response",
  "error",
  "stop",
  "stuck",
  "plan",
]);
/** Step kinds that mean "a tool was called". */
const toolStepKinds = new Set(["tool", "tool_call", "tool_use", "call", "function_call"]);

function firstString(entry: Record<string, unknown>, keys: readonly string[]): string | undefined {
  for (const key of keys) {
    const value = entry[key];
    if (typeof value === "string" && value.trim() !== "") return value;
  }
  return undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** An MCP tool result (`{ content: [{ type: "text", text }] }`) as its text; anything else as JSON. */
function asText(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === "string") return value.trim() === "" ? undefined : value;
  if (Array.isArray(value) && value.length === 0) return undefined;
  if (isRecord(value) && Object.keys(value).length === 0) return undefined;
  if (isRecord(value) && Array.isArray(value["content"])) {
    const texts = (value["content"] as unknown[])
      .map((part) => (isRecord(part) && typeof part["text"] === "string" ? part["text"] : undefined))
      .filter((text): text is string => text !== undefined && text.trim() !== "");
    if (texts.length > 0) return texts.join("\n");
  }
  return JSON.stringify(value);
}

function resultOf(...records: Record<string, unknown>[]): string | undefined {
  for (const record of records) {
    const value = resultKeys.map((key) => record[key]).find((candidate) => asText(candidate) !== undefined);
    if (value !== undefined) return asText(value);
  }
  return undefined;
}

/**
 * One history object as a tool call, or undefined when it is another kind of
 * step. Two shapes (the spec runtime writes both):
 * - nested: `{ action: { action: "tool", tool_name, args }, output: { content: [...] } }`;
 * - flat: `{ action | type: "tool", tool_name | tool | name, args | tool_args | input, output | result | ... }`,
 *   or, older, `{ action: "<tool name>" }`.
 * Steps of another kind (`action: "finish"`, `"reason"`, ...) are not tool calls.
 */
function toolCallOf(record: Record<string, unknown>): PastToolCall | undefined {
  const inner = isRecord(record["action"]) ? record["action"] : undefined;
  const step = inner ?? record;
  const kindValue = inner
    ? (inner["action"] ?? inner["type"] ?? inner["kind"])
    : (record["action"] ?? record["type"] ?? record["kind"]);
  const kind = typeof kindValue === "string" ? kindValue.trim().toLowerCase() : undefined;
  if (kind !== undefined && otherStepKinds.has(kind)) return undefined;
  let toolName = firstString(step, toolNameKeys);
  // An older flat shape names the tool under `action` itself.
  if (toolName === undefined && !inner && kind !== undefined && !toolStepKinds.has(kind))
    toolName = firstString(record, ["action"]);
  if (toolName === undefined) return undefined;
  const argsKey = argumentKeys.find((key) => key in step);
  return {
    toolName,
    args: argsKey ? step[argsKey] : undefined,
    result: inner ? resultOf(record, inner) : resultOf(record),
  };
}

/**
 * The tool calls in a history, in order. Entries are free-form (the spec does
 * not fix their shape): objects in the spec runtime's nested or flat shape
 * (see `toolCallOf`), or strings that mention one of `knownTools`.
 */
export function pastToolCalls(history: readonly unknown[], knownTools: readonly string[]): PastToolCall[] {
  const calls: PastToolCall[] = [];
  for (const entry of history) {
    if (typeof entry === "string") {
      const toolName = knownTools.find((name) => entry.includes(name));
      if (toolName) calls.push({ toolName, args: undefined, result: entry });
      continue;
    }
    if (!isRecord(entry)) continue;
    const call = toolCallOf(entry);
    if (call) calls.push(call);
  }
  return calls;
}

/** `text` cut to `limit` characters with an ellipsis. */
export function clip(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit)}…`;
}
