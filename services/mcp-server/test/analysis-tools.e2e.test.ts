import { join } from "node:path";
import { reasoningTools, type ToolDefinition } from "@deliberate/contracts";
import { createFakeModelServer, type FakeModelServer } from "@deliberate/providers/testing";
import { type ReasoningRepositories, reasoningModule } from "@deliberate/reasoning";
import { testStorePlace } from "@deliberate/engine/testing";
import { openStore } from "@deliberate/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { respondAnalysis as respond } from "./support/tool-answers.ts";
import {
  expectOutput,
  expectToolError,
  startStdioServer,
  temporaryDirectory,
  type StdioServer,
} from "./support/server-process.ts";

// reasoning_detect, reasoning_decision, reasoning_evidence and
// reasoning_counterfactual end to end: the built server over stdio, the real
// SDK client, the OpenAI-compatible provider pointed at the loopback fake
// model server. Supplied numbers must not reach the model at all; a second
// server process on the same database sees what the first one recorded.

const definitions = new Map<string, ToolDefinition>(
  [
    reasoningTools.reasoning_detect,
    reasoningTools.reasoning_decision,
    reasoningTools.reasoning_evidence,
    reasoningTools.reasoning_counterfactual,
  ].map((definition) => [definition.name, definition as ToolDefinition]),
);

const argument =
  "We already spent two years on this rewrite, so we cannot stop now. Either we finish it or the product dies. Our lead says it will work, and she is never wrong.";

describe("stdio: reasoning_detect, reasoning_decision, reasoning_evidence and reasoning_counterfactual, every operation", () => {
  const directory = temporaryDirectory();
  const databasePath = join(directory.path, "analysis.db");
  let fake: FakeModelServer;
  let env: Record<string, string>;
  let server: StdioServer;
  let sessionId = "";
  const recorded: string[] = [];

  beforeAll(async () => {
    fake = await createFakeModelServer({ respond });
    env = { DATABASE_PATH: databasePath, OPENAI_BASE_URL: fake.openaiBaseURL, OPENAI_API_KEY: "test" };
    server = await startStdioServer(env);
  });
  afterAll(async () => {
    await server?.close();
    await fake?.close();
    directory.remove();
  });

  const call = (
    name: string,
    args: Record<string, unknown>,
    options?: Parameters<StdioServer["client"]["callTool"]>[1],
  ) => server.client.callTool({ name, arguments: args }, options);

  /** Calls a tool and returns its result with the model requests it caused. */
  async function run(
    name: string,
    args: Record<string, unknown>,
    options?: Parameters<StdioServer["client"]["callTool"]>[1],
  ) {
    const before = fake.requests.length;
    const output = expectOutput(
      name,
      await call(name, { ...(sessionId ? { session_id: sessionId } : {}), ...args }, options),
    );
    if (!sessionId) sessionId = output["session_id"] as string;
    expect(output["session_id"]).toBe(sessionId);
    recorded.push(output["thought_id"] as string);
    return { output, requests: fake.requests.slice(before).map((request) => request.schemaName) };
  }

  it("lists the four tools with their variants, the extended inputs and true annotations", async () => {
    const { tools } = await server.client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    expect(byName.get("reasoning_detect")?.inputSchema.properties).toMatchObject({
      type: { enum: ["biases", "fallacies"] },
      check_types: { type: ["array", "null"] },
    });
    expect(byName.get("reasoning_decision")?.inputSchema.properties).toMatchObject({
      // Optional fields also take null ("not given"), as strict-mode clients send it.
      type: { enum: ["weighted", "pairwise", "topsis", "perspectives", null] },
      scores: { type: ["array", "null"] },
      pairwise_matrix: { type: ["array", "null"] },
    });
    expect(byName.get("reasoning_evidence")?.inputSchema.properties).toMatchObject({
      type: { enum: ["assess", "probabilistic", null] },
      evidence: { type: "array" },
    });
    expect(byName.get("reasoning_counterfactual")?.inputSchema.properties).toMatchObject({
      analysis_depth: { enum: ["association", "intervention", "counterfactual", null] },
      causal_model: { type: ["object", "null"] },
      intervention_target: { type: ["object", "null"] },
    });
    for (const name of definitions.keys()) {
      expect(byName.get(name)?.annotations).toMatchObject({
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: true,
      });
      expect(byName.get(name)?.outputSchema?.type).toBe("object");
      expect((byName.get(name)?.description ?? "").length).toBeLessThanOrEqual(1024);
    }
  });

  it("reasoning_detect: biases keep only quoted evidence found in the text; fallacies honour check_types and check_formal", async () => {
    const biases = await run("reasoning_detect", { type: "biases", content: argument });
    expect(biases.requests).toEqual(["detect_biases"]);
    const found = biases.output["detections"] as Array<{
      type: string;
      evidence: string;
      evidence_span: { start: number; end: number };
    }>;
    expect(found.map((item) => item.type)).toEqual(["sunk_cost_fallacy", "authority_bias"]);
    // The quote is reported as the input's own text (case restored), at its offsets.
    expect(found[1]?.evidence).toBe("Our lead says it will work");
    expect(argument.slice(found[1]?.evidence_span.start, found[1]?.evidence_span.end)).toBe(
      "Our lead says it will work",
    );
    expect(biases.output["discarded"]).toEqual([expect.objectContaining({ type: "overconfidence" })]);
    expect(biases.output["overall_quality"]).toBeCloseTo((1 - 0.3 * 0.8) * (1 - 0.15 * 0.8), 12);

    const fallacies = await run("reasoning_detect", {
      type: "fallacies",
      content: argument,
      check_types: ["false dichotomy", "ad-hominem"],
      check_formal: "false",
    });
    expect(fallacies.output["checked_types"]).toEqual(["false_dichotomy", "ad_hominem"]);
    expect(fallacies.output["detections"]).toEqual([
      expect.objectContaining({ type: "false_dichotomy", category: "informal", severity: "high" }),
    ]);
    const prompt = fake.requests.at(-1)?.prompt ?? "";
    expect(prompt).toContain("- false_dichotomy:");
    expect(prompt).not.toContain("- straw_man:");

    const bad = expectToolError(
      await call("reasoning_detect", { type: "fallacies", content: argument, check_types: ["anchoring"] }),
    );
    expect(bad).toMatchObject({ code: "INVALID_INPUT", issues: [{ field: "check_types.0" }] });
  });

  it("reasoning_decision: weighted and topsis from supplied numbers without the model, weighted with model judgements", async () => {
    const supplied = {
      options: ["A", "B", "C"],
      criteria: [
        { name: "price", weight: "2", direction: "cost" },
        { name: "quality", weight: 3 },
      ],
      scores: [
        [100, 6],
        [200, 9],
        [150, 3],
      ],
    };
    const weighted = await run("reasoning_decision", { type: "weighted", ...supplied });
    expect(weighted.requests).toEqual([]);
    expect(weighted.output["rankings"]).toEqual([
      { option: "A", score: 0.7, rank: 1, tied: false },
      { option: "B", score: 0.6, rank: 2, tied: false },
      { option: "C", score: expect.closeTo(0.2, 12), rank: 3, tied: false },
    ]);

    const topsis = await run("reasoning_decision", { type: "topsis", ...supplied });
    expect(topsis.requests).toEqual([]);
    const closeness = (topsis.output["rankings"] as Array<{ score: number }>).map((ranked) => ranked.score);
    expect(closeness.every((value) => value >= 0 && value <= 1)).toBe(true);
    expect(topsis.output["topsis"]).toMatchObject({ ideal: [expect.any(Number), expect.any(Number)] });

    const judged = await run("reasoning_decision", { question: "Which database?", options: ["Postgres", "SQLite"] });
    expect(judged.requests).toEqual(["decision_scores"]);
    // Weights 0.25 / 0.75 from importances 2 and 6; min-max: Postgres (0, 1), SQLite (1, 0).
    expect(judged.output["rankings"]).toEqual([
      { option: "Postgres", score: 0.75, rank: 1, tied: false },
      { option: "SQLite", score: 0.25, rank: 2, tied: false },
    ]);
    expect(judged.output["scores_source"]).toBe("model");
  });

  it("reasoning_decision: pairwise from a supplied matrix and from model judgements; perspectives quadrants", async () => {
    const consistent = await run("reasoning_decision", {
      type: "pairwise",
      options: ["A", "B", "C"],
      pairwise_matrix: [
        [1, 2, 4],
        ["0.5", 1, 2],
        [0.25, 0.5, 1],
      ],
    });
    expect(consistent.requests).toEqual([]);
    expect(consistent.output["pairwise"]).toMatchObject({
      consistency_ratio: expect.closeTo(0, 10),
      consistent: true,
      matrix_source: "caller",
    });
    expect((consistent.output["pairwise"] as { priorities: number[] }).priorities[0]).toBeCloseTo(4 / 7, 12);

    const judged = await run("reasoning_decision", {
      type: "pairwise",
      question: "How to commute?",
      options: ["rail", "bus", "car"],
    });
    expect(judged.requests).toEqual(["decision_pairwise"]);
    expect((judged.output["pairwise"] as { matrix: number[][] }).matrix).toEqual([
      [1, 3, 5],
      [1 / 3, 1, 2],
      [1 / 5, 1 / 2, 1],
    ]);
    expect((judged.output["rankings"] as Array<{ option: string }>).map((ranked) => ranked.option)).toEqual([
      "rail",
      "bus",
      "car",
    ]);

    const inconsistent = expectOutput(
      "reasoning_decision",
      await call("reasoning_decision", {
        type: "pairwise",
        options: ["x", "y", "z"],
        pairwise_matrix: [
          [1, 9, 1 / 9],
          [1 / 9, 1, 9],
          [9, 1 / 9, 1],
        ],
      }),
    );
    expect((inconsistent["warnings"] as string[])[0]).toMatch(/^Consistency ratio .* exceeds 0\.1/);

    const perspectives = await run("reasoning_decision", {
      type: "perspectives",
      topic: "A new tram line",
      stakeholders: [
        { name: "Residents", power_level: 0.6, interest_level: 0.9 },
        { name: "Commuters", power_level: 0.3, interest_level: 0.8 },
        { name: "City council" },
      ],
    });
    expect(perspectives.requests).toEqual(["decision_stakeholders"]);
    expect(perspectives.output["stakeholder_map"]).toEqual({
      key_players: ["Residents"],
      keep_satisfied: ["City council"],
      keep_informed: ["Commuters"],
      minimal_effort: [],
    });
    expect(perspectives.output["conflicts"]).toEqual(["Residents vs City council on noise"]);

    const bad = expectToolError(
      await call("reasoning_decision", {
        type: "pairwise",
        options: ["A", "B"],
        pairwise_matrix: [
          [1, 3],
          [3, 1],
        ],
      }),
    );
    expect(bad).toMatchObject({ code: "INVALID_INPUT", issues: [{ field: "pairwise_matrix.1.0" }] });
  });

  it("reasoning_evidence: probabilistic and assess, from supplied numbers without the model and with model estimates", async () => {
    const exact = await run("reasoning_evidence", {
      type: "probabilistic",
      hypothesis: "The key leaked",
      prior: "0.3",
      evidence: [
        { content: "Unknown logins", likelihood_if_true: 0.8, likelihood_if_false: 0.2 },
        { content: "Traffic spike", likelihood_if_true: 0.6, likelihood_if_false: 0.3 },
      ],
    });
    expect(exact.requests).toEqual([]);
    expect(exact.output["posterior"]).toBeCloseTo(24 / 31, 14);
    expect(exact.output["likelihood_ratio"]).toBeCloseTo(8, 12);
    expect(exact.output["assumptions"]).toEqual([expect.stringMatching(/conditionally independent/)]);
    expect((exact.output["confidence_interval"] as { meaning: string }).meaning).toMatch(
      /^Likelihood-sensitivity interval/,
    );

    const estimated = await run("reasoning_evidence", {
      type: "probabilistic",
      hypothesis: "The key leaked",
      evidence: [
        { content: "Unknown logins", likelihood_if_true: 0.8, likelihood_if_false: 0.2 },
        { content: "A rumour" },
      ],
    });
    expect(estimated.requests).toEqual(["evidence_likelihoods"]);
    expect(estimated.output).toMatchObject({ prior: 0.2, prior_estimated: true });
    expect((estimated.output["steps"] as Array<{ estimated: boolean }>).map((step) => step.estimated)).toEqual([
      false,
      true,
    ]);
    // Odds 0.25 × 4 × 2 = 2.
    expect(estimated.output["posterior"]).toBeCloseTo(2 / 3, 12);

    const assessed = await run("reasoning_evidence", {
      claim: "The bridge is unsafe",
      evidence: [
        {
          content: "Inspection report",
          source: "inspector",
          source_type: "primary",
          corroborated_by: [],
          chain_of_custody: "intact",
        },
        { content: "Forum post", source: "forum" },
      ],
    });
    expect(assessed.requests).toEqual(["evidence_assessment"]);
    const items = assessed.output["evidence_assessments"] as Array<{ credibility_score: number; estimated: string[] }>;
    // 0.5·1 + 0 + 0.25·1 = 0.75; 0.5·0.15 + 0.25·0.5 + 0.25·0.5 = 0.325.
    expect(items.map((item) => item.credibility_score)).toEqual([0.75, expect.closeTo(0.325, 12)]);
    expect(items[1]?.estimated).toEqual(["source_type", "corroborated_by", "chain_of_custody"]);

    const exactAssess = await run("reasoning_evidence", {
      claim: "c",
      evidence: [{ content: "x", source_type: "expert", corroborated_by: [], chain_of_custody: "partial" }],
    });
    expect(exactAssess.requests).toEqual([]);
    expect(exactAssess.output["overall_credibility"]).toBeCloseTo(0.5 * 0.75 + 0.25 * 0.5, 12);
  });

  it("reasoning_counterfactual: a supplied DAG at all three depths without the model, a cycle rejected, a proposed DAG with narrative and progress", async () => {
    const causal_model = {
      variables: ["demand", "ads", "sales"],
      relationships: [
        { cause: "demand", effect: "ads", strength: 1 },
        { cause: "demand", effect: "sales", strength: 1 },
        { cause: "ads", effect: "sales", strength: "2" },
      ],
    };
    const base = {
      scenario: "A shop",
      intervention: "More ads",
      causal_model,
      intervention_target: { variable: "ads", change: 1 },
    };
    const doing = await run("reasoning_counterfactual", { ...base, analysis_depth: "intervention" });
    expect(doing.requests).toEqual([]);
    expect(doing.output["effects"]).toEqual([
      { variable: "ads", change: 1, relation: "intervened" },
      { variable: "sales", change: 2, relation: "descendant" },
    ]);
    const seeing = await run("reasoning_counterfactual", { ...base, analysis_depth: "association" });
    expect(seeing.requests).toEqual([]);
    // Var(ads) = 2, Cov(ads, sales) = 5: seeing ads +1 goes with sales +2.5 and demand +0.5.
    expect(
      (seeing.output["effects"] as Array<{ variable: string; change: number }>).map((effect) => [
        effect.variable,
        effect.change,
      ]),
    ).toEqual([
      ["ads", 1],
      ["sales", 2.5],
      ["demand", 0.5],
    ]);
    const imagining = await run("reasoning_counterfactual", {
      ...base,
      intervention_target: { variable: "ads", value: 3 },
      observed: { demand: 1, ads: 1, sales: 4 },
    });
    expect(imagining.requests).toEqual([]);
    expect(imagining.output["counterfactual_outcome"]).toBe(
      "Had ads been 3 instead of 1, sales would have been 8 instead of 4.",
    );

    const cyclic = expectToolError(
      await call("reasoning_counterfactual", {
        ...base,
        causal_model: {
          variables: ["a", "b"],
          relationships: [
            { cause: "a", effect: "b", strength: 1 },
            { cause: "b", effect: "a", strength: 1 },
          ],
        },
        intervention_target: { variable: "a", change: 1 },
      }),
    );
    expect(cyclic).toMatchObject({
      code: "INVALID_INPUT",
      issues: [{ field: "causal_model.relationships", message: expect.stringContaining("cycle: a -> b -> a") }],
    });

    const progress: number[] = [];
    const proposed = await run(
      "reasoning_counterfactual",
      {
        scenario: "A team commuting five days a week",
        intervention: "What if they had worked remotely two more days?",
      },
      {
        onprogress: (update) =>
          update.message?.startsWith("generating ") ? undefined : progress.push(update.progress),
      },
    );
    expect(proposed.requests).toEqual(["counterfactual_variables", "counterfactual_links", "counterfactual_narrative"]);
    // The SDK client hands notifications to their handler a tick after it reads them, so the last ones can
    // lose the race with the response that follows them on the wire: assert what arrived, not that all did.
    expect(progress).toEqual([1, 2, 3].slice(0, progress.length));
    expect(progress.length).toBeGreaterThan(0);
    expect(proposed.output).toMatchObject({
      narrative_source: "model",
      confidence: 0.65,
      intervention_target: { variable: "remote_work", change: 2, source: "model" },
    });
    // commute −3; wellbeing = −3·−0.4 + 2·0.2 = 1.6, computed by the server.
    expect(
      (proposed.output["effects"] as Array<{ variable: string; change: number }>).map((effect) => [
        effect.variable,
        effect.change,
      ]),
    ).toEqual([
      ["remote_work", 2],
      ["commute_time", -3],
      ["wellbeing", expect.closeTo(1.6, 12)],
    ]);
  });

  it("a second server process on the same database sees the recorded results", async () => {
    const second = await startStdioServer(env);
    try {
      const before = fake.requests.length;
      // Detect over the session's recorded thoughts, from the other process.
      const result = expectOutput(
        "reasoning_detect",
        await second.client.callTool({
          name: "reasoning_detect",
          arguments: { type: "fallacies", session_id: sessionId, check_types: ["false_dichotomy"] },
        }),
      );
      expect(result["session_id"]).toBe(sessionId);
      const analysed = (result["analyzed"] as { source: string; thought_ids: string[] }).thought_ids;
      expect((result["analyzed"] as { source: string }).source).toBe("session");
      // The thoughts it analysed are the ones the first process recorded, newest included.
      expect(analysed).toContain(recorded.at(-1));
      expect(fake.requests.slice(before).map((request) => request.schemaName)).toEqual(["detect_fallacies"]);
    } finally {
      await second.close();
    }
    const store = await openStore<ReasoningRepositories>({
      ...(await testStorePlace(databasePath)),
      modules: [reasoningModule],
    });
    try {
      const thoughts = await store.thoughts.listBySession(sessionId);
      const byId = new Map(thoughts.map((thought) => [thought.id, thought]));
      for (const id of recorded) expect(byId.has(id), `thought ${id} is stored`).toBe(true);
      const modes = thoughts.map((thought) => thought.mode);
      for (const mode of ["detect", "decision", "evidence", "counterfactual"]) expect(modes).toContain(mode);
      const decision = thoughts.find((thought) => thought.mode === "decision");
      expect(decision?.metadata).toMatchObject({
        type: "weighted",
        rankings: [{ option: "A", score: 0.7 }, { option: "B", score: 0.6 }, { option: "C" }],
      });
      const invocations = await store.invocations.list({ tool: "reasoning_decision" });
      expect(invocations.filter((invocation) => invocation.model_calls === 0).length).toBeGreaterThanOrEqual(3);
    } finally {
      await store.close();
    }
  });
});
