/**
 * The OpenAI reasoning models known when this was written: the o-series
 * (`o1`, `o3-mini`, `o4-mini`, ...) and the `gpt-5` family (`gpt-5`,
 * `gpt-5.1`, `gpt-5-mini`, ...), also behind a router prefix such as
 * `openai/o3`. They reject `max_tokens` and `temperature`.
 */
export const defaultReasoningModelPattern = /^(?:[\w.-]+\/)*(?:o\d+(?:-[\w.:-]*)?|gpt-5[\w.:-]*)$/i;

/** The default list: only the built-in pattern. */
export const defaultReasoningModels: readonly string[] = Object.freeze(["default"]);

/**
 * Whether `modelId` is a reasoning model by `patterns`: entries are model ids
 * with `*` wildcards (case-insensitive, matching the whole id), `default`
 * for the built-in pattern, and `!pattern` to exclude the ids it matches
 * (wherever it stands in the list). An empty list matches nothing.
 *
 * @example
 * isReasoningModel("o3-mini"); // true (built-in pattern)
 * isReasoningModel("qwq:32b", ["default", "qwq*"]); // true
 * isReasoningModel("gpt-5-chat-latest", ["default", "!gpt-5-chat*"]); // false
 */
export function isReasoningModel(modelId: string, patterns: readonly string[] = defaultReasoningModels): boolean {
  let included = false;
  for (const entry of patterns) {
    const excluded = entry.startsWith("!");
    const pattern = excluded ? entry.slice(1) : entry;
    if (!matches(modelId, pattern)) continue;
    if (excluded) return false;
    included = true;
  }
  return included;
}

function matches(modelId: string, pattern: string): boolean {
  if (pattern.toLowerCase() === "default") return defaultReasoningModelPattern.test(modelId);
  const source = pattern
    .split("*")
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
    .join(".*");
  return new RegExp(`^${source}$`, "i").test(modelId);
}
