import { expect } from "vitest";

/** Calls one tool and returns its structured result (failing the test on an error result). */
export type ToolCaller = (name: string, args: Record<string, unknown>) => Promise<Record<string, unknown>>;

/**
 * Every tool and every operation the reasoning and dialog modules publish,
 * with arguments that reach the model where the operation asks one: the
 * conformance loop and the real-API request loop share this list.
 */
export async function callEveryTool(call: ToolCaller): Promise<void> {
  const linear = await call("reasoning_linear", { content: "We must pick a database." });
  const sessionId = linear["session_id"] as string;
  await call("reasoning_linear", { content: "The constraint rules out B.", session_id: sessionId });

  const tree = await call("reasoning_tree", { operation: "create", content: "Options for storage", num_branches: "3" });
  const treeSession = tree["session_id"] as string;
  const branches = tree["branches"] as Array<{ id: string }>;
  await call("reasoning_tree", { operation: "list", session_id: treeSession });
  await call("reasoning_tree", { operation: "focus", session_id: treeSession, branch_id: branches[0]?.id });
  await call("reasoning_tree", { operation: "complete", session_id: treeSession, branch_id: branches[0]?.id });

  await call("reasoning_divergent", {
    content: "Rethink onboarding",
    num_perspectives: 3,
    challenge_assumptions: "true",
  });
  await call("reasoning_reflection", {
    operation: "process",
    content: "Draft plan",
    max_iterations: 2,
    quality_threshold: 0.95,
  });
  await call("reasoning_reflection", { operation: "evaluate", session_id: sessionId });

  const checkpoint = await call("reasoning_checkpoint", {
    operation: "create",
    session_id: sessionId,
    name: "before detour",
  });
  await call("reasoning_checkpoint", { operation: "list", session_id: sessionId });
  await call("reasoning_checkpoint", {
    operation: "restore",
    session_id: sessionId,
    checkpoint_id: checkpoint["checkpoint_id"],
    new_direction: "Try option A",
  });

  await call("reasoning_auto", { content: "What follows from the constraint?" });

  const graph = await call("reasoning_graph", { operation: "init", content: "Cut CI time in half." });
  const graphSession = graph["session_id"] as string;
  const generated = await call("reasoning_graph", {
    operation: "generate",
    session_id: graphSession,
    node_id: graph["node_id"],
    k: 3,
  });
  const childIds = (generated["nodes"] as Array<{ id: string }>).map((node) => node.id);
  await call("reasoning_graph", { operation: "score", session_id: graphSession, node_id: childIds[0] });
  await call("reasoning_graph", { operation: "aggregate", session_id: graphSession, node_ids: childIds.slice(0, 2) });
  await call("reasoning_graph", { operation: "refine", session_id: graphSession, node_id: childIds[1] });
  await call("reasoning_graph", { operation: "prune", session_id: graphSession, threshold: "0.5" });
  await call("reasoning_graph", { operation: "state", session_id: graphSession });
  await call("reasoning_graph", { operation: "finalize", session_id: graphSession });

  const timeline = await call("reasoning_timeline", { operation: "create", content: "Kickoff.\n\nLaunch in March." });
  const timelineId = timeline["timeline_id"] as string;
  const mainBranch = timeline["branch_id"] as string;
  const proposed = await call("reasoning_timeline", {
    operation: "branch",
    timeline_id: timelineId,
    parent_branch_id: mainBranch,
  });
  await call("reasoning_timeline", {
    operation: "branch",
    timeline_id: timelineId,
    content: "Launch slips to May.",
    label: "slip",
  });
  // The compare result is the one that used to fail the SDK's check (z.tuple -> prefixItems + items: false).
  const compared = await call("reasoning_timeline", { operation: "compare", timeline_id: timelineId });
  expect((compared["comparison"] as { pairs: unknown[] }).pairs.length).toBeGreaterThanOrEqual(3);
  await call("reasoning_timeline", {
    operation: "merge",
    timeline_id: timelineId,
    source_branch_id: proposed["branch_id"],
    target_branch_id: mainBranch,
  });

  const mcts = await call("reasoning_mcts", {
    operation: "explore",
    content: "Choose a caching strategy.",
    iterations: 3,
    branching_factor: 2,
  });
  await call("reasoning_mcts", { operation: "auto_backtrack", session_id: mcts["session_id"] });

  const argument =
    "We already spent two years on this rewrite, so we cannot stop now. Either we finish it or the product dies. Our lead says it will work.";
  await call("reasoning_detect", { type: "biases", content: argument });
  await call("reasoning_detect", { type: "fallacies", content: argument, check_formal: "false" });

  await call("reasoning_decision", {
    type: "weighted",
    question: "Which database?",
    options: ["Postgres", "SQLite"],
    criteria: [
      { name: "cost", weight: 1, direction: "cost" },
      { name: "scale", weight: 2 },
    ],
    scores: [
      [6, 9],
      [1, 3],
    ],
  });
  await call("reasoning_decision", {
    type: "topsis",
    question: "Which database?",
    options: ["Postgres", "SQLite"],
    criteria: [
      { name: "cost", weight: 1, direction: "cost" },
      { name: "scale", weight: 2 },
    ],
    scores: [
      [6, 9],
      [1, 3],
    ],
  });
  await call("reasoning_decision", { question: "Which database?", options: ["Postgres", "SQLite"] });
  await call("reasoning_decision", { type: "pairwise", question: "How to commute?", options: ["rail", "bus", "car"] });
  await call("reasoning_decision", {
    type: "perspectives",
    topic: "A new tram line",
    stakeholders: [{ name: "City council" }],
  });

  await call("reasoning_evidence", {
    type: "probabilistic",
    hypothesis: "The key leaked",
    evidence: [
      { content: "Unknown logins", likelihood_if_true: 0.8, likelihood_if_false: 0.2 },
      { content: "A rumour" },
    ],
  });
  await call("reasoning_evidence", {
    type: "assess",
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

  const causal_model = {
    variables: ["demand", "ads", "sales"],
    relationships: [
      { cause: "demand", effect: "ads", strength: 1 },
      { cause: "ads", effect: "sales", strength: 2 },
    ],
  };
  await call("reasoning_counterfactual", {
    scenario: "A shop",
    intervention: "More ads",
    causal_model,
    intervention_target: { variable: "ads", change: 1 },
    narrate: true,
  });
  await call("reasoning_counterfactual", { scenario: "Remote work", intervention: "Two more remote days" });

  await call("reasoning_preset", { operation: "list" });
  await call("reasoning_preset", {
    operation: "run",
    preset_id: "code-review",
    inputs: { code: "function add(a, b) { return a - b; }" },
  });

  for (const query of ["summary", "by_mode", "invocations", "fallbacks", "config"])
    await call("reasoning_metrics", { query, limit: "5" });

  await call("list_reasoning_presets", {});
  const dialog = await call("start_reasoning_session", {
    topic: "Monolith or microservices?",
    maxIterations: "2",
    qualityThreshold: "0.9",
  });
  const dialogSession = dialog["session_id"] as string;
  for (let round = 0; round < 3; round += 1) {
    const exchanged = await call("run_reasoning_exchange", { session_id: dialogSession });
    if (exchanged["status"] !== "in_progress") break;
  }
  await call("get_session_status", { session_id: dialogSession });
  for (const format of ["markdown", "json", "structured"])
    await call("get_reasoning_result", { session_id: dialogSession, format });

  await call("listWorkflows", {});
  const chain = await call("startChainOfThought", { problem: "Build an auth system" });
  await call("startWorkflow", { workflow: "root_cause_analysis", inputs: { problem: "Builds got slow" } });
  let step = chain;
  for (let round = 0; round < 10 && step["status"] !== "complete"; round += 1)
    step = await call("submitThought", { state_id: chain["state_id"], thought: `Step ${round + 1} answered.` });
  expect(step["status"]).toBe("complete");
}
