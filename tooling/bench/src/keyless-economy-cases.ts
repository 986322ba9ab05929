import { schemaViolations, answerFromSchema } from "@deliberate/engine/testing";
import { answerDialogPrompt } from "@deliberate/dialog/testing";
import { answerFor as knowledgeGraphAnswer, scenarioDomainKnowledge } from "@deliberate/knowledge-graph/testing";
import type { PendingPrompt } from "@deliberate/contracts";

// The calls the keyless-economy bench drives: every model-backed tool of the built-in modules (its common
// operations), the five built-in presets and a default dialog session. `minimumRounds` is the call's chain of
// dependent model calls: what no host, however fast, can take fewer rounds than.

/** Runs one call to its end (answering every step) and returns its result. */
export type RunCall = (tool: string, args: Record<string, unknown>) => Promise<Record<string, unknown>>;

export interface KeylessCase {
  label: string;
  tool: string;
  args: Record<string, unknown> | ((setup: Record<string, unknown>) => Record<string, unknown>);
  /** Calls made first (not measured), e.g. a session to continue. */
  setup?: (run: RunCall) => Promise<Record<string, unknown>>;
  minimumRounds: number;
  preset?: boolean;
}

/** Free text in answers at a realistic length (a sentence or two), so history carried by later prompts weighs what it would. */
const answerText =
  "This follows because the cache sits in front of the only slow dependency, so its hit rate bounds the latency gain; a miss costs one extra lookup.";

function lengthen(value: unknown, schema: Record<string, unknown> | undefined): unknown {
  if (typeof value === "string") {
    if (schema !== undefined && (Array.isArray(schema["enum"]) || "const" in schema)) return value;
    const maxLength = typeof schema?.["maxLength"] === "number" ? schema["maxLength"] : Number.POSITIVE_INFINITY;
    return `${value}: ${answerText}`.slice(0, maxLength);
  }
  if (Array.isArray(value))
    return value.map((item) => lengthen(item, schema?.["items"] as Record<string, unknown> | undefined));
  if (value !== null && typeof value === "object") {
    const properties = (schema?.["properties"] ?? {}) as Record<string, Record<string, unknown>>;
    const extra = schema?.["additionalProperties"] as Record<string, unknown> | undefined;
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, lengthen(item, properties[key] ?? extra)]),
    );
  }
  return value;
}

/**
 * The scripted host: a schema-following answer with free text at a realistic length; the counterfactual's
 * variables on two levels (so it takes its longest path), the dialog's and the knowledge graph's answers
 * from their modules' scripted worlds. Every answer is checked against its published schema.
 */
export function scriptedHostAnswer(prompt: PendingPrompt): unknown {
  let answer: unknown;
  if (prompt.name.startsWith("dialog_")) {
    answer = answerDialogPrompt({
      schemaName: prompt.name,
      system: prompt.system,
      user: prompt.user,
      jsonSchema: prompt.schema,
    });
  } else if (prompt.name.startsWith("knowledge_graph_")) {
    answer = knowledgeGraphAnswer(prompt.name, prompt.user);
  } else {
    const plain = answerFromSchema(prompt.schema) as Record<string, unknown>;
    if (prompt.name === "counterfactual_variables") {
      const others = plain["other_variables"] as Array<{ name: string; level: number }>;
      plain["other_variables"] = others.map((variable) => ({ ...variable, level: 1 }));
      if (plain["intervention_target"] !== undefined)
        plain["intervention_target"] = { ...(plain["intervention_target"] as object), level: 0 };
    }
    answer = lengthen(plain, prompt.schema);
  }
  const violations = schemaViolations(prompt.schema, answer);
  if (violations !== undefined)
    throw new Error(`the scripted host's answer to ${prompt.name} does not match its schema: ${violations}`);
  return answer;
}

const withSession = async (run: RunCall) => ({
  session_id: (await run("reasoning_linear", { content: "Cache the config" }))["session_id"],
});
const withGraph = async (run: RunCall) => {
  const init = await run("reasoning_graph", { operation: "init", content: "Speed up CI" });
  const generated = await run("reasoning_graph", { operation: "generate", session_id: init["session_id"], k: 2 });
  return {
    session_id: init["session_id"],
    nodes: (generated["nodes"] as Array<{ id: string }>).map((node) => node.id),
  };
};
const withTimeline = async (run: RunCall) => {
  const created = await run("reasoning_timeline", { operation: "create", content: "Launch in March" });
  const branch = await run("reasoning_timeline", {
    operation: "branch",
    timeline_id: created["timeline_id"],
    content: "Launch in January",
  });
  return { timeline_id: created["timeline_id"], main: created["branch_id"], branch: branch["branch_id"] };
};

/** Every model-backed tool, one call each (the dependent chains as host-rounds.test.ts asserts them). */
export const toolCases: KeylessCase[] = [
  { label: "reasoning_linear", tool: "reasoning_linear", args: { content: "Add a cache" }, minimumRounds: 1 },
  {
    label: "reasoning_tree create",
    tool: "reasoning_tree",
    args: { content: "Speed up the build", num_branches: 3 },
    minimumRounds: 1,
  },
  {
    label: "reasoning_divergent",
    tool: "reasoning_divergent",
    args: { content: "Onboarding", num_perspectives: 3 },
    minimumRounds: 2,
  },
  {
    label: "reasoning_reflection (2 iterations)",
    tool: "reasoning_reflection",
    args: { content: "Draft plan", max_iterations: 2, quality_threshold: 0.9 },
    minimumRounds: 5,
  },
  {
    label: "reasoning_reflection evaluate",
    tool: "reasoning_reflection",
    setup: withSession,
    args: (setup) => ({ operation: "evaluate", session_id: setup["session_id"] }),
    minimumRounds: 1,
  },
  {
    label: "reasoning_auto",
    tool: "reasoning_auto",
    args: { content: "What follows from a cache?" },
    minimumRounds: 2,
  },
  {
    label: "reasoning_mcts (6 iterations)",
    tool: "reasoning_mcts",
    args: { content: "Find the root cause", iterations: 6, simulation_depth: 3 },
    minimumRounds: 6,
  },
  {
    label: "reasoning_graph generate k=3",
    tool: "reasoning_graph",
    setup: withGraph,
    args: (setup) => ({ operation: "generate", session_id: setup["session_id"], k: 3 }),
    minimumRounds: 1,
  },
  {
    label: "reasoning_graph score",
    tool: "reasoning_graph",
    setup: withGraph,
    args: (setup) => ({ operation: "score", session_id: setup["session_id"], node_ids: setup["nodes"] }),
    minimumRounds: 1,
  },
  {
    label: "reasoning_graph aggregate",
    tool: "reasoning_graph",
    setup: withGraph,
    args: (setup) => ({ operation: "aggregate", session_id: setup["session_id"], node_ids: setup["nodes"] }),
    minimumRounds: 1,
  },
  {
    label: "reasoning_graph finalize",
    tool: "reasoning_graph",
    setup: withGraph,
    args: (setup) => ({ operation: "finalize", session_id: setup["session_id"] }),
    minimumRounds: 1,
  },
  {
    label: "reasoning_timeline branch",
    tool: "reasoning_timeline",
    setup: withTimeline,
    args: (setup) => ({ operation: "branch", timeline_id: setup["timeline_id"] }),
    minimumRounds: 1,
  },
  {
    label: "reasoning_timeline compare",
    tool: "reasoning_timeline",
    setup: withTimeline,
    args: (setup) => ({ operation: "compare", timeline_id: setup["timeline_id"] }),
    minimumRounds: 1,
  },
  {
    label: "reasoning_timeline merge",
    tool: "reasoning_timeline",
    setup: withTimeline,
    args: (setup) => ({
      operation: "merge",
      timeline_id: setup["timeline_id"],
      source_branch_id: setup["branch"],
      target_branch_id: setup["main"],
      merge_strategy: "synthesize",
    }),
    minimumRounds: 1,
  },
  {
    label: "reasoning_detect biases",
    tool: "reasoning_detect",
    args: { type: "biases", content: "Everyone uses it, so it must be right." },
    minimumRounds: 1,
  },
  {
    label: "reasoning_decision weighted",
    tool: "reasoning_decision",
    args: { options: ["A", "B"], criteria: [{ name: "cost", weight: 1, direction: "cost" }] },
    minimumRounds: 1,
  },
  {
    label: "reasoning_decision pairwise",
    tool: "reasoning_decision",
    args: { type: "pairwise", options: ["A", "B", "C"] },
    minimumRounds: 1,
  },
  {
    label: "reasoning_decision perspectives",
    tool: "reasoning_decision",
    args: { type: "perspectives", topic: "Layoffs" },
    minimumRounds: 1,
  },
  {
    label: "reasoning_evidence probabilistic",
    tool: "reasoning_evidence",
    args: {
      type: "probabilistic",
      hypothesis: "The deploy broke it",
      evidence: [{ content: "errors began at deploy" }, { content: "no config change" }],
    },
    minimumRounds: 1,
  },
  {
    label: "reasoning_evidence assess",
    tool: "reasoning_evidence",
    args: { claim: "The server rebooted", evidence: [{ content: "syslog" }, { content: "a tweet" }] },
    minimumRounds: 1,
  },
  {
    label: "reasoning_counterfactual",
    tool: "reasoning_counterfactual",
    args: { scenario: "Prices flat", intervention: "Raise prices" },
    minimumRounds: 3,
  },
  {
    label: "reasoning_execute_task deductive",
    tool: "reasoning_execute_task",
    args: {
      taskId: "bench",
      reasoningType: "deductive",
      goalQuery: "Is Alice an ancestor of Dave?",
      contextData: { domainKnowledge: scenarioDomainKnowledge },
    },
    // Extraction, then rules over what was extracted, then the answer from what code deduced.
    minimumRounds: 3,
  },
];

/** The five built-in presets, with their inputs as in host-rounds.test.ts; minimum = the preset's dependent chain. */
export const presetCases: KeylessCase[] = [
  { label: "code-review", inputs: { code: "function parse(t) { return JSON.parse(t) }" }, minimumRounds: 8 },
  { label: "debug-analysis", inputs: { problem: "Requests time out at noon" }, minimumRounds: 16 },
  {
    label: "architecture-decision",
    inputs: { question: "Monolith or services?", options: ["monolith", "services"] },
    minimumRounds: 11,
  },
  { label: "risk-assessment", inputs: { subject: "Migrate the database in one weekend" }, minimumRounds: 11 },
  {
    label: "research-synthesis",
    inputs: {
      question: "Does caching halve latency?",
      sources: [{ content: "Benchmark: -48% p50", source_type: "primary" }, { content: "Vendor blog: -50%" }],
    },
    minimumRounds: 9,
  },
].map(({ label, inputs, minimumRounds }) => ({
  label,
  tool: "reasoning_preset",
  args: { operation: "run", preset_id: label, inputs },
  minimumRounds,
  preset: true,
}));
