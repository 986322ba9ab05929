import {
  createHostContext,
  expandNeedsCompletion,
  type HostContext,
  needsCompletionSchema,
  type NeedsCompletion,
} from "@deliberate/contracts";
import { afterEach, describe, expect, it } from "vitest";
import { hostModelRouter } from "@deliberate/engine";
import { bySchemaName, createTestEngine, type TestEngine } from "./test-support.ts";

// The replay rule for graph, timeline and mcts: all model calls before the
// first write, prompts that depend only on input and stored state. Driven
// host-executed (every model call suspends and the call is replayed), they
// must end exactly where a server-side model with the same answers ends.

const engines: TestEngine[] = [];
afterEach(async () => {
  await Promise.all(engines.splice(0).map((testEngine) => testEngine.store.close()));
});
async function engineWith(...args: Parameters<typeof createTestEngine>) {
  const testEngine = await createTestEngine(...args);
  engines.push(testEngine);
  return testEngine;
}

const criteria = { relevance: 0.7, validity: 0.7, depth: 0.5, novelty: 0.3 };

/** Answers by the prompt's text, as a calling agent would; also used as the server-side model. */
function answerFor(system: string, user: string): unknown {
  if (system.includes("extend a graph of thoughts"))
    return { content: `next after: ${user.split("Direction: ")[1]?.slice(0, 12)}`, criteria };
  if (system.includes("propose moves")) return { steps: [`A(${user.length % 7})`, `B(${user.length % 5})`] };
  if (system.includes("evaluate partial lines"))
    return { value: (user.length % 10) / 10, reaches_conclusion: false, rationale: "r" };
  if (system.includes("compare branches of a timeline")) {
    const ids = [...user.matchAll(/^\[(\S+)\]/gm)].map((match) => match[1] as string);
    return {
      divergence_points: ["d"],
      assessments: Object.fromEntries(ids.map((id, index) => [id, { quality: 0.4 + index / 10, assessment: "a" }])),
      convergence_opportunities: [],
    };
  }
  throw new Error(`unexpected prompt: ${system.slice(0, 60)}`);
}

/** Answers a step from its prompts in full; `known` holds what earlier steps of the same call sent. */
function answers(step: NeedsCompletion, known: HostContext = createHostContext()) {
  return expandNeedsCompletion(step, known).map((prompt) => ({
    prompt_id: prompt.id,
    answer: answerFor(prompt.system, prompt.user),
  }));
}

async function drive(engine: TestEngine["engine"], tool: string, args: Record<string, unknown>) {
  let result = await engine.invoke(tool, args);
  const promptsPerRound: number[] = [];
  const known = createHostContext();
  while (result["status"] === "needs_completion") {
    const step = needsCompletionSchema.parse(result);
    promptsPerRound.push(step.prompts.length);
    result = await engine.invoke("reasoning_submit", {
      resume_token: step.resume_token,
      answers: answers(step, known),
    });
  }
  return { result, promptsPerRound };
}

const serverModel = (options: { system: string; messages: Array<{ content: string }> }) =>
  answerFor(options.system, options.messages.map((message) => message.content).join("\n\n"));

describe("graph, timeline and mcts executed by the host", () => {
  it("graph generate hands out its k prompts at once and writes nothing until they are answered", async () => {
    const host = await engineWith([], { router: hostModelRouter });
    const init = await host.engine.invoke("reasoning_graph", { operation: "init", content: "Speed up CI" });
    const first = needsCompletionSchema.parse(
      await host.engine.invoke("reasoning_graph", { operation: "generate", session_id: init.session_id, k: 3 }),
    );
    expect(first.prompts).toHaveLength(3);
    expect((await host.store.graphs.stats(init.session_id as string)).total_nodes).toBe(1);
    const final = await host.engine.invoke("reasoning_submit", {
      resume_token: first.resume_token,
      answers: answers(first),
    });
    expect(final.nodes).toHaveLength(3);
    expect((await host.store.graphs.stats(init.session_id as string)).total_nodes).toBe(4);
  });

  it("mcts explore suspends once per model call and ends with the same tree a server-side model builds", async () => {
    const host = await engineWith([], { router: hostModelRouter });
    const { result, promptsPerRound } = await drive(host.engine, "reasoning_mcts", {
      content: "Pick a cache",
      iterations: 5,
      branching_factor: 2,
    });
    const server = await engineWith(serverModel);
    const expected = await server.engine.invoke("reasoning_mcts", {
      content: "Pick a cache",
      iterations: 5,
      branching_factor: 2,
    });
    expect(promptsPerRound.every((count) => count === 1)).toBe(true);
    expect(promptsPerRound).toHaveLength(server.model.calls.length);
    const shape = (output: Record<string, unknown>) =>
      (output["best_path"] as Array<{ content: string; visits: number; mean_value: number }>).map(
        ({ content, visits, mean_value }) => ({ content, visits, mean_value }),
      );
    expect(shape(result)).toEqual(shape(expected));
    expect(result["tree_size"]).toBe(expected["tree_size"]);
    const hostTree = await host.store.mcts.listBySession(result["session_id"] as string);
    expect(hostTree.map((node) => [node.content, node.visits])).toEqual(
      (await server.store.mcts.listBySession(expected["session_id"] as string)).map((node) => [
        node.content,
        node.visits,
      ]),
    );
  });

  it("timeline compare works host-executed with its per-branch schema", async () => {
    const host = await engineWith(bySchemaName({}), { router: hostModelRouter });
    const created = await host.engine.invoke("reasoning_timeline", { operation: "create", content: "March launch" });
    await host.engine.invoke("reasoning_timeline", {
      operation: "branch",
      timeline_id: created.timeline_id,
      content: "January launch",
    });
    const { result, promptsPerRound } = await drive(host.engine, "reasoning_timeline", {
      operation: "compare",
      timeline_id: created.timeline_id,
    });
    expect(promptsPerRound).toEqual([1]);
    expect(
      (result["comparison"] as { quality_differences: { spread: number } }).quality_differences.spread,
    ).toBeCloseTo(0.1, 12);
  });
});
