import type { Invocation, Session } from "@deliberate/contracts";
import { createEngine, createSequentialIds, type DeliberateEngine } from "@deliberate/engine";
import { testStorePlace } from "@deliberate/engine/testing";
import { createModelRouterFromModel, type GenerateOptions } from "@deliberate/providers";
import { createScriptedModel } from "@deliberate/providers/testing";
import { getWorkflow, type ReasoningRepositories, reasoningModule } from "@deliberate/reasoning";
import { openStore, type Store } from "@deliberate/store";

/** The store with the reasoning module's repositories (branches, graphs, timelines, MCTS, workflow runs…). */
export type SeededStore = Store<ReasoningRepositories>;
import type { ViewerDataSource, ViewerSessionQuery } from "../src/viewer-data.ts";
import { dialogFixture, knowledgeGraphFixture } from "./module-fixtures.ts";

/** The seeded sessions' ids, by the kind of picture each should produce. */
export interface SeededSessionIds {
  linear: string;
  tree: string;
  divergent: string;
  graph: string;
  timeline: string;
  mcts: string;
  decision: string;
  evidence: string;
  counterfactual: string;
  checkpoints: string;
  dialog: string;
  knowledgeGraph: string;
  workflow: string;
  injection: string;
}

export interface SeededData {
  store: SeededStore;
  engine: DeliberateEngine;
  ids: SeededSessionIds;
  /** What a service hands to createViewerRoutes: the real engine and store behind it. */
  source: ViewerDataSource;
  /** Extra sections (module-owned) attached to a session, as a service's readSession would merge them. */
  sections: Map<string, Record<string, unknown>>;
  /** Moves the clock on (each write gets a later updated_at). */
  advance(milliseconds: number): void;
}

export const injectionText = '<script>window.__injected = true</script><img src=x onerror="window.__injected = true">';

/** A scripted model that answers each structured call by its schema name, deterministically. */
function scriptedAnswers(options: GenerateOptions<unknown>, callIndex: number): unknown {
  const prompt = options.messages[0]?.content ?? "";
  const criteria = (value: number) => ({
    relevance: value,
    validity: value,
    depth: Math.max(0, value - 0.1),
    novelty: Math.min(1, value + 0.05),
  });
  switch (options.schemaName) {
    case "linear_continuation":
      return prompt.includes("<script>")
        ? { content: `Echoing the input: ${injectionText}`, confidence: 0.4, next_step: "</textarea><b>not bold</b>" }
        : {
            content: `Step ${callIndex + 1}: therefore cache invalidation is the main risk.`,
            confidence: [0.55, 0.72, 0.9][callIndex % 3],
            next_step: "Check TTLs",
          };
    case "tree_branches":
      return {
        branches: [
          { content: "Path A: cache at the edge", score: 0.4 },
          { content: "Path B: cache in the service", score: 0.9 },
          { content: "Path C: no cache, faster queries", score: 0.2 },
        ],
        recommendation: "Start with B",
      };
    case "divergent_perspective": {
      const lens = /lens[^:]*:\s*([^\n]+)/i.exec(prompt)?.[1]?.slice(0, 40) ?? `lens ${callIndex}`;
      return {
        viewpoint: `Viewpoint ${callIndex + 1} (${lens})`,
        content: `Idea ${callIndex + 1}: onboarding could start from a working example.`,
        novelty_score: [0.3, 0.6, 0.85, 0.5][callIndex % 4],
      };
    }
    case "divergent_synthesis":
      return {
        challenged_assumptions: ["Users read the docs first", "Setup must be complete before use"],
        synthesis: "Lead with a runnable example, then explain.",
      };
    case "graph_continuation":
      return {
        content: `Continuation ${callIndex}: split the build into cached layers`,
        criteria: criteria([0.8, 0.5, 0.2, 0.65][callIndex % 4] as number),
      };
    case "graph_score":
      return { criteria: { relevance: 0.9, validity: 0.8, depth: 0.4, novelty: 0.3 }, rationale: "solid but familiar" };
    case "graph_aggregate":
      return { insight: "Cache dependencies and parallelise tests", criteria: criteria(0.85) };
    case "graph_refine":
      return { critique: "too vague", refined_content: "Cache node_modules by lockfile hash", criteria: criteria(0.9) };
    case "graph_finalize":
      return { conclusions: ["Cache by lockfile hash", "Parallelise the slow suites"] };
    case "mcts_expand": {
      const count = Number(/exactly (\d+)/.exec(prompt)?.[1] ?? 3);
      return { steps: Array.from({ length: count }, (_, index) => `Option ${index + 1} after call ${callIndex}`) };
    }
    case "mcts_evaluate":
      return { value: [0.2, 0.9, 0.5, 0.7, 0.4][callIndex % 5], reaches_conclusion: false, rationale: "scripted" };
    case "reflection_critique":
      return {
        quality_score: 0.5,
        strengths: ["clear"],
        weaknesses: ["thin"],
        recommendations: ["cite data"],
        refined_content: "Refined draft",
        refined_quality_score: 0.85,
      };
    default:
      throw new Error(`No scripted answer for schema ${options.schemaName}`);
  }
}

/**
 * Builds one session of every kind by running the real handlers against
 * in-memory SQLite (a fresh Postgres schema with DELIBERATE_TEST_ENGINE_DIALECT=postgres)
 * and the scripted model, and returns the data functions a
 * service would pass to the viewer. Module sections that are not in core yet
 * (dialog, knowledge graph, workflow progress) are attached to real sessions
 * in the documented shape; the workflow one is read from a real guided run.
 */
export async function seedSessions(): Promise<SeededData> {
  const store = await openStore<ReasoningRepositories>({ ...(await testStorePlace()), modules: [reasoningModule] });
  let now = new Date("2026-11-22T10:00:00.000Z").getTime();
  const clock = { now: () => new Date(now) };
  const advance = (milliseconds: number) => {
    now += milliseconds;
  };
  const model = createScriptedModel({ answer: scriptedAnswers, modelId: "scripted-sonnet" });
  const engine = createEngine({
    store,
    modules: [reasoningModule],
    models: createModelRouterFromModel(model),
    clock,
    ids: createSequentialIds(),
  });
  const invoke = async (tool: string, input: Record<string, unknown>) => {
    advance(60_000);
    return engine.invoke(tool, input);
  };

  const linear = await invoke("reasoning_linear", { content: "We should add a cache in front of the API." });
  const linearId = linear.session_id as string;
  await invoke("reasoning_linear", { content: "What about consistency?", session_id: linearId, confidence: 0.5 });

  const tree = await invoke("reasoning_tree", { content: "How to speed up the API?", num_branches: 3 });
  const treeId = tree.session_id as string;
  const branches = tree.branches as Array<{ id: string }>;
  await invoke("reasoning_tree", { operation: "focus", session_id: treeId, branch_id: branches[1]?.id });
  await invoke("reasoning_tree", {
    operation: "complete",
    session_id: treeId,
    branch_id: branches[2]?.id,
    completed: false,
  });

  const divergent = await invoke("reasoning_divergent", {
    content: "Rethink onboarding",
    num_perspectives: 4,
    challenge_assumptions: true,
  });

  const graph = await invoke("reasoning_graph", {
    operation: "init",
    content: "How do we cut build times?",
    problem: "CI takes 40 minutes",
  });
  const graphId = graph.session_id as string;
  const generated = await invoke("reasoning_graph", {
    operation: "generate",
    session_id: graphId,
    node_id: graph.node_id,
    k: 4,
  });
  const children = (generated.nodes as Array<{ id: string; parent_id: string | null }>)
    .filter((node) => node.parent_id === graph.node_id)
    .map((node) => node.id);
  await invoke("reasoning_graph", {
    operation: "aggregate",
    session_id: graphId,
    node_ids: [children[0], children[3]],
  });
  await invoke("reasoning_graph", { operation: "refine", session_id: graphId, node_id: children[1] });
  await invoke("reasoning_graph", { operation: "prune", session_id: graphId });

  const timeline = await invoke("reasoning_timeline", { operation: "create", content: "We launch in March." });
  const timelineId = timeline.timeline_id as string;
  const fast = await invoke("reasoning_timeline", {
    operation: "branch",
    timeline_id: timelineId,
    content: "We launch in January with fewer features.",
    label: "fast",
  });
  await invoke("reasoning_timeline", {
    operation: "branch",
    timeline_id: timelineId,
    parent_branch_id: timeline.branch_id,
    content: "We launch in June with every feature.",
    label: "slow",
  });
  await invoke("reasoning_timeline", {
    operation: "branch",
    timeline_id: timelineId,
    parent_branch_id: fast.branch_id,
    content: "We launch in December.",
    label: "faster",
  });
  await invoke("reasoning_timeline", {
    operation: "merge",
    timeline_id: timelineId,
    source_branch_id: fast.branch_id,
    target_branch_id: timeline.branch_id,
    merge_strategy: "interleave",
  });

  const mcts = await invoke("reasoning_mcts", {
    operation: "explore",
    content: "Plan the migration",
    iterations: 8,
    branching_factor: 3,
  });

  const decision = await invoke("reasoning_decision", {
    type: "weighted",
    question: "Which database?",
    options: ["Postgres", "SQLite", "MySQL"],
    criteria: [
      { name: "cost", weight: 2, direction: "cost" },
      { name: "scale", weight: 3 },
    ],
    scores: [
      [3, 9],
      [1, 5],
      [2, 7],
    ],
  });

  const evidence = await invoke("reasoning_evidence", {
    type: "probabilistic",
    hypothesis: "The outage was caused by the deploy",
    prior: 0.3,
    evidence: [
      { content: "Errors began 2 minutes after the deploy", likelihood_if_true: 0.8, likelihood_if_false: 0.2 },
      { content: "Rollback reduced errors", likelihood_if_true: 0.6, likelihood_if_false: 0.3 },
      { content: "Another region without the deploy was fine", likelihood_if_true: 0.7, likelihood_if_false: 0.4 },
    ],
  });

  const counterfactual = await invoke("reasoning_counterfactual", {
    scenario: "A shop deciding its ad budget",
    intervention: "Spend one more unit on ads",
    analysis_depth: "intervention",
    causal_model: {
      variables: ["demand", "ads", "sales", "profit"],
      relationships: [
        { cause: "demand", effect: "ads", strength: 1 },
        { cause: "demand", effect: "sales", strength: 1 },
        { cause: "ads", effect: "sales", strength: 2 },
        { cause: "sales", effect: "profit", strength: 0.5 },
      ],
    },
    intervention_target: { variable: "ads", change: 1 },
  });

  const checkpointed = await invoke("reasoning_linear", { content: "Draft the rollout plan." });
  const checkpointsId = checkpointed.session_id as string;
  const first = await invoke("reasoning_checkpoint", {
    operation: "create",
    session_id: checkpointsId,
    name: "before canary",
    description: "Plan agreed",
  });
  await invoke("reasoning_linear", { content: "Canary in one region.", session_id: checkpointsId });
  await invoke("reasoning_checkpoint", { operation: "create", session_id: checkpointsId, name: "after canary" });
  // Back to before the canary: the canary's thoughts are set aside (superseded), and a new direction is recorded.
  await invoke("reasoning_checkpoint", {
    operation: "restore",
    session_id: checkpointsId,
    checkpoint_id: first.checkpoint_id,
    new_direction: "Roll out to all regions",
  });

  const injection = await invoke("reasoning_linear", { content: injectionText });
  await store.checkpoints.create({
    id: "cp_injection",
    session_id: injection.session_id as string,
    name: injectionText,
    description: "<b>bold?</b>",
    thought_count: 2,
    snapshot: {},
    now: clock.now().toISOString(),
  });

  // Module sections: dialog and knowledge graph in their documented shapes, on real sessions.
  advance(60_000);
  await store.sessions.create({ id: "ses_dialog", mode: "dialog", now: clock.now().toISOString() });
  advance(60_000);
  await store.sessions.create({ id: "ses_knowledge", mode: "knowledge_graph", now: clock.now().toISOString() });

  // Guided workflow progress, from a real run of the chain-of-thought workflow.
  const workflowStart = await invoke("startChainOfThought", { problem: "Build an auth system" });
  await invoke("submitThought", { state_id: workflowStart.state_id, thought: "1. Users 2. Tokens 3. Middleware" });
  const run = await store.workflowRuns.get(workflowStart.state_id as string);
  const definition = getWorkflow(run.workflow);
  advance(60_000);
  await store.sessions.create({ id: "ses_workflow", mode: "workflow", now: clock.now().toISOString() });

  const sections = new Map<string, Record<string, unknown>>([
    ["ses_dialog", { dialog: dialogFixture }],
    ["ses_knowledge", { knowledge_graph: knowledgeGraphFixture }],
    [
      "ses_workflow",
      {
        workflow: {
          runs: [
            {
              ...run,
              title: definition.title,
              steps: definition.steps.map((step) => ({
                id: step.id,
                title: step.title,
                expecting: step.expecting,
                save_as: step.saveAs,
              })),
            },
          ],
        },
      },
    ],
  ]);

  const ids: SeededSessionIds = {
    linear: linearId,
    tree: treeId,
    divergent: divergent.session_id as string,
    graph: graphId,
    timeline: timeline.session_id as string,
    mcts: mcts.session_id as string,
    decision: decision.session_id as string,
    evidence: evidence.session_id as string,
    counterfactual: counterfactual.session_id as string,
    checkpoints: checkpointsId,
    dialog: "ses_dialog",
    knowledgeGraph: "ses_knowledge",
    workflow: "ses_workflow",
    injection: injection.session_id as string,
  };

  return { store, engine, ids, sections, advance, source: createSeededSource(store, engine, sections) };
}

/** The data functions a service passes to the viewer, over a real store and engine. */
export function createSeededSource(
  store: SeededStore,
  engine: DeliberateEngine,
  sections: Map<string, Record<string, unknown>>,
): ViewerDataSource {
  return {
    async listSessions(query: ViewerSessionQuery): Promise<Session[]> {
      // The store lists newest first; the filters a service would push into SQL are applied here.
      const all = await store.sessions.list({ limit: 10_000 });
      const invocations = query.tool === undefined ? [] : await store.invocations.list({ tool: query.tool });
      const withTool = new Set(invocations.map((invocation) => invocation.session_id));
      const search = query.search?.toLowerCase();
      const matching: Session[] = [];
      for (const session of all) {
        if (query.kind !== undefined && session.mode !== query.kind) continue;
        if (query.tool !== undefined && !withTool.has(session.id)) continue;
        if (search !== undefined) {
          const thoughts = await store.thoughts.listBySession(session.id);
          const haystack = [session.id, session.mode, ...thoughts.map((thought) => thought.content)]
            .join("\n")
            .toLowerCase();
          if (!haystack.includes(search)) continue;
        }
        matching.push(session);
      }
      return matching.slice(query.offset, query.offset + query.limit);
    },
    async readSession(sessionId: string) {
      const record = await engine.readSession(sessionId);
      return { ...record, ...(sections.get(sessionId) ?? {}) };
    },
    async listInvocations(sessionId: string): Promise<Invocation[]> {
      return store.invocations.list({ sessionId });
    },
  };
}
