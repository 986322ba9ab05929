import { clip, pastToolCalls } from "./history.ts";
import { checkToolArguments, type OfferedTool } from "./offered-tools.ts";

/** What the heuristic decided, and by which rule. */
export interface HeuristicDecision {
  toolName: string | null;
  toolArgs: Record<string, unknown>;
  reasoning: string;
  finalText: string | null;
  rule:
    | "information_seeking"
    | "history_answered"
    | "no_search_tool"
    | "not_information_seeking"
    | "arguments_unfillable";
}

// Goals that ask to find, list or explain something, rather than to do it.
const informationSeeking =
  /\b(search|find|look\s*(up|for|into)|locate|where|what|which|who|why|how|list|show|explain|describe|summari[sz]e|identify|investigate|explore|inspect|grep|scan|todos?|fixme)\b|\?\s*$/i;
const searchToolName = /(search|find|query|lookup|look_up|grep|retriev)/i;
const queryKeys = ["query", "q", "search", "search_query", "text", "pattern", "term", "terms", "keywords", "question"];

/** True when the goal asks for information (search, find, list, where, what, ... or ends in '?'). */
export function isInformationSeeking(goal: string): boolean {
  return informationSeeking.test(goal);
}

/** The offered tool to search with: `context.fts_search` when offered, else the first whose name says search. */
export function findSearchTool(tools: readonly OfferedTool[]): OfferedTool | undefined {
  return (
    tools.find((tool) => tool.name === "context.fts_search") ?? tools.find((tool) => searchToolName.test(tool.name))
  );
}

/**
 * Arguments for `tool` from the goal alone: the goal goes into the query-like
 * string property (query, q, search, text, ...; else the only required
 * string), and other required properties take their schema default. The
 * result is checked against the tool's schema.
 */
export function argumentsFromGoal(
  tool: OfferedTool,
  goal: string,
): { ok: true; args: Record<string, unknown> } | { ok: false; problem: string } {
  const schema = tool.inputSchema;
  const properties = (schema?.["properties"] ?? {}) as Record<string, Record<string, unknown>>;
  const required = Array.isArray(schema?.["required"]) ? (schema["required"] as string[]) : [];
  const isString = (name: string) => {
    const type = properties[name]?.["type"];
    return type === undefined || type === "string" || (Array.isArray(type) && type.includes("string"));
  };
  const names = Object.keys(properties);
  const target =
    schema === undefined || names.length === 0
      ? "query"
      : (queryKeys.find((key) => key in properties && isString(key)) ??
        required.find((name) => isString(name) && properties[name]?.["enum"] === undefined) ??
        names.find((name) => isString(name) && properties[name]?.["enum"] === undefined));
  if (target === undefined) return { ok: false, problem: `${tool.name} has no string argument to put the goal in` };
  const args: Record<string, unknown> = { [target]: goal };
  for (const name of required) {
    if (name in args) continue;
    const fallback = properties[name]?.["default"];
    if (fallback !== undefined) args[name] = fallback;
  }
  const issues = checkToolArguments(tool, args);
  if (issues.length > 0) {
    return {
      ok: false,
      problem: `arguments for ${tool.name} cannot be built from the goal alone (${issues.map((issue) => `${issue.field}: ${issue.message}`).join("; ")})`,
    };
  }
  return { ok: true, args };
}

/**
 * The decision when no model is configured (after the spec): an
 * information-seeking goal calls the search tool with the goal as query,
 * unless the history already holds a search (then the run finishes, answering
 * from its results); anything else finishes.
 */
export function decideByHeuristic(input: {
  goal: string;
  history: readonly unknown[];
  tools: readonly OfferedTool[];
}): HeuristicDecision {
  const goal = input.goal.trim();
  const finish = (rule: HeuristicDecision["rule"], reasoning: string, finalText: string): HeuristicDecision => ({
    toolName: null,
    toolArgs: {},
    reasoning,
    finalText,
    rule,
  });
  if (!isInformationSeeking(goal)) {
    return finish(
      "not_information_seeking",
      "Heuristic (no model configured): the goal does not ask to look anything up, so there is no tool to call.",
      goal === "" ? "No goal was given; nothing to do." : `Nothing to look up for: ${goal}`,
    );
  }
  const search = findSearchTool(input.tools);
  if (!search) {
    return finish(
      "no_search_tool",
      "Heuristic (no model configured): the goal seeks information but none of the offered tools searches.",
      `No search tool is available to answer: ${goal}`,
    );
  }
  const searches = pastToolCalls(
    input.history,
    input.tools.map((tool) => tool.name),
  ).filter((call) => call.toolName === search.name || searchToolName.test(call.toolName));
  if (searches.length > 0) {
    const results = searches.map((call) => call.result).filter((result): result is string => result !== undefined);
    return finish(
      "history_answered",
      `Heuristic (no model configured): the history already holds ${searches.length} search call(s); searching again would repeat it.`,
      results.length > 0
        ? `Answer from the search results already gathered: ${clip(results[results.length - 1] as string, 2000)}`
        : `A search for this goal already ran without results: ${goal}`,
    );
  }
  const built = argumentsFromGoal(search, goal);
  if (!built.ok) {
    return finish(
      "arguments_unfillable",
      `Heuristic (no model configured): ${built.problem}.`,
      `Cannot search for: ${goal}`,
    );
  }
  return {
    toolName: search.name,
    toolArgs: built.args,
    reasoning: `Heuristic (no model configured): the goal seeks information, so search with ${search.name}.`,
    finalText: null,
    rule: "information_seeking",
  };
}
