import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { DeliberateError } from "@deliberate/base";
import { parseInput } from "../validation.ts";
import { dialogToolDefinitions, dialogTools } from "./index.ts";
import { runReasoningExchangeInputSchema } from "./run-reasoning-exchange.ts";
import { startReasoningSessionInputSchema } from "./start-reasoning-session.ts";
import { getReasoningResultInputSchema } from "./get-reasoning-result.ts";

describe("dialog tool definitions", () => {
  it("are the spec's five tools with short descriptions and object schemas", () => {
    expect(dialogToolDefinitions.map((definition) => definition.name)).toEqual([
      "start_reasoning_session",
      "run_reasoning_exchange",
      "get_reasoning_result",
      "list_reasoning_presets",
      "get_session_status",
    ]);
    for (const definition of dialogToolDefinitions) {
      expect(definition.description.length).toBeLessThanOrEqual(1024);
      expect(z.toJSONSchema(definition.inputSchema, { io: "input", unrepresentable: "any" })).toMatchObject({
        type: "object",
      });
      expect(z.toJSONSchema(definition.outputSchema, { io: "output", unrepresentable: "any" })).toMatchObject({
        type: "object",
      });
    }
    // Only the exchange asks a model; the readers are read-only and idempotent.
    expect(
      dialogToolDefinitions.filter((definition) => definition.usesModel).map((definition) => definition.name),
    ).toEqual(["run_reasoning_exchange"]);
    expect(
      dialogToolDefinitions
        .filter((definition) => definition.annotations.readOnlyHint)
        .map((definition) => definition.name),
    ).toEqual(["get_reasoning_result", "list_reasoning_presets", "get_session_status"]);
  });

  it("apply the spec's defaults and accept numbers and booleans sent as strings", () => {
    expect(startReasoningSessionInputSchema.parse({ topic: " Build a budgeting app " })).toEqual({
      topic: "Build a budgeting app",
      maxIterations: 3,
      qualityThreshold: 0.8,
      mode: "objective_refinement",
    });
    expect(
      startReasoningSessionInputSchema.parse({
        topic: "t",
        maxIterations: "5",
        qualityThreshold: "0.7",
        tokenBudget: "20000",
        mode: "debate",
      }),
    ).toMatchObject({
      maxIterations: 5,
      qualityThreshold: 0.7,
      tokenBudget: 20000,
      mode: "debate",
    });
    expect(runReasoningExchangeInputSchema.parse({ session_id: "s", iteration: "2" })).toEqual({
      session_id: "s",
      iteration: 2,
    });
    expect(
      getReasoningResultInputSchema.parse({ session_id: "s", include_full_exchange: "true", limit: "20" }),
    ).toEqual({
      session_id: "s",
      format: "markdown",
      include_full_exchange: true,
      limit: 20,
      offset: 0,
    });
  });

  it("refuse unknown keys on every dialog tool, naming each and its right spelling", () => {
    const issuesOf = (name: keyof typeof dialogTools, value: unknown) => {
      try {
        parseInput(dialogTools[name].inputSchema, value, name);
        return [];
      } catch (error) {
        return (error as DeliberateError).issues;
      }
    };
    expect(
      issuesOf("start_reasoning_session", { topic: "t", max_iterations: 7, quality_threshold: 0.3, token_budget: 900 }),
    ).toEqual([
      { field: "max_iterations", message: "unknown field 'max_iterations'; did you mean 'maxIterations'?" },
      { field: "quality_threshold", message: "unknown field 'quality_threshold'; did you mean 'qualityThreshold'?" },
      { field: "token_budget", message: "unknown field 'token_budget'; did you mean 'tokenBudget'?" },
    ]);
    const agents = [
      { name: "a", role: "r", system_prompt: "p", systemPrompt: "p" },
      { name: "b", role: "r", systemPrompt: "p" },
    ];
    expect(
      issuesOf("start_reasoning_session", {
        topic: "t",
        agents,
        turns: [[{ agent: "a", act: "produce", acts: "a" }], [{ agent: "b", act: "review" }]],
      }),
    ).toEqual([
      { field: "agents.0.system_prompt", message: "unknown field 'system_prompt'; did you mean 'systemPrompt'?" },
      { field: "turns.0.0.acts", message: "unknown field 'acts'; did you mean 'act'?" },
    ]);
    expect(issuesOf("run_reasoning_exchange", { sessionId: "s" }).map((issue) => issue.message)).toContain(
      "unknown field 'sessionId'; did you mean 'session_id'?",
    );
    expect(issuesOf("get_reasoning_result", { session_id: "s", includeFullExchange: true })).toEqual([
      {
        field: "includeFullExchange",
        message: "unknown field 'includeFullExchange'; did you mean 'include_full_exchange'?",
      },
    ]);
    expect(issuesOf("get_session_status", { session_id: "s", verbose: true })).toEqual([
      { field: "verbose", message: "unknown field 'verbose'; remove it (accepted here: session_id)" },
    ]);
    expect(issuesOf("list_reasoning_presets", { mode: "debate" })).toEqual([
      { field: "mode", message: "unknown field 'mode'; remove it or check its spelling" },
    ]);
  });

  it("name the field of bad input", () => {
    const fields = (schema: z.ZodType, value: unknown) =>
      (schema.safeParse(value).error?.issues ?? []).map((issue) => issue.path.join("."));
    expect(
      fields(startReasoningSessionInputSchema, {
        topic: "  ",
        maxIterations: 0,
        qualityThreshold: 1.5,
        mode: "brainstorm",
      }),
    ).toEqual(["topic", "maxIterations", "qualityThreshold", "mode"]);
    expect(fields(runReasoningExchangeInputSchema, { session_id: "", iteration: -1 })).toEqual([
      "session_id",
      "iteration",
    ]);
    expect(fields(getReasoningResultInputSchema, { session_id: "s", format: "html" })).toEqual(["format"]);
  });
});
