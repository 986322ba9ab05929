import { expandNeedsCompletion, needsCompletionSchema } from "@deliberate/contracts";
import { afterEach, describe, expect, it } from "vitest";
import { probeModule } from "../../test/fixtures/probe-module.ts";
import { createEngine } from "../engine.ts";
import { randomIds } from "../ids.ts";
import { createTestClock, driveHostExecuted } from "../testing.ts";
import { hostModelRouter } from "./host-router.ts";
import { openStore, type Store } from "@deliberate/store";

const stores: Store[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
});

async function hostEngine() {
  const store = await openStore({ path: ":memory:", modules: [probeModule] });
  stores.push(store);
  const clock = createTestClock();
  // Random ids, as in production: replays must not depend on them.
  return {
    engine: createEngine({ store, modules: [probeModule], models: hostModelRouter, ids: randomIds, clock }),
    store,
    clock,
  };
}

const answerByName = (prompt: { name: string }) => ({ text: prompt.name.replace("probe_", "").toUpperCase() });

describe("host replay", () => {
  it("never asks an answered prompt again when its position in the round shifts", async () => {
    const { engine } = await hostEngine();
    const { result, rounds } = await driveHostExecuted(engine, "probe_shift", {}, answerByName);
    // Round 1: A and C (independent); round 2: only B, which depends on A. C keeps its answer although
    // it is now asked third (after B) instead of second.
    expect(rounds.map((prompts) => prompts.map((prompt) => prompt.name))).toEqual([
      ["probe_a", "probe_c"],
      ["probe_b"],
    ]);
    expect(result).toEqual({ texts: ["A+B", "C"] });
  });

  it("draws the same ids on every replay, so a prompt that carries one is answered once", async () => {
    const { engine } = await hostEngine();
    const { result, rounds } = await driveHostExecuted(engine, "probe_ids", {}, answerByName, { maxRounds: 5 });
    expect(rounds.map((prompts) => prompts.map((prompt) => prompt.name))).toEqual([["probe_a"], ["probe_b"]]);
    const id = (result["texts"] as string[])[2] as string;
    // Time-ordered like every id: the call id's 8 characters of time, then 12 of the digest.
    expect(id).toMatch(/^item_[0-9a-z]{8}[0-9a-f]{12}$/);
    expect(rounds[1]?.[0]?.user).toContain(id);
  });

  it("identifies a prompt by everything asked, history messages included", async () => {
    const { engine } = await hostEngine();
    const first = needsCompletionSchema.parse(
      await engine.invoke("probe_history", { history: ["earlier question", "earlier answer"] }),
    );
    const second = needsCompletionSchema.parse(
      await engine.invoke("probe_history", { history: ["earlier question", "another answer"] }),
    );
    const same = needsCompletionSchema.parse(
      await engine.invoke("probe_history", { history: ["earlier question", "earlier answer"] }),
    );
    expect(first.prompts[0]?.id).not.toBe(second.prompts[0]?.id);
    expect(first.prompts[0]?.id).toBe(same.prompts[0]?.id);
    expect(expandNeedsCompletion(first)[0]?.user).toBe("earlier question\n\nearlier answer\n\nPrompt a");
  });

  it("records one row for the whole call: every round, latency from the first round to the result", async () => {
    const { engine, store, clock } = await hostEngine();
    await driveHostExecuted(engine, "probe_shift", {}, answerByName, { beforeSubmit: () => clock.advance(5000) });
    const rows = await store.invocations.list({ tool: "probe_shift" });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ success: true, provider: "host", model: "host", model_calls: 3, rounds: 3 });
    expect(rows[0]?.latency_ms).toBeGreaterThanOrEqual(10_000);
  });

  it("records an answer that fails its schema as a MODEL_OUTPUT_INVALID of the host provider, and stays resumable", async () => {
    const { engine, store } = await hostEngine();
    const step = needsCompletionSchema.parse(await engine.invoke("probe_ids", {}));
    const prompt = step.prompts[0]!;
    const rejected = await engine
      .invoke("reasoning_submit", {
        resume_token: step.resume_token,
        answers: [{ prompt_id: prompt.id, answer: { text: "" } }],
      })
      .catch((error: unknown) => error);
    expect(rejected).toMatchObject({ code: "INVALID_INPUT" });
    expect(await store.invocations.list({ tool: "probe_ids" })).toMatchObject([
      { success: false, error_code: "MODEL_OUTPUT_INVALID", provider: "host", model_calls: 1, rounds: 2 },
    ]);
    const next = needsCompletionSchema.parse(
      await engine.invoke("reasoning_submit", {
        resume_token: step.resume_token,
        answers: [{ prompt_id: prompt.id, answer: { text: "fine" } }],
      }),
    );
    expect(next.prompts[0]?.name).toBe("probe_b");
  });

  it("refuses U+0000 in an answer sent as JSON text as it does in the same answer sent as an object, naming the field, and stays resumable", async () => {
    const { engine, store } = await hostEngine();
    const step = needsCompletionSchema.parse(await engine.invoke("probe_ids", {}));
    const prompt = step.prompts[0]!;
    const submit = (answer: unknown) =>
      engine
        .invoke("reasoning_submit", { resume_token: step.resume_token, answers: [{ prompt_id: prompt.id, answer }] })
        .catch((error: unknown) => error);
    const asObject = await submit({ text: "a\u0000b" });
    // The escape is decoded only when the text is read as JSON: the submission itself holds no U+0000.
    const asText = await submit('{"text": "a\\u0000b"}');
    const fenced = await submit('```json\n{"text": "a\\u0000b"}\n```');
    for (const rejected of [asObject, asText, fenced]) {
      expect(rejected).toMatchObject({
        code: "INVALID_INPUT",
        issues: [{ field: "answers.0.answer.text", message: expect.stringContaining("U+0000") }],
      });
    }
    expect(await store.sessions.list({ limit: 10 })).toHaveLength(0);
    const next = needsCompletionSchema.parse(await submit('{"text": "fine"}'));
    expect(next.prompts[0]?.name).toBe("probe_b");
  });
});
