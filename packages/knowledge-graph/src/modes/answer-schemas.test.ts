import type { ModeDefinition } from "@deliberate/engine";
import { measureSchemaAcceptance } from "@deliberate/engine/testing";
import { describe, expect, it } from "vitest";
import { scenarioWeatherTool } from "../testing/scenario.ts";
import { createAbductionMode } from "./abduction.mode.ts";
import { createAnswerMode, createSampleMode } from "./answer.mode.ts";
import { createDeductionMode } from "./deduction.mode.ts";
import { extractionMode } from "./extraction.mode.ts";
import { createInductionMode } from "./induction.mode.ts";
import { createPlanMode } from "./plan.mode.ts";
import { createResolutionMode } from "./resolution.mode.ts";
import { createSelfAskMode } from "./self-ask.mode.ts";
import { createThoughtsMode } from "./thoughts.mode.ts";

/**
 * Every knowledge-graph mode's answer schema against its validator: random
 * answers valid against the JSON Schema the model (or, keyless, the calling
 * agent) is given must all be accepted, so a constrained decoder that follows
 * the schema can never be refused. PRINT_SCHEMA_ACCEPTANCE=1 prints the rates.
 */
const names = ["Alice", "Bob", "Carol", "Dave", "Paris"];
const tools = [
  scenarioWeatherTool,
  {
    name: "search",
    description: "Web search",
    inputSchema: {
      type: "object",
      properties: { query: { type: "string", minLength: 1 }, limit: { type: "integer", minimum: 1, maximum: 10 } },
      required: ["query"],
      additionalProperties: false,
    },
  },
];

const cases: Array<{ label: string; mode: ModeDefinition<never, unknown> }> = [
  { label: "extraction", mode: extractionMode as never },
  { label: "resolution (1 pair)", mode: createResolutionMode(1) as never },
  { label: "resolution (8 pairs)", mode: createResolutionMode(8) as never },
  { label: "induction", mode: createInductionMode(names) as never },
  { label: "deduction (rules)", mode: createDeductionMode(names) as never },
  { label: "deduction, empty graph", mode: createDeductionMode([]) as never },
  { label: "abduction (hypotheses)", mode: createAbductionMode(names) as never },
  { label: "abduction, empty graph", mode: createAbductionMode([]) as never },
  { label: "plan (planAndExecuteCoT), tools and user", mode: createPlanMode(tools, 5, true) as never },
  { label: "plan, no tools, no user", mode: createPlanMode([], 3, false) as never },
  { label: "self-ask", mode: createSelfAskMode(tools, true) as never },
  { label: "answer", mode: createAnswerMode(names) as never },
  { label: "answer sample (self-consistency)", mode: createSampleMode(names) as never },
  { label: "tree of thoughts", mode: createThoughtsMode(names, 3) as never },
];

const rates: Array<[string, string]> = [];

describe("knowledge-graph answer schemas are as strict as their validators", () => {
  it.each(cases)("$label: every schema-valid answer is accepted", async ({ label, mode }) => {
    const result = await measureSchemaAcceptance(mode.output, { samples: 120, seed: 11 });
    rates.push([label, `${result.accepted}/${result.generated} (${(result.rate * 100).toFixed(1)}%)`]);
    expect(result.generated).toBe(120);
    expect(result.rejected.slice(0, 3)).toEqual([]);
  });

  it("prints the acceptance rates when asked", () => {
    if (process.env["PRINT_SCHEMA_ACCEPTANCE"])
      console.info(rates.map(([label, rate]) => `${label}: ${rate}`).join("\n"));
    expect(rates).toHaveLength(cases.length);
  });
});
