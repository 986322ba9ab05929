import {
  createHostContext,
  expandNeedsCompletion,
  needsCompletionSchema,
  type NeedsCompletion,
  type PendingPrompt,
} from "@deliberate/contracts";
import { type HostPromptForm, hostModelRouter } from "@deliberate/engine";
import { answerFromSchema } from "@deliberate/engine/testing";
import { afterEach, describe, expect, it } from "vitest";
import { createTestEngine, errorOf, type TestEngine } from "./test-support.ts";

/**
 * Compact host prompts (issue 30): a needs_completion step names each prompt's system text, user paragraphs
 * and answer schema by id, and sends each block once per call. A host that keeps the blocks of the call's
 * earlier steps rebuilds every prompt exactly as the full form gives it, for fewer bytes.
 */

const engines: TestEngine[] = [];
afterEach(async () => {
  await Promise.all(engines.splice(0).map((testEngine) => testEngine.store.close()));
});

async function hostEngine(form: HostPromptForm) {
  const testEngine = await createTestEngine([], { router: hostModelRouter, hostPrompts: form });
  engines.push(testEngine);
  return testEngine;
}

/** Drives a call, answering each prompt from its schema; the steps as sent and as the host rebuilt them. */
async function drive(testEngine: TestEngine, tool: string, args: Record<string, unknown>) {
  const steps: NeedsCompletion[] = [];
  const rounds: PendingPrompt[][] = [];
  const known = createHostContext();
  let result = await testEngine.engine.invoke(tool, args);
  while (result["status"] === "needs_completion") {
    const step = needsCompletionSchema.parse(result);
    const prompts = expandNeedsCompletion(step, known);
    steps.push(step);
    rounds.push(prompts);
    result = await testEngine.engine.invoke("reasoning_submit", {
      resume_token: step.resume_token,
      answers: prompts.map((prompt) => ({ prompt_id: prompt.id, answer: answerFromSchema(prompt.schema) })),
    });
  }
  return { result, steps, rounds };
}

const presets = [
  { id: "code-review", inputs: { code: "function parse(t) { return JSON.parse(t) }" } },
  { id: "debug-analysis", inputs: { problem: "Requests time out at noon" } },
  { id: "architecture-decision", inputs: { question: "Monolith or services?", options: ["monolith", "services"] } },
  { id: "risk-assessment", inputs: { subject: "Migrate the database in one weekend" } },
  {
    id: "research-synthesis",
    inputs: {
      question: "Does caching halve latency?",
      sources: [{ content: "Benchmark: -48% p50", source_type: "primary" }, { content: "Vendor blog: -50%" }],
    },
  },
];

const bytes = (steps: readonly NeedsCompletion[]) =>
  steps.reduce((total, step) => total + Buffer.byteLength(JSON.stringify(step)), 0);

describe("compact host prompts", () => {
  it("give the host every prompt of every preset step exactly as the full form does, the five presets in at least 30% fewer bytes", async () => {
    let full = 0;
    let compact = 0;
    for (const preset of presets) {
      const args = { operation: "run", preset_id: preset.id, inputs: preset.inputs };
      const asFull = await drive(await hostEngine("full"), "reasoning_preset", args);
      const asCompact = await drive(await hostEngine("compact"), "reasoning_preset", args);
      expect(
        asFull.steps.every((step) => step.context === undefined && step.prompts.every((prompt) => "user" in prompt)),
      ).toBe(true);
      expect(asCompact.steps.every((step) => step.prompts.every((prompt) => "user_refs" in prompt))).toBe(true);
      expect(asCompact.rounds).toEqual(asFull.rounds);
      expect(asCompact.result).toEqual(asFull.result);
      full += bytes(asFull.steps);
      compact += bytes(asCompact.steps);
    }
    expect(compact).toBeLessThanOrEqual(full * 0.7);
  });

  it("send a shared block once in a step: the problem and the session so far, once for all the perspectives", async () => {
    const { steps, rounds } = await drive(await hostEngine("compact"), "reasoning_divergent", {
      content: "How do we onboard faster?",
      num_perspectives: 4,
    });
    const first = steps[0] as NeedsCompletion;
    expect(first.prompts).toHaveLength(4);
    const problem = Object.entries(first.context ?? {}).filter(([, text]) =>
      text.includes("How do we onboard faster?"),
    );
    expect(problem).toHaveLength(1);
    for (const prompt of first.prompts) expect("user_refs" in prompt && prompt.user_refs).toContain(problem[0]?.[0]);
    expect(Object.keys(first.schemas ?? {})).toHaveLength(1);
    expect(rounds[0]?.every((prompt) => prompt.user.includes("How do we onboard faster?"))).toBe(true);
  });

  it("resend: true gives the current step again with every block, answers nothing, and the call goes on", async () => {
    const testEngine = await hostEngine("compact");
    const first = needsCompletionSchema.parse(
      await testEngine.engine.invoke("reasoning_divergent", {
        content: "How do we onboard faster?",
        num_perspectives: 2,
      }),
    );
    const known = createHostContext();
    const answered = expandNeedsCompletion(first, known).map((prompt) => ({
      prompt_id: prompt.id,
      answer: answerFromSchema(prompt.schema),
    }));
    const second = needsCompletionSchema.parse(
      await testEngine.engine.invoke("reasoning_submit", { resume_token: first.resume_token, answers: answered }),
    );
    // A host that lost the first step's blocks cannot rebuild the second step's prompts...
    expect((await errorOf(Promise.resolve().then(() => expandNeedsCompletion(second)))).code).toBe("INVALID_INPUT");
    // ...and gets them all back with resend, the same prompts a host that kept them rebuilds.
    const again = needsCompletionSchema.parse(
      await testEngine.engine.invoke("reasoning_submit", { resume_token: first.resume_token, resend: true }),
    );
    expect(again.resume_token).toBe(first.resume_token);
    // The first step and a resent one explain the form; a later step points back to the first.
    for (const whole of [first, again]) expect(whole.instructions).toContain("context[system_ref]");
    expect(second.instructions).toContain("as this call's first step says");
    expect(expandNeedsCompletion(again)).toEqual(expandNeedsCompletion(second, known));
    const final = await testEngine.engine.invoke("reasoning_submit", {
      resume_token: again.resume_token,
      answers: expandNeedsCompletion(again).map((prompt) => ({
        prompt_id: prompt.id,
        answer: answerFromSchema(prompt.schema),
      })),
    });
    expect(final["status"]).not.toBe("needs_completion");
    expect(final["synthesis"]).toEqual(expect.any(String));
  });

  it("refuses resend with answers, and a submission with neither, naming answers", async () => {
    const testEngine = await hostEngine("compact");
    const step = needsCompletionSchema.parse(
      await testEngine.engine.invoke("reasoning_linear", { content: "Add a cache" }),
    );
    const both = await errorOf(
      testEngine.engine.invoke("reasoning_submit", {
        resume_token: step.resume_token,
        resend: true,
        answers: [{ prompt_id: step.prompts[0]?.id, answer: {} }],
      }),
    );
    expect(both).toMatchObject({
      code: "INVALID_INPUT",
      issues: [{ field: "answers", message: expect.stringContaining("not both") }],
    });
    const neither = await errorOf(testEngine.engine.invoke("reasoning_submit", { resume_token: step.resume_token }));
    expect(neither).toMatchObject({
      code: "INVALID_INPUT",
      issues: [{ field: "answers", message: expect.stringContaining("answers is required") }],
    });
  });
});
