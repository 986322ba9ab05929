import { describe, expect, it } from "vitest";
import { DeliberateClientError } from "../errors.ts";
import {
  classifyFailure,
  type FailureKind,
  failureKinds,
  failureOf,
  fallbackAction,
  fallbackMatrix,
} from "./fallback.ts";
import { analyzeQuery, entityTokens, type QueryContext, type ScoreReason } from "./heuristics.ts";
import { defaultPolicy, resolvePolicy } from "./policy.ts";
import { decideRoute, type StandardAnswer, shouldEscalate } from "./routing.ts";
import { selectReasoningType, type SelectionRule } from "./type-selection.ts";

// The coordinator's decisions, from tables of queries against the documented default policy.

const all = ["inductive", "deductive", "abductive", "planAndExecuteCoT"];

describe("heuristics: every signal", () => {
  // The signals besides explicit requests (those have their own table below): measured with explicit requests off.
  const signalsPolicy = resolvePolicy({ explicitRequests: [] });
  // [query, context, signals expected among the reasons, exact score]
  const table: Array<[string, QueryContext, Array<ScoreReason["signal"]>, number]> = [
    ["Hypothesize about the outage.", {}, ["keyword"], 0.3],
    ["Can you deduce the consequences of raising prices?", {}, ["keyword", "keyword"], 0.6],
    ["Plan a migration.", {}, ["keyword"], 0.3],
    ["What is the underlying pattern in these numbers?", {}, ["keyword", "weak_keyword"], 0.4],
    ["Explain the causal chain here.", {}, ["keyword", "weak_keyword"], 0.4],
    ["Find the root cause.", {}, ["keyword", "weak_keyword"], 0.4],
    ["Generalize this rule.", {}, ["keyword"], 0.3],
    ["What is the most likely explanation?", {}, ["keyword"], 0.3],
    ["Weigh the trade-offs.", {}, ["keyword"], 0.3],
    ["Prove it.", {}, ["keyword"], 0.3],
    ["Diagnose the leak.", {}, ["keyword"], 0.3],
    // Strong keywords stop adding at the cap (0.6), however many match.
    [
      "Hypothesize the root cause, deduce the consequences of it, and plan a fix.",
      {},
      ["keyword", "keyword", "weak_keyword"],
      0.7,
    ],
    ["Why?", {}, ["weak_keyword"], 0.1],
    // Weak keywords cap at 0.2.
    ["Why explain the cause and compare strategy?", {}, ["weak_keyword", "weak_keyword"], 0.2],
    ["Is it up? Is it down?", {}, ["multiple_questions"], 0.15],
    ["What if the bridge had not been built", {}, ["counterfactual"], 0.2],
    ["Given that sales fell, which means what for hiring", {}, ["dependent_sub_questions"], 0.15],
    ["Walk me through the billing flow", {}, ["deep_explanation"], 0.1],
    ["Relate Alice, Bob, Carol to the 2019 merger", {}, ["entity_density"], 0.15],
    ["Relate Alice, Bob, Carol, Dave, Erin and Frank to Globex", {}, ["entity_density"], 0.25],
    [Array.from({ length: 40 }, () => "word").join(" "), {}, ["length"], 0.05],
    ["Help me with this.", { intent: "causal_explanation" }, ["intent"], 0.5],
    ["Help me with this.", { intent: "chit_chat" }, [], 0],
    ["And what about it?", { previousTurnUsedReasoning: true }, ["follow_up"], 0.3],
    ["And what about it?", { previousTurnUsedReasoning: false }, [], 0],
    ["Thanks!", { intent: "causal_explanation" }, ["small_talk"], 0],
    ["", {}, ["small_talk"], 0],
  ];
  it.each(table)("%j %j", (query, context, signals, score) => {
    const analysis = analyzeQuery(query, context, signalsPolicy);
    expect(
      analysis.reasons
        .map((reason) => reason.signal)
        .filter((signal) => signal !== "small_talk" || signals.includes("small_talk")),
    ).toEqual(signals);
    expect(analysis.score).toBe(score);
    for (const reason of analysis.reasons) expect(reason.detail.length).toBeGreaterThan(0);
  });

  // Explicit requests for reasoning reach the direct threshold alone (0.65), whatever else matches.
  const explicit: Array<[string, string]> = [
    ["Why did last night's deploy fail?", "why"],
    ["how come the backup was so quick", "why"],
    ["Deduce whether Carol may approve it.", "deduce"],
    ["What can we conclude from this?", "deduce"],
    ["Plan a strategy for the launch.", "plan"],
    ["Can you draft a migration plan?", "plan"],
    ["Compare Postgres and SQLite.", "compare"],
    ["React vs Vue for a dashboard", "compare"],
    ["Help me decide between these offers.", "decide"],
    ["Should we rent or buy the servers?", "decide"],
    ["What caused the spike?", "explain the cause"],
    ["What would happen if we raised the limit?", "consequences"],
    ["What do these logs have in common?", "pattern"],
    ["Reason through the alibis.", "reason through"],
  ];
  it.each(explicit)("%j is an explicit request (%s)", (query, name) => {
    const analysis = analyzeQuery(query, {}, defaultPolicy);
    expect(analysis.reasons[0]).toEqual({ signal: "explicit_request", detail: `matched "${name}"`, weight: 0.65 });
    expect(analysis.reasons.filter((reason) => reason.signal === "explicit_request")).toHaveLength(1);
    expect(decideRoute(analysis, defaultPolicy).route).toBe("direct");
  });

  it.each([
    "Why not?",
    "Which plan tier am I on?",
    "What's the plan for lunch?",
    "Open the compare view.",
    "Should I bring an umbrella?",
  ])("%j is not an explicit request", (query) => {
    expect(analyzeQuery(query, {}, defaultPolicy).reasons.map((reason) => reason.signal)).not.toContain(
      "explicit_request",
    );
  });

  it("forces 1 for a task type the host always routes to reasoning", () => {
    const policy = resolvePolicy({ alwaysReasonTaskTypes: ["incident_review"] });
    const analysis = analyzeQuery("ok", { taskType: "incident_review" }, policy);
    expect(analysis).toMatchObject({ score: 1, forced: true, reasons: [{ signal: "task_type" }] });
  });

  it("is deterministic and clamped to [0, 1]", () => {
    const query =
      "Hypothesize why Alice, Bob, Carol, Dave, Erin and Frank left Globex in 2019? What if they had not? Walk me through it, given that pay rose.";
    const first = analyzeQuery(query, { intent: "causal_explanation" }, defaultPolicy);
    expect(analyzeQuery(query, { intent: "causal_explanation" }, defaultPolicy)).toEqual(first);
    expect(first.score).toBe(1);
  });

  it("counts entities: capitalised words past the first of a sentence, numbers, quoted phrases", () => {
    expect(entityTokens('Compare "Project Atlas" with Borealis. Then ask Carol about 42 units')).toEqual([
      "Project Atlas",
      "Borealis",
      "Carol",
      "42",
    ]);
    expect(entityTokens("The cat sat. I think so")).toEqual([]);
    expect(entityTokens("Is Alice Bob's parent and Bob Carol's?")).toEqual(["Alice", "Bob", "Carol"]);
  });
});

describe("routing and escalation", () => {
  const analysis = (score: number, forced = false, smallTalk = false) => ({
    score,
    reasons: [],
    words: 5,
    entities: [],
    forced,
    smallTalk,
  });
  it.each([
    [0.9, "direct"],
    [0.65, "direct"],
    [0.64, "tiered"],
    [0.25, "tiered"],
    [0.24, "tiered"],
    [0, "tiered"],
  ] as const)("score %s routes %s", (score, route) => {
    expect(decideRoute(analysis(score), defaultPolicy).route).toBe(route);
  });

  it("keeps small talk standard; below a raised escalate threshold, standard only", () => {
    expect(decideRoute(analysis(0, false, true), defaultPolicy).route).toBe("standard");
    expect(decideRoute(analysis(0.2), resolvePolicy({ thresholds: { escalate: 0.25 } })).route).toBe("standard");
  });

  it("goes direct for a forced task type, never direct when not allowed, direct in the band when tiering is off", () => {
    expect(decideRoute(analysis(0, true), defaultPolicy).route).toBe("direct");
    expect(decideRoute(analysis(0.9), resolvePolicy({ allowDirect: false })).route).toBe("tiered");
    expect(decideRoute(analysis(0.3), resolvePolicy({ tiered: false })).route).toBe("direct");
    expect(decideRoute(analysis(0.7), resolvePolicy({ thresholds: { direct: 0.8 } })).route).toBe("tiered");
  });

  const answers: Array<[string, StandardAnswer, boolean, string | null]> = [
    ["a confident answer stands", { text: "Paris.", confidence: 0.9 }, false, null],
    ["an answer with no confidence stands", { text: "Paris." }, false, null],
    ["an empty answer escalates", { text: "  " }, true, "empty"],
    ['"I cannot answer that" is a refusal', { text: "I cannot answer that." }, true, "refusal"],
    ['"I\'m unable to determine" is a refusal', { text: "I'm unable to determine the cause." }, true, "refusal"],
    [
      '"I don\'t have enough information" is a refusal',
      { text: "Sorry, I don't have enough information." },
      true,
      "refusal",
    ],
    ['"As an AI I cannot" is a refusal', { text: "As an AI language model, I cannot know that." }, true, "refusal"],
    ["a refusal the host flagged", { text: "Let me not.", refused: true }, true, "refusal"],
    ["low standard confidence escalates", { text: "Maybe Lyon.", confidence: 0.3 }, true, "low_confidence"],
    ["confidence at the threshold stands", { text: "Lyon.", confidence: 0.5 }, false, null],
  ];
  it.each(answers)("%s", (_what, answer, escalate, reason) => {
    expect(shouldEscalate(answer, defaultPolicy)).toMatchObject({ escalate, reason });
  });

  it("escalates on a known failure pattern of the host", () => {
    const policy = resolvePolicy({ knownFailurePatterns: [/^Error: context window/] });
    expect(shouldEscalate({ text: "Error: context window exceeded" }, policy)).toMatchObject({
      escalate: true,
      reason: "known_failure",
    });
  });
});

describe("type selection: every rule, in order", () => {
  const table: Array<[string, string, string | undefined, number, string[], string | null, SelectionRule]> = [
    [
      "keyword -> abductive",
      "Why did the deploy fail? What could be the cause?",
      undefined,
      0.5,
      all,
      "abductive",
      "keyword",
    ],
    [
      "keyword -> deductive",
      "If all A are B and x is A, then what must be true? Deduce it.",
      undefined,
      0.5,
      all,
      "deductive",
      "keyword",
    ],
    [
      "keyword -> inductive",
      "What is the pattern in these examples? Generalize it.",
      undefined,
      0.5,
      all,
      "inductive",
      "keyword",
    ],
    [
      "keyword -> planAndExecuteCoT",
      "Plan the steps to migrate the database.",
      undefined,
      0.5,
      all,
      "planAndExecuteCoT",
      "keyword",
    ],
    [
      "a keyword tie suggests nothing: default",
      "Given these, what pattern holds?",
      undefined,
      0.3,
      ["inductive", "deductive", "planAndExecuteCoT"],
      "planAndExecuteCoT",
      "default",
    ],
    [
      "intent fills in for no keyword",
      "Tell me about the outage.",
      "causal_explanation",
      0.5,
      all,
      "abductive",
      "intent",
    ],
    ["intent confirms a keyword", "Why did it fail?", "causal_explanation", 0.5, all, "abductive", "keyword"],
    [
      "intent refines a single-keyword suggestion",
      "Plan around the outage.",
      "logical_inference",
      0.5,
      all,
      "deductive",
      "intent",
    ],
    [
      "intent does not override two keywords",
      "Plan the steps to fix it.",
      "logical_inference",
      0.5,
      all,
      "planAndExecuteCoT",
      "keyword",
    ],
    [
      "high complexity with no type favours the default",
      "Tell me everything about Alice, Bob and Carol.",
      undefined,
      0.9,
      ["abductive", "planAndExecuteCoT"],
      "planAndExecuteCoT",
      "complexity",
    ],
    [
      "unsupported suggestion -> default type",
      "Why did the deploy fail?",
      undefined,
      0.5,
      ["deductive", "planAndExecuteCoT"],
      "planAndExecuteCoT",
      "default",
    ],
    ["no suggestion -> default type", "Tell me about it.", undefined, 0.3, all, "planAndExecuteCoT", "default"],
    [
      "no default either -> first supported",
      "Why did the deploy fail?",
      undefined,
      0.5,
      ["inductive", "deductive"],
      "inductive",
      "first_supported",
    ],
    [
      "unknown types are ignored",
      "Tell me about it.",
      undefined,
      0.3,
      ["lateral", "deductive"],
      "deductive",
      "first_supported",
    ],
    ["nothing supported -> none", "Why did the deploy fail?", undefined, 0.5, [], null, "none"],
    ["only unknown types -> none", "Tell me about it.", undefined, 0.3, ["lateral"], null, "none"],
  ];
  it.each(table)("%s", (_what, query, intent, score, supported, type, rule) => {
    const selection = selectReasoningType({ query, intent, score, supported }, defaultPolicy);
    expect(selection.type).toBe(type);
    expect(selection.rule).toBe(rule);
    expect(selection.reasons.length).toBeGreaterThan(0);
  });

  it("uses the host's own mappings", () => {
    const policy = resolvePolicy({
      keywordTypes: { ...defaultPolicy.keywordTypes, inductive: [/\bcohort\b/i] },
      intentTypes: { forecasting: "inductive" },
    });
    expect(selectReasoningType({ query: "Compare this cohort.", score: 0.3, supported: all }, policy)).toMatchObject({
      type: "inductive",
      rule: "keyword",
    });
    expect(
      selectReasoningType({ query: "Next quarter?", intent: "forecasting", score: 0.3, supported: all }, policy),
    ).toMatchObject({ type: "inductive", rule: "intent" });
  });
});

describe("the fallback matrix (§1.5.2)", () => {
  const rows: Array<
    [FailureKind, string, "present_answer_in_hand" | "standard", "present_answer_in_hand" | "standard"]
  > = [
    ["connection", "standard", "standard", "standard"],
    ["handshake", "standard", "standard", "standard"],
    ["capability", "standard", "standard", "standard"],
    ["request", "standard", "standard", "standard"],
    ["timeout", "standard", "standard", "standard"],
    ["failed", "standard", "standard", "standard"],
    ["max_iterations", "partial_or_standard", "present_answer_in_hand", "standard"],
    ["malformed", "standard", "standard", "standard"],
    ["low_confidence", "answer_with_disclaimer", "present_answer_in_hand", "standard"],
  ];
  it.each(rows)("%s: %s", (kind, action, withAnswer, withoutAnswer) => {
    const rule = fallbackMatrix[kind];
    expect(rule.action).toBe(action);
    expect(fallbackAction(kind, true)).toBe(withAnswer);
    expect(fallbackAction(kind, false)).toBe(withoutAnswer);
    expect(rule.userMessage).toMatch(/^[A-Z].*[.?]$/);
    expect(rule.userMessage).not.toMatch(/error|exception|status|json/i);
    expect(failureOf(kind, "detail", "CODE")).toEqual({
      kind,
      userMessage: rule.userMessage,
      detail: "detail",
      code: "CODE",
      log: rule.log,
    });
  });

  it("has a row for every kind", () => {
    expect(Object.keys(fallbackMatrix).sort()).toEqual([...failureKinds].sort());
  });

  const codes: Array<[string, FailureKind]> = [
    ["CONNECTION_FAILED", "connection"],
    ["RATE_LIMITED", "connection"],
    ["HANDSHAKE_FAILED", "handshake"],
    ["UNAUTHORIZED", "handshake"],
    ["UNSUPPORTED_VERSION", "handshake"],
    ["CAPABILITY_MISSING", "capability"],
    ["INVALID_INPUT", "request"],
    ["NOT_FOUND", "request"],
    ["CONFLICT", "request"],
    ["LIMIT_EXCEEDED", "request"],
    ["TIMEOUT", "timeout"],
    ["REQUEST_TIMEOUT", "timeout"],
    ["PROVIDER_TIMEOUT", "timeout"],
    ["MALFORMED_RESPONSE", "malformed"],
    ["INTERNAL", "failed"],
    ["PROVIDER_UNAVAILABLE", "failed"],
    ["MODEL_OUTPUT_INVALID", "failed"],
    ["COMPLETION_FAILED", "failed"],
  ];
  it.each(codes)("classifies %s as %s", (code, kind) => {
    expect(classifyFailure(new DeliberateClientError({ code: code as never, message: "x" }))).toBe(kind);
  });

  it("classifies anything that is not a client error as failed", () => {
    expect(classifyFailure(new Error("boom"))).toBe("failed");
  });
});
