import { createHostContext, expandNeedsCompletion, needsCompletionSchema } from "@deliberate/contracts";
import { answerJsonSchema, composeModules, type DeliberateEngine, hostModelRouter } from "@deliberate/engine";
import { createTestEngine, randomSchemaAnswer, schemaViolations } from "@deliberate/engine/testing";
import type { GenerateOptions, LanguageModel, ModelRouter } from "@deliberate/providers";
import { createScriptedModel } from "@deliberate/providers/testing";
import { afterAll, describe, expect, it } from "vitest";
import type { z } from "zod";
import { agentIntentModule } from "../src/agent-intent-module.ts";
import { defaultModules } from "@deliberate/runtime";
import type { DeliberateModule } from "@deliberate/engine";

/**
 * Following the schema is enough, for every mode of every built-in module
 * (reasoning, dialog, agent-intent, knowledge graph). Each answer schema is
 * built per call from the call's input, so the modes are reached the way a
 * caller reaches them: by running the tools on sampled inputs. The model
 * answering them tries `samplesPerCall` random answers valid against the
 * JSON Schema it is given (json-schema-faker, honouring `pattern`, confirmed
 * by Ajv) and counts how many the mode's validator accepts: it must be all of
 * them. It answers with the first accepted one, so the run goes on to the
 * modes that depend on it.
 *
 * The same runs are then driven keyless (host-executed, the calling agent
 * answering the prompts): each prompt must carry the very schema (ids aside),
 * system prompt and request the server-side model got, and the answers that
 * satisfied the server must finish every call keyless, none refused.
 * (Round counts: `packages/reasoning/src/host-rounds.test.ts`.)
 *
 * PRINT_SCHEMA_ACCEPTANCE=1 prints the rate of every answer schema.
 */

/** Mode ids registered for their settings that no answer schema uses (asserted: none of them is ever asked). */
const settingsOnlyModes = new Set(["checkpoint"]);

const samplesPerCall = 8;

/**
 * Where a mode is only reached on some answers of an earlier one, the earlier answer is steered there (after
 * its random samples were measured): a long document makes a dialog summarise (dialog_summariser), and
 * near-duplicate entity names make the graph ask which are the same (knowledge_graph_resolve). A steered
 * answer must still be valid against the schema and accepted, or the test fails.
 */
const steered: Record<string, (answer: Record<string, unknown>) => Record<string, unknown>> = {
  dialog_document: (answer) => ({
    ...answer,
    document: `# Plan\n\n${"The service keeps one database and one deploy pipeline. ".repeat(60)}`,
  }),
  knowledge_graph_extraction: (answer) => ({
    ...answer,
    entities: [
      { name: "Acme Corp", type: "organization", observations: ["makes widgets"] },
      { name: "ACME corp.", type: "organization", observations: ["based in Lyon"] },
      { name: "Acme", type: "organization", observations: [] },
      { name: "Acme Corporation", type: "organization", observations: [] },
      { name: "Lyon", type: "place", observations: [] },
      { name: "Lyon city", type: "place", observations: [] },
    ],
    relations: [{ subject: "Acme", predicate: "located_in", object: "Lyon", confidence: 1 }],
  }),
};

interface Tally {
  mode: string;
  calls: number;
  generated: number;
  accepted: number;
  rejected: Array<{ answer: unknown; issues: string[] }>;
}

/** One structured call the server-side model answered: ids canonical (see `canonicalIds`), text loose (ids as `<id>`). */
interface Recorded {
  system: string;
  /** The request (the call's last message), ids loose. */
  request: string;
  schema: string;
  answer: string;
}

const idPattern = /\b[a-z]{1,8}_(?:\d{1,6}|[0-9a-z]{20})\b/g;
const loose = (text: string) => text.replace(idPattern, "<id>");

/**
 * Record ids (`tb_3` server-side, `tb_mi2k0c4e1f9a3b7d2c6e` keyless, where ids are drawn anew on every replay)
 * renamed `<id1>`, `<id2>`… in order of first appearance in a schema, so a schema and its answer compare across
 * engines; `restore` maps the placeholders back to this engine's ids.
 */
function canonicalIds(schema: string): { canonical: (text: string) => string; restore: (text: string) => string } {
  const names = new Map<string, string>();
  for (const match of schema.matchAll(idPattern))
    if (!names.has(match[0])) names.set(match[0], `<id${names.size + 1}>`);
  const back = new Map([...names].map(([id, name]) => [name, id]));
  return {
    canonical: (text) => text.replace(idPattern, (id) => names.get(id) ?? id),
    restore: (text) => text.replace(/<id\d+>/g, (name) => back.get(name) ?? name),
  };
}

const tallies = new Map<string, Tally>();
/** What the server-side model was asked and answered, by schema name. */
const recorded = new Map<string, Recorded[]>();
const askedModes = new Set<string>();

function fnv(text: string): number {
  let hash = 2166136261;
  for (let index = 0; index < text.length; index += 1) hash = Math.imul(hash ^ text.charCodeAt(index), 16777619) >>> 0;
  return hash % 1_000_000;
}

/** A model for `mode` that measures each schema it is given and answers with the first random answer its validator accepts. */
function fuzzingModel(mode: string): LanguageModel {
  return createScriptedModel(async (call: GenerateOptions) => {
    const name = call.schemaName ?? "(text)";
    const schema = call.schema as z.ZodType | undefined;
    if (schema === undefined)
      throw new Error(`mode ${mode} asked for text (${name}); every mode answers with structured output`);
    askedModes.add(mode);
    const published = answerJsonSchema(schema);
    const request = call.messages.at(-1)?.content ?? "";
    const ids = canonicalIds(JSON.stringify(published));
    // Seeded by the request alone: concurrent steps may reach the session history in any order.
    const key = `${name}\n${loose(typeof request === "string" ? request : JSON.stringify(request))}`;
    const tally = tallies.get(name) ?? { mode, calls: 0, generated: 0, accepted: 0, rejected: [] };
    tallies.set(name, tally);
    tally.calls += 1;
    let chosen: unknown;
    let first: unknown;
    for (let index = 0; index < samplesPerCall; index += 1) {
      const answer = await randomSchemaAnswer(published, fnv(key) + index);
      if (index === 0) first = answer;
      tally.generated += 1;
      const result = schema.safeParse(answer);
      if (result.success) {
        tally.accepted += 1;
        if (chosen === undefined) chosen = answer;
      } else if (tally.rejected.length < 3) {
        tally.rejected.push({
          answer,
          issues: result.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`),
        });
      }
    }
    let answer = chosen ?? first;
    const steer = steered[name];
    if (steer !== undefined && chosen !== undefined) {
      answer = steer(chosen as Record<string, unknown>);
      const violations = schemaViolations(published, answer);
      if (violations !== undefined || !schema.safeParse(answer).success)
        throw new Error(`the steered answer to ${name} is not a valid, accepted answer: ${violations ?? "refused"}`);
    }
    const calls = recorded.get(name) ?? [];
    recorded.set(name, calls);
    calls.push({
      system: withoutGrader(call.system),
      request: loose(typeof request === "string" ? request : JSON.stringify(request)),
      schema: ids.canonical(JSON.stringify(published)),
      answer: ids.canonical(JSON.stringify(answer)),
    });
    return answer;
  });
}

function fuzzingRouter(): ModelRouter {
  const models = new Map<string, LanguageModel>();
  return {
    provider: "scripted",
    configured: true,
    forMode(mode: string): LanguageModel {
      let model = models.get(mode);
      if (model === undefined) {
        model = fuzzingModel(mode);
        models.set(mode, model);
      }
      return model;
    },
  };
}

type Run = (tool: string, args: Record<string, unknown>) => Promise<Record<string, unknown>>;

/** A call's arguments may use what earlier calls of the same scenario returned. */
interface Scenario {
  label: string;
  run: (call: Run) => Promise<void>;
}

const id = (result: Record<string, unknown>, field: string) => result[field] as string;

const scenarios: Scenario[] = [
  {
    label: "linear",
    run: async (call) => void (await call("reasoning_linear", { content: "We must pick a database." })),
  },
  {
    label: "tree",
    run: async (call) => void (await call("reasoning_tree", { content: "Options for storage", num_branches: 3 })),
  },
  {
    label: "divergent",
    run: async (call) =>
      void (await call("reasoning_divergent", {
        content: "Rethink onboarding",
        num_perspectives: 3,
        challenge_assumptions: true,
      })),
  },
  {
    label: "reflection",
    run: async (call) => {
      const first = await call("reasoning_reflection", {
        operation: "process",
        content: "Draft plan",
        max_iterations: 2,
        quality_threshold: 0.95,
      });
      await call("reasoning_reflection", { operation: "evaluate", session_id: id(first, "session_id") });
    },
  },
  {
    label: "auto",
    run: async (call) => void (await call("reasoning_auto", { content: "What if we had cached the build?" })),
  },
  {
    label: "graph",
    run: async (call) => {
      const init = await call("reasoning_graph", { operation: "init", content: "Cut CI time in half." });
      const session = id(init, "session_id");
      const generated = await call("reasoning_graph", { operation: "generate", session_id: session, k: 3 });
      const nodes = (generated["nodes"] as Array<{ id: string }>).map((node) => node.id);
      await call("reasoning_graph", { operation: "score", session_id: session, node_ids: nodes });
      await call("reasoning_graph", { operation: "aggregate", session_id: session, node_ids: nodes.slice(0, 2) });
      await call("reasoning_graph", { operation: "refine", session_id: session, node_id: nodes[2] });
      await call("reasoning_graph", { operation: "finalize", session_id: session });
    },
  },
  {
    label: "timeline",
    run: async (call) => {
      const created = await call("reasoning_timeline", {
        operation: "create",
        content: "Kickoff.\n\nLaunch in March.",
      });
      const timeline = id(created, "timeline_id");
      const proposed = await call("reasoning_timeline", { operation: "branch", timeline_id: timeline });
      await call("reasoning_timeline", {
        operation: "branch",
        timeline_id: timeline,
        content: "Launch slips to May.",
        label: "slip",
      });
      await call("reasoning_timeline", { operation: "compare", timeline_id: timeline });
      await call("reasoning_timeline", {
        operation: "merge",
        timeline_id: timeline,
        source_branch_id: id(proposed, "branch_id"),
        target_branch_id: id(created, "branch_id"),
      });
      const other = await call("reasoning_timeline", {
        operation: "branch",
        timeline_id: timeline,
        content: "Launch in April.",
        label: "april",
      });
      await call("reasoning_timeline", {
        operation: "merge",
        timeline_id: timeline,
        source_branch_id: id(other, "branch_id"),
        target_branch_id: id(created, "branch_id"),
        merge_strategy: "prefer_source",
      });
    },
  },
  {
    label: "mcts",
    run: async (call) =>
      void (await call("reasoning_mcts", {
        operation: "explore",
        content: "Choose a caching strategy.",
        iterations: 4,
        branching_factor: 2,
      })),
  },
  {
    label: "detect",
    run: async (call) => {
      const argument =
        "We already spent two years on this rewrite, so we cannot stop now. Either we finish it or the product dies.";
      await call("reasoning_detect", { type: "biases", content: argument });
      await call("reasoning_detect", { type: "fallacies", content: argument });
    },
  },
  {
    label: "decision",
    run: async (call) => {
      await call("reasoning_decision", { question: "Which database?", options: ["Postgres", "SQLite", "DuckDB"] });
      await call("reasoning_decision", {
        type: "topsis",
        question: "Which database?",
        options: ["Postgres", "SQLite"],
        criteria: [{ name: "cost", direction: "cost" }, { name: "scale" }],
      });
      await call("reasoning_decision", {
        type: "pairwise",
        question: "How to commute?",
        options: ["rail", "bus", "car", "bike"],
      });
      await call("reasoning_decision", { type: "perspectives", topic: "A new tram line" });
      await call("reasoning_decision", {
        type: "perspectives",
        topic: "A new tram line",
        stakeholders: [{ name: "City council" }, { name: "Residents", power_level: 0.3 }],
      });
    },
  },
  {
    label: "evidence",
    run: async (call) => {
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
          { content: "Inspection report", source_type: "primary" },
          { content: "Forum post" },
          { content: "A photo" },
        ],
      });
    },
  },
  {
    label: "counterfactual",
    run: async (call) => {
      await call("reasoning_counterfactual", { scenario: "Remote work", intervention: "Two more remote days" });
      await call("reasoning_counterfactual", {
        scenario: "A cafe",
        intervention: "Raise prices",
        analysis_depth: "counterfactual",
        intervention_target: { variable: "price", change: 2 },
        observed: { price: 4, sales: 100 },
      });
      const causal_model = {
        variables: ["demand", "ads", "sales"],
        relationships: [
          { cause: "demand", effect: "ads" },
          { cause: "ads", effect: "sales", strength: 2 },
        ],
      };
      await call("reasoning_counterfactual", { scenario: "A shop", intervention: "More ads", causal_model });
    },
  },
  ...(
    [
      ["code-review", { code: "function add(a, b) { return a - b; }" }],
      ["debug-analysis", { problem: "Requests time out at noon" }],
      ["architecture-decision", { question: "Monolith or services?", options: ["monolith", "services"] }],
      ["risk-assessment", { subject: "Migrate the database in one weekend" }],
      [
        "research-synthesis",
        {
          question: "Does caching halve latency?",
          sources: [{ content: "Benchmark: -48% p50", source_type: "primary" }, { content: "Vendor blog: -50%" }],
        },
      ],
    ] as const
  ).map(([preset, inputs]) => ({
    label: `preset ${preset}`,
    run: async (call: Run) => {
      const result = await call("reasoning_preset", { operation: "run", preset_id: preset, inputs });
      expect(
        (result["execution_result"] as { status: string }).status,
        JSON.stringify(result["execution_result"]).slice(0, 600),
      ).toBe("completed");
    },
  })),
  {
    label: "dialog",
    run: async (call) => {
      for (const mode of ["objective_refinement", "synthesis"]) {
        const started = await call("start_reasoning_session", {
          topic: "Monolith or microservices?",
          mode,
          maxIterations: 3,
          qualityThreshold: 0.99,
          contextBudgetTokens: 2200,
        });
        for (let round = 0; round < 4; round += 1) {
          const exchanged = await call("run_reasoning_exchange", { session_id: id(started, "session_id") });
          if (exchanged["status"] !== "in_progress") break;
        }
      }
    },
  },
  {
    label: "agent intent",
    run: async (call) => {
      const tools = [
        {
          name: "context.fts_search",
          description: "Full-text search",
          input_schema: {
            type: "object",
            properties: { query: { type: "string", minLength: 1 } },
            required: ["query"],
          },
        },
        {
          name: "fs.read_file",
          description: "Reads a file",
          input_schema: {
            type: "object",
            properties: {
              path: { type: "string", pattern: "^[a-z/._-]+$" },
              lines: { type: "integer", minimum: 1, maximum: 500 },
            },
            required: ["path"],
            additionalProperties: false,
          },
        },
      ];
      await call("agent_intent_decide", { goal_text: "Find the auth logic", tools, history: [] });
    },
  },
  {
    label: "knowledge graph",
    run: async (call) => {
      const domainKnowledge =
        "Alice is Bob's parent. Bob is Carol's parent. Every parent of a parent is a grandparent. Alice, Bob and Carol live in Paris.";
      for (const reasoningType of ["deductive", "inductive", "abductive", "planAndExecuteCoT"]) {
        await call("reasoning_execute_task", {
          taskId: `kg-${reasoningType}`,
          reasoningType,
          goalQuery: "Is Alice Carol's grandparent?",
          contextData: { domainKnowledge },
        });
      }
      for (const variation of ["selfConsistency", "selfAsk", "treeOfThoughts_basic"]) {
        await call("reasoning_execute_task", {
          taskId: `kg-${variation}`,
          reasoningType: "deductive",
          goalQuery: "Where does Carol live?",
          contextData: { domainKnowledge },
          preferredCoTVariation: variation,
        });
      }
    },
  },
];

/**
 * A call that ended as the spec's `status: "failed"` (how the knowledge graph reports a model that
 * refused every answer, among other failures) failed as surely as one that threw.
 */
function succeeded(tool: string, result: Record<string, unknown>): Record<string, unknown> {
  if (result["status"] === "failed")
    throw new Error(`${tool} ended with status "failed": ${JSON.stringify(result["error"] ?? result).slice(0, 600)}`);
  return result;
}

/** Runs a tool server-side: a thrown error or a failed result fails the scenario. */
function serverRun(engine: DeliberateEngine): Run {
  return async (tool, args) => succeeded(tool, await engine.invoke(tool, args));
}

/** Runs a tool keyless: answers every prompt with what the server-side model answered to the same prompt. */
function hostRun(engine: DeliberateEngine, problems: string[]): Run {
  return async (tool, args) => succeeded(tool, await driveKeyless(engine, problems, tool, args));
}

/**
 * A dialog reviewer is told who grades: the server's model ("Your scores decide when the session stops") or,
 * keyless, the calling client (`graded_by`). That sentence alone may differ between the two runs.
 */
function withoutGrader(system: string): string {
  return system.replace(
    /Your scores decide when the session stops\.|Judge as an independent reviewer would[\s\S]*?\(graded_by: [a-z_]+\), not by an independent reviewer\./,
    "<grader>",
  );
}

async function driveKeyless(
  engine: DeliberateEngine,
  problems: string[],
  tool: string,
  args: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  {
    let result = await engine.invoke(tool, args);
    // The host keeps what each step of the call sent: later steps name blocks by id.
    const known = createHostContext();
    while (result["status"] === "needs_completion") {
      const step = needsCompletionSchema.parse(result);
      const answers = expandNeedsCompletion(step, known).map((prompt) => {
        // The session history before the request may list concurrent steps in another order keyless; the request must match.
        const text = loose(prompt.user);
        const ids = canonicalIds(JSON.stringify(prompt.schema));
        const schema = ids.canonical(JSON.stringify(prompt.schema));
        const asked = (recorded.get(prompt.name) ?? []).filter((call) => text.endsWith(call.request));
        // Several agents (dialog) may get the same request under their own system prompts.
        const seen = asked.find((call) => call.schema === schema && call.system === withoutGrader(prompt.system));
        if (seen === undefined) {
          const why =
            asked.length === 0
              ? "was never asked of the server-side model"
              : asked.some((call) => call.schema === schema)
                ? "has a keyless system prompt that differs"
                : "has a keyless schema that differs";
          problems.push(`${tool}: ${prompt.name} ${why}:\n${prompt.user.slice(-400)}`);
          throw new Error(problems.at(-1));
        }
        return { prompt_id: prompt.id, answer: JSON.parse(ids.restore(seen.answer)) as unknown };
      });
      result = await engine.invoke("reasoning_submit", { resume_token: step.resume_token, answers });
    }
    return result;
  }
}

const modules = defaultModules({
  knowledgeGraph: { stateSecret: "acceptance test secret" },
  serviceModules: [agentIntentModule as DeliberateModule],
});

describe("every mode of every built-in module accepts every answer valid against the schema it publishes", () => {
  const opened: Array<{ store: { close(): Promise<void> } }> = [];
  afterAll(async () => {
    await Promise.all(opened.map((testEngine) => testEngine.store.close()));
  });

  it.each(scenarios)("$label: server-side and keyless", { timeout: 240_000 }, async ({ run }) => {
    const server = await createTestEngine([], { modules, router: fuzzingRouter() });
    opened.push(server);
    await run(serverRun(server.engine));

    const host = await createTestEngine([], { modules, router: hostModelRouter });
    opened.push(host);
    const problems: string[] = [];
    await run(hostRun(host.engine, problems));
    expect(problems).toEqual([]);
    // Keyless, every call succeeded on the answers the server-side model gave, one submit per dependent step.
    const rows = await host.store.invocations.list({ limit: 500 });
    expect(rows.filter((row) => !row.success)).toEqual([]);
  });

  it("reached every registered mode, and every answer schema accepted all its random schema-valid answers", () => {
    const registered = Object.keys(composeModules(modules).modes);
    expect(registered.filter((mode) => !askedModes.has(mode) && !settingsOnlyModes.has(mode))).toEqual([]);
    expect([...settingsOnlyModes].filter((mode) => askedModes.has(mode))).toEqual([]);
    const rows = [...tallies.entries()].sort(([left], [right]) => left.localeCompare(right));
    if (process.env["PRINT_SCHEMA_ACCEPTANCE"]) {
      console.info(
        rows
          .map(
            ([name, tally]) =>
              `${tally.mode} / ${name}: ${tally.accepted}/${tally.generated} (${((100 * tally.accepted) / tally.generated).toFixed(1)}%) over ${tally.calls} call(s)`,
          )
          .join("\n"),
      );
    }
    const failing = rows
      .filter(([, tally]) => tally.accepted !== tally.generated)
      .map(([name, tally]) => ({
        name,
        rate: `${tally.accepted}/${tally.generated}`,
        rejected: tally.rejected.slice(0, 2),
      }));
    expect(failing).toEqual([]);
  });
});
