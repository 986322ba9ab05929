import {
  biasTypes,
  DeliberateError,
  detectOutputSchema,
  formalFallacyTypes,
  informalFallacyTypes,
} from "@deliberate/contracts";
import { describe, expect, it } from "vitest";
import { bySchemaName, errorOf, type TestEngine, useTestEngines } from "../../test-support.ts";

const { setup } = useTestEngines();

const now = "2026-11-22T10:00:00.000Z";

/** Records a session with the given thoughts directly in the store; returns the ids. */
async function seedSession(store: TestEngine["store"], id: string, contents: readonly string[]): Promise<string[]> {
  await store.sessions.create({ id, mode: "linear", now });
  const ids: string[] = [];
  for (const [index, content] of contents.entries()) {
    const thought = await store.thoughts.append({
      id: `${id}_th${index}`,
      session_id: id,
      mode: index === 0 ? "input" : "linear",
      content,
      created_at: now,
    });
    ids.push(thought.id);
  }
  return ids;
}

const argument =
  "Either we rewrite the service in Rust or we go bankrupt. My colleague says we should keep Go, but he also thinks pineapple belongs on pizza, so ignore him. If the rewrite works, latency drops; latency dropped last week, so the rewrite works.";

const finding = (type: string, evidence: string, severity = "high", confidence = 0.8) => ({
  type,
  severity,
  confidence,
  evidence,
  explanation: `${type} explained`,
  remediation: `fix ${type}`,
});

describe("reasoning_detect", () => {
  it("keeps findings whose evidence occurs in the text, drops the rest, and computes quality from severities", async () => {
    const { engine, model, store } = await setup(
      bySchemaName({
        detect_fallacies: {
          detections: [
            finding("false_dichotomy", "“Either we rewrite the service in Rust  or we go bankrupt.”", "high", 0.9),
            finding("ad_hominem", "he also thinks pineapple belongs on pizza, so ignore him", "medium", 0.7),
            finding(
              "affirming_the_consequent",
              "If the rewrite works, latency drops ... so the rewrite works",
              "critical",
              0.6,
            ),
            finding("straw_man", "my colleague wants us to stay slow forever", "high", 0.9),
            finding("ad_hominem", "he also thinks pineapple belongs on pizza, so ignore him", "low", 0.2),
          ],
        },
      }),
    );
    const output = detectOutputSchema.parse(
      await engine.invoke("reasoning_detect", { type: "fallacies", content: argument }),
    );

    expect(output.detections.map((detection) => [detection.type, detection.category, detection.severity])).toEqual([
      ["affirming_the_consequent", "formal", "critical"],
      ["false_dichotomy", "informal", "high"],
      ["ad_hominem", "informal", "medium"],
    ]);
    for (const detection of output.detections) {
      // The evidence reported is the input's own text: the span starts with its first fragment and ends with its last.
      const span = argument.slice(detection.evidence_span.start, detection.evidence_span.end);
      const fragments = detection.evidence.split(" … ");
      expect(span.startsWith(fragments[0] as string)).toBe(true);
      expect(span.endsWith(fragments.at(-1) as string)).toBe(true);
    }
    expect(output.detections[1]?.evidence).toBe("Either we rewrite the service in Rust or we go bankrupt.");
    expect(output.detections[0]?.evidence).toBe("If the rewrite works, latency drops … so the rewrite works");
    expect(output.discarded).toEqual([
      {
        type: "straw_man",
        evidence: "my colleague wants us to stay slow forever",
        reason: '"my colleague wants us to stay slow forever" does not occur in the analysed text',
      },
      {
        type: "ad_hominem",
        evidence: "he also thinks pineapple belongs on pizza, so ignore him",
        reason: "duplicates an earlier finding of the same type on the same passage",
      },
    ]);
    // Π (1 − w·confidence): critical 0.5·0.6, high 0.3·0.9, medium 0.15·0.7.
    expect(output.overall_quality).toBeCloseTo((1 - 0.3) * (1 - 0.27) * (1 - 0.105), 12);
    expect(output.summary).toContain("3 fallacies detected");
    expect(output.summary).toContain("2 model findings discarded");
    expect(output.checked_types).toEqual([...formalFallacyTypes, ...informalFallacyTypes]);
    expect(output.analyzed).toEqual({ source: "content", thought_ids: [], characters: argument.length });

    expect(model.calls).toHaveLength(1);
    const prompt = model.calls[0]?.messages[0]?.content ?? "";
    expect(prompt).toContain(argument);
    expect(prompt).toContain("straw_man");

    const thoughts = await store.thoughts.listBySession(output.session_id);
    expect(thoughts.map((thought) => thought.mode)).toEqual(["input", "detect"]);
    expect(thoughts[0]?.content).toBe(argument);
    expect(thoughts[1]?.id).toBe(output.thought_id);
    expect(thoughts[1]?.metadata).toMatchObject({
      type: "fallacies",
      overall_quality: output.overall_quality,
      detections: output.detections,
      discarded: output.discarded,
    });
  });

  it("narrows the search to check_types and constrains the model's answer to them", async () => {
    const outside = { detections: [finding("confirmation_bias", "Either we rewrite the service in Rust")] };
    const inside = { detections: [finding("anchoring", "Either we rewrite the service in Rust", "low", 0.5)] };
    const { engine, model } = await setup([outside, inside]);
    const output = detectOutputSchema.parse(
      await engine.invoke("reasoning_detect", {
        type: "biases",
        content: argument,
        check_types: ["Anchoring", "sunk-cost fallacy"],
      }),
    );

    expect(output.checked_types).toEqual(["anchoring", "sunk_cost_fallacy"]);
    expect(output.detections.map((detection) => detection.type)).toEqual(["anchoring"]);
    expect(output.detections[0]?.category).toBe("cognitive");
    // The first answer named a type outside check_types: the schema rejected it and the repair round fixed it.
    expect(model.calls.map((call) => call.repair)).toEqual([false, true]);
    const schema = model.calls[0]?.schema;
    expect(schema?.safeParse(outside).success).toBe(false);
    expect(schema?.safeParse(inside).success).toBe(true);
    const prompt = model.calls[0]?.messages[0]?.content ?? "";
    expect(prompt).toContain("- anchoring:");
    expect(prompt).toContain("- sunk_cost_fallacy:");
    expect(prompt).not.toContain("- confirmation_bias:");
  });

  it("checks only informal fallacies when check_formal is false, and every bias by default", async () => {
    const { engine, model } = await setup({ answer: { detections: [] } });
    const fallacies = detectOutputSchema.parse(
      await engine.invoke("reasoning_detect", { type: "fallacies", content: argument, check_formal: "false" }),
    );
    expect(fallacies.checked_types).toEqual([...informalFallacyTypes]);
    expect(fallacies.detections).toEqual([]);
    expect(fallacies.overall_quality).toBe(1);
    expect(fallacies.summary).toBe(`No fallacies detected (${informalFallacyTypes.length} fallacy types checked).`);
    expect(model.calls[0]?.messages[0]?.content).not.toContain("affirming_the_consequent");

    const biases = detectOutputSchema.parse(
      await engine.invoke("reasoning_detect", { type: "biases", content: argument }),
    );
    expect(biases.checked_types).toEqual([...biasTypes]);
  });

  it("analyses a recorded thought and records the result in that thought's session", async () => {
    const { engine, store } = await setup(
      bySchemaName({
        detect_fallacies: { detections: [finding("false_cause", "Sales rose after the ad, so the ad caused it.")] },
      }),
    );
    const [, thoughtId] = await seedSession(store, "ses_sales", [
      "Why did sales rise?",
      "Sales rose after the ad, so the ad caused it.",
    ]);
    const linear = { session_id: "ses_sales", thought_id: thoughtId };
    const output = detectOutputSchema.parse(
      await engine.invoke("reasoning_detect", { type: "fallacies", thought_id: linear.thought_id }),
    );
    expect(output.session_id).toBe(linear.session_id);
    expect(output.analyzed).toMatchObject({ source: "thought", thought_ids: [linear.thought_id] });
    expect(output.detections[0]?.evidence_span).toEqual({ start: 0, end: 45 });
    const thoughts = await store.thoughts.listBySession(output.session_id);
    expect(thoughts.map((thought) => thought.mode)).toEqual(["input", "linear", "detect"]);
    expect(thoughts[2]?.parent_id).toBe(linear.thought_id);
    expect(await store.thoughts.count("ses_sales")).toBe(3);
  });

  it("analyses a session's recent thoughts when given only session_id", async () => {
    const { engine, store } = await setup(
      bySchemaName({ detect_biases: { detections: [finding("bandwagon_effect", "Everyone on the team agrees")] } }),
    );
    await seedSession(store, "ses_team", [
      "Should we adopt the framework?",
      "Everyone on the team agrees, so it must be right.",
    ]);
    const output = detectOutputSchema.parse(
      await engine.invoke("reasoning_detect", { type: "biases", session_id: "ses_team" }),
    );
    expect(output.analyzed.source).toBe("session");
    expect(output.analyzed.thought_ids).toHaveLength(2);
    const analysed = "Should we adopt the framework?\n\nEveryone on the team agrees, so it must be right.";
    expect(output.analyzed.characters).toBe(analysed.length);
    const span = output.detections[0]?.evidence_span;
    expect(analysed.slice(span?.start, span?.end)).toBe("Everyone on the team agrees");
  });

  it("rejects bad input naming the field, before any model call or write", async () => {
    const { engine, model, store } = await setup({ answer: { detections: [] } });
    const cases: Array<[Record<string, unknown>, string, RegExp]> = [
      [{ type: "biases" }, "content", /content .*thought_id .*session_id/],
      [
        { type: "biases", content: "x", check_types: ["straw_man"] },
        "check_types.0",
        /'straw_man' is a fallacy, but type is 'biases'/,
      ],
      [
        { type: "fallacies", content: "x", check_types: ["made_up"] },
        "check_types.0",
        /unknown fallacy 'made_up'; valid fallacies: affirming_the_consequent/,
      ],
      [
        { type: "fallacies", content: "x", check_formal: false, check_informal: false },
        "check_formal",
        /nothing would be checked/,
      ],
      [
        { type: "fallacies", content: "x", check_informal: false, check_types: ["ad_hominem"] },
        "check_types.0",
        /informal fallacy but check_informal is false/,
      ],
      [{ type: "biases", content: "x", thought_id: "th_1" }, "thought_id", /either content or thought_id/],
      [{ type: "opinions", content: "x" }, "type", /./],
    ];
    for (const [input, field, message] of cases) {
      const error = await errorOf(engine.invoke("reasoning_detect", input));
      expect(error.code).toBe("INVALID_INPUT");
      const issue = error.issues.find((candidate) => candidate.field === field);
      expect(issue?.message).toMatch(message);
    }
    expect(model.calls).toHaveLength(0);
    expect(await store.sessions.list({ limit: 10 })).toHaveLength(0);
  });

  it("refuses an unknown thought, a thought from another session, and an empty session", async () => {
    const { engine, model, store } = await setup({ answer: { detections: [] } });
    expect((await errorOf(engine.invoke("reasoning_detect", { type: "biases", thought_id: "th_missing" }))).code).toBe(
      "NOT_FOUND",
    );
    const [first] = await seedSession(store, "ses_a", ["A"]);
    await seedSession(store, "ses_c", ["C"]);
    const mismatch = await errorOf(
      engine.invoke("reasoning_detect", { type: "biases", thought_id: first, session_id: "ses_c" }),
    );
    expect(mismatch.code).toBe("INVALID_INPUT");
    expect(mismatch.issues[0]?.field).toBe("thought_id");
    await store.sessions.create({ id: "ses_empty", mode: "linear", now: "2026-11-22T10:00:00.000Z" });
    const empty = await errorOf(engine.invoke("reasoning_detect", { type: "biases", session_id: "ses_empty" }));
    expect(empty.issues[0]?.field).toBe("session_id");
    expect(model.calls).toHaveLength(0);
  });

  it("writes nothing when the model fails", async () => {
    const { engine, store } = await setup(() => {
      throw new DeliberateError({ code: "PROVIDER_UNAVAILABLE", message: "upstream 503", retryable: true });
    });
    const error = await errorOf(engine.invoke("reasoning_detect", { type: "biases", content: argument }));
    expect(error.code).toBe("PROVIDER_UNAVAILABLE");
    expect(await store.sessions.list({ limit: 10 })).toHaveLength(0);
  });
});
