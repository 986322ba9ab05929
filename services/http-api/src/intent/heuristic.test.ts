import { describe, expect, it } from "vitest";
import { argumentsFromGoal, decideByHeuristic, isInformationSeeking } from "./heuristic.ts";
import { pastToolCalls } from "./history.ts";
import { compileOfferedTools } from "./offered-tools.ts";

describe("heuristic", () => {
  it("recognises information-seeking goals", () => {
    for (const goal of [
      "search project for TODOs",
      "Find auth logic",
      "List Makefile targets",
      "Where is the config loaded?",
      "what does main do",
      "Explain the queue",
    ]) {
      expect(isInformationSeeking(goal), goal).toBe(true);
    }
    for (const goal of ["Refactor the parser", "Rename foo to bar", "Deploy to staging", ""]) {
      expect(isInformationSeeking(goal), goal).toBe(false);
    }
  });

  it("searches with the goal as query when nothing was searched yet", () => {
    const decision = decideByHeuristic({ goal: "Find auth logic", history: [], tools: compileOfferedTools(undefined) });
    expect(decision).toMatchObject({
      toolName: "context.fts_search",
      toolArgs: { query: "Find auth logic" },
      finalText: null,
      rule: "information_seeking",
    });
  });

  it("finishes from the history's search results instead of searching again (object and text entries)", () => {
    const tools = compileOfferedTools(undefined);
    const fromObject = decideByHeuristic({
      goal: "Find auth logic",
      history: [{ tool: "context.fts_search", output: "src/auth.ts:12" }],
      tools,
    });
    expect(fromObject).toMatchObject({ toolName: null, rule: "history_answered" });
    expect(fromObject.finalText).toContain("src/auth.ts:12");
    const fromText = decideByHeuristic({
      goal: "Find auth logic",
      history: ["context.fts_search returned 0 hits"],
      tools,
    });
    expect(fromText.rule).toBe("history_answered");
    // Other tools in the history do not count as a search.
    const other = decideByHeuristic({
      goal: "Find auth logic",
      history: [{ tool_name: "fs.read_file", result: "..." }],
      tools,
    });
    expect(other.rule).toBe("information_seeking");
  });

  it("understands the spec runtime's nested history entries (it repeated the same search until max_steps before)", () => {
    const tools = compileOfferedTools(undefined);
    const nested = [
      { index: 1, action: { action: "reason", reasoning: "Look for the auth code first." } },
      {
        index: 2,
        action: {
          action: "tool",
          tool_name: "context.fts_search",
          args: { query: "Find auth logic" },
          reasoning: "search",
        },
        output: {
          content: [
            { type: "text", text: "src/auth/login.ts:12 export function login(" },
            { type: "text", text: "src/auth/token.ts:3" },
          ],
        },
      },
    ];
    const decision = decideByHeuristic({ goal: "Find auth logic", history: nested, tools });
    expect(decision).toMatchObject({ toolName: null, rule: "history_answered" });
    expect(decision.finalText).toContain("src/auth/login.ts:12 export function login(\nsrc/auth/token.ts:3");
    expect(pastToolCalls(nested, [])).toEqual([
      {
        toolName: "context.fts_search",
        args: { query: "Find auth logic" },
        result: "src/auth/login.ts:12 export function login(\nsrc/auth/token.ts:3",
      },
    ]);
    // A nested search step without output still counts: it ran (searching again would repeat it).
    const noOutput = decideByHeuristic({
      goal: "Find auth logic",
      history: [{ action: { action: "tool", tool_name: "context.fts_search", args: { query: "x" } } }],
      tools,
    });
    expect(noOutput).toMatchObject({
      rule: "history_answered",
      finalText: "A search for this goal already ran without results: Find auth logic",
    });
  });

  it("reads the flat shapes too, and does not take other step kinds for tool calls", () => {
    expect(
      pastToolCalls(
        [
          {
            action: "tool",
            tool_name: "context.fts_search",
            args: { q: "a" },
            output: { content: [{ type: "text", text: "hit" }] },
          },
        ],
        [],
      ),
    ).toEqual([{ toolName: "context.fts_search", args: { q: "a" }, result: "hit" }]);
    expect(
      pastToolCalls([{ type: "tool", tool: "context.fts_search", input: { query: "b" }, result: ["r"] }], []),
    ).toEqual([{ toolName: "context.fts_search", args: { query: "b" }, result: '["r"]' }]);
    // An older shape names the tool under `action`.
    expect(pastToolCalls([{ action: "context.fts_search", result: "r" }], [])).toEqual([
      { toolName: "context.fts_search", args: undefined, result: "r" },
    ]);
    // Finishing, reasoning and bare "tool" steps without a tool name are not calls.
    expect(
      pastToolCalls(
        [
          { action: "finish", final: "done" },
          { action: { action: "finish", final: "done" } },
          { action: "tool" },
          { action: { action: "reason", tool_name: "context.fts_search" } },
        ],
        [],
      ),
    ).toEqual([]);
  });

  it("finishes when no offered tool searches, or its arguments cannot come from the goal", () => {
    const noSearch = compileOfferedTools([
      {
        name: "fs.read_file",
        input_schema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
      },
    ]);
    expect(decideByHeuristic({ goal: "Find x", history: [], tools: noSearch }).rule).toBe("no_search_tool");
    const unfillable = compileOfferedTools([
      {
        name: "db.search",
        input_schema: {
          type: "object",
          properties: { query: { type: "string" }, index: { type: "string", enum: ["a", "b"] } },
          required: ["query", "index"],
        },
      },
    ]);
    const decision = decideByHeuristic({ goal: "Find x", history: [], tools: unfillable });
    expect(decision).toMatchObject({ rule: "arguments_unfillable", toolName: null });
  });

  it("builds arguments that satisfy the schema, using defaults for other required fields", () => {
    const [tool] = compileOfferedTools([
      {
        name: "web.search",
        input_schema: {
          type: "object",
          properties: { terms: { type: "string" }, top_k: { type: "integer", default: 5 } },
          required: ["terms", "top_k"],
          additionalProperties: false,
        },
      },
    ]);
    expect(argumentsFromGoal(tool!, "rate limiter")).toEqual({ ok: true, args: { terms: "rate limiter", top_k: 5 } });
  });
});
