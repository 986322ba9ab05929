import { presetOutputSchema } from "@deliberate/contracts";
import { afterEach, describe, expect, it } from "vitest";
import type { ProgressUpdate } from "@deliberate/engine";
import { bySchemaName, createTestEngine, type TestEngine } from "../../test-support.ts";

// The built-in presets end to end through the real tools, with the scripted model.

// A first draft is below the threshold (0.8), its revision above.
const critique = (_index: number, call: { messages: ReadonlyArray<{ content: string }> }) => ({
  scores: !call.messages.at(-1)?.content.includes("The refined result.")
    ? { logic: 0.6, evidence: 0.6, completeness: 0.6, clarity: 0.6 }
    : { logic: 0.9, evidence: 0.9, completeness: 0.9, clarity: 0.9 },
  strengths: ["clear"],
  weaknesses: ["thin on evidence"],
  recommendations: ["add a benchmark"],
});

const common = {
  linear_continuation: {
    content: "The code parses a config file and must never throw on bad input.",
    confidence: 0.8,
    next_step: "review",
  },
  divergent_perspective: (index: number) => ({
    viewpoint: `angle ${index}`,
    content: `finding ${index}`,
    novelty_score: 0.4,
  }),
  divergent_synthesis: { challenged_assumptions: ["input is trusted"], synthesis: "Validate input before parsing." },
  tree_branches: {
    branches: [
      { content: "Malformed file crashes the parser", score: 0.8 },
      { content: "Huge file exhausts memory", score: 0.5 },
      { content: "Concurrent writers corrupt it", score: 0.3 },
    ],
    recommendation: "Start with malformed input",
  },
  detect_fallacies: { detections: [] },
  detect_biases: { detections: [] },
  reflection_critique: critique,
  reflection_revision: { refined_content: "The refined result.", changes: ["added a benchmark"] },
};

const engines: TestEngine[] = [];
afterEach(async () => {
  await Promise.all(engines.splice(0).map((testEngine) => testEngine.store.close()));
});

async function run(answers: Record<string, unknown>, presetId: string, inputs: Record<string, unknown>) {
  const testEngine = await createTestEngine(bySchemaName(answers));
  engines.push(testEngine);
  const updates: ProgressUpdate[] = [];
  const output = presetOutputSchema.parse(
    await testEngine.engine.invoke(
      "reasoning_preset",
      { operation: "run", preset_id: presetId, inputs },
      { progress: (update) => updates.push(update) },
    ),
  );
  return { ...testEngine, output, updates };
}

describe("built-in presets", () => {
  it("code-review runs every step and assembles the review", async () => {
    const { output, updates, store } = await run(common, "code-review", {
      code: "function parse(text) { return JSON.parse(text); }",
    });
    const execution = output.execution_result;
    if (execution?.status !== "completed") throw new Error(`expected completed, got ${JSON.stringify(execution)}`);
    expect(execution.step_results.map((step) => step.step_id)).toEqual([
      "understand",
      "angles",
      "failure_modes",
      "reasoning_check",
      "review",
    ]);
    expect(execution.final_output).toMatchObject({
      contract: common.linear_continuation.content,
      failure_modes: [
        "Malformed file crashes the parser",
        "Huge file exhausts memory",
        "Concurrent writers corrupt it",
      ],
      reasoning_issues: [],
      review: "The refined result.",
      recommendations: ["add a benchmark"],
    });
    expect((execution.final_output["findings"] as unknown[]).length).toBe(4);
    expect(updates.at(-1)).toMatchObject({ progress: 5, total: 5 });
    // Every step recorded its work in the one session.
    const thoughts = await store.thoughts.listBySession(output.session_id as string);
    expect(new Set(thoughts.map((thought) => thought.mode))).toEqual(
      new Set(["input", "linear", "divergent", "tree", "detect", "reflection"]),
    );
  });

  it("architecture-decision ranks the given options by the given criteria and traces the consequences", async () => {
    const answers = {
      ...common,
      decision_scores: {
        criteria: {
          cost: { scores: { monolith: 2, microservices: 8 } },
          scalability: { scores: { monolith: 5, microservices: 6 } },
        },
        notes: "Services cost far more to run for a little more scale.",
      },
      decision_stakeholders: {
        stakeholders: {
          CTO: { role: "sponsor", power_level: 0.9, interest_level: 0.8 },
          Ops: { role: "runs it", power_level: 0.4, interest_level: 0.9 },
          Finance: { role: "pays", power_level: 0.7, interest_level: 0.2 },
        },
        conflicts: ["Ops vs CTO on on-call load"],
        alignments: ["CTO and Finance on cost"],
      },
      counterfactual_variables: {
        intervention_target: { variable: "architecture_complexity", level: 0, change: -1 },
        other_variables: [
          { name: "ops_load", level: 1 },
          { name: "delivery_speed", level: 2 },
        ],
        rationale: "A simpler architecture needs less operations work.",
      },
      counterfactual_links: {
        causes: {
          ops_load: { architecture_complexity: 0.8 },
          delivery_speed: { architecture_complexity: 0, ops_load: -0.5 },
        },
        rationale: "Ops work slows delivery.",
      },
      counterfactual_narrative: {
        counterfactual_outcome: "With the monolith, ops load falls and delivery speeds up.",
        key_differences: ["less on-call"],
        assumptions: ["linear effects"],
        confidence: 0.6,
      },
    };
    const { output, model } = await run(answers, "architecture-decision", {
      question: "Monolith or microservices for the billing system?",
      options: ["monolith", "microservices"],
      criteria: [
        { name: "cost", weight: 0.6, direction: "cost" },
        { name: "scalability", weight: 0.4, direction: "benefit" },
      ],
    });
    const execution = output.execution_result;
    if (execution?.status !== "completed") throw new Error(`expected completed, got ${JSON.stringify(execution)}`);
    expect(execution.final_output).toMatchObject({
      recommendation: expect.stringContaining("monolith"),
      stakeholder_map: { key_players: ["CTO"] },
      consequences: "With the monolith, ops load falls and delivery speeds up.",
      decision_record: "The refined result.",
    });
    const rankings = execution.final_output["rankings"] as Array<{ option: string; rank: number }>;
    expect(rankings.find((ranking) => ranking.rank === 1)?.option).toBe("monolith");
    // The ranking's recommendation was fed into the counterfactual's intervention.
    const asked = model.calls.map((call) => call.messages.map((message) => message.content).join("\n"));
    expect(asked.some((prompt) => prompt.includes("Adopt ") && prompt.includes("monolith"))).toBe(true);
  });

  it("debug-analysis searches the hypotheses with MCTS and estimates the fix's effect", async () => {
    const answers = {
      ...common,
      mcts_expand: { steps: ["Reproduce with a malformed file", "Check the parser's error handling"] },
      mcts_evaluate: { value: 0.7, reaches_conclusion: false, rationale: "plausible" },
      counterfactual_variables: {
        intervention_target: { variable: "input_validation", level: 0, change: 1 },
        other_variables: [{ name: "crash_rate", level: 1 }],
        rationale: "Validation prevents the crash.",
      },
      counterfactual_links: {
        causes: { crash_rate: { input_validation: -0.9 } },
        rationale: "Most crashes are malformed input.",
      },
      counterfactual_narrative: {
        counterfactual_outcome: "Crashes stop.",
        key_differences: ["no crash"],
        assumptions: ["single cause"],
        confidence: 0.7,
      },
    };
    const { output } = await run(answers, "debug-analysis", {
      problem: "The service crashes on startup since Tuesday.",
      context: "Config was changed on Tuesday.",
    });
    const execution = output.execution_result;
    if (execution?.status !== "completed") throw new Error(`expected completed, got ${JSON.stringify(execution)}`);
    expect(execution.step_results.map((step) => step.step_id)).toEqual([
      "facts",
      "hypotheses",
      "bias_check",
      "investigation",
      "fix_impact",
      "conclusion",
    ]);
    expect(execution.final_output).toMatchObject({
      fix_impact: "Crashes stop.",
      conclusion: "The refined result.",
      next_steps: ["add a benchmark"],
    });
    expect((execution.final_output["investigation"] as string[]).length).toBeGreaterThan(0);
  });

  it("risk-assessment plays the risks out on a timeline with a worst-case branch", async () => {
    const answers = {
      ...common,
      timeline_branch: { label: "worst case", content: "Everything fails at once." },
      counterfactual_variables: {
        intervention_target: { variable: "mitigation", level: 0, change: 1 },
        other_variables: [{ name: "incident_rate", level: 1 }],
        rationale: "Mitigation lowers incidents.",
      },
      counterfactual_links: {
        causes: { incident_rate: { mitigation: -0.5 } },
        rationale: "Half the incidents are avoided.",
      },
      counterfactual_narrative: {
        counterfactual_outcome: "Fewer incidents.",
        key_differences: ["fewer pages"],
        assumptions: ["linear"],
        confidence: 0.5,
      },
    };
    const { output } = await run(answers, "risk-assessment", { subject: "Migrating the database over a weekend" });
    const execution = output.execution_result;
    if (execution?.status !== "completed") throw new Error(`expected completed, got ${JSON.stringify(execution)}`);
    expect(execution.final_output).toMatchObject({
      mitigation_effect: "Fewer incidents.",
      assessment: "The refined result.",
    });
    expect(execution.final_output["timeline_id"]).toEqual(expect.any(String));
    const worstCase = execution.step_results.find((step) => step.step_id === "worst_case")?.result as {
      timeline_id: string;
    };
    expect(worstCase.timeline_id).toBe(execution.final_output["timeline_id"]);
  });

  it("research-synthesis grows, scores and finalises a graph while scoring the sources", async () => {
    const criteria = { relevance: 0.8, validity: 0.7, depth: 0.6, novelty: 0.5 };
    const answers = {
      ...common,
      graph_continuation: { content: "A line of answer", criteria },
      graph_score: { criteria, rationale: "solid" },
      graph_finalize: { conclusions: ["Caching halves latency."] },
      evidence_assessment: { items: {} },
    };
    const { output } = await run(answers, "research-synthesis", {
      question: "Does caching halve latency?",
      sources: [
        {
          content: "Benchmark shows 48% lower p50.",
          source: "lab",
          source_type: "primary",
          corroborated_by: [1],
          chain_of_custody: "intact",
        },
        {
          content: "Vendor blog claims 50%.",
          source: "vendor",
          source_type: "secondary",
          corroborated_by: [0],
          chain_of_custody: "partial",
        },
      ],
    });
    const execution = output.execution_result;
    if (execution?.status !== "completed") throw new Error(`expected completed, got ${JSON.stringify(execution)}`);
    expect(execution.final_output).toMatchObject({
      conclusions: ["Caching halves latency."],
      answer: "The refined result.",
    });
    expect(execution.final_output["overall_credibility"]).toEqual(expect.any(Number));
    expect((execution.final_output["source_assessments"] as unknown[]).length).toBe(2);
  });
});
