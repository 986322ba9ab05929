import { describe, expect, it } from "vitest";
import type { FieldIssue } from "@deliberate/base";
import { parseAnthropicCapabilityOverrides, parseOpenAICapabilityOverrides } from "./capability-overrides.ts";
import {
  anthropicCapabilities,
  defaultAnthropicCapabilities,
  normaliseModelId,
  openaiCapabilities,
} from "./model-capabilities.ts";
import {
  budgetForEffort,
  effortForBudget,
  openaiEffortFor,
  anthropicEffortFor,
  reasoningAllowance,
} from "./thinking-effort.ts";

describe("anthropicCapabilities", () => {
  it("knows the adaptive generation from the budget one", () => {
    expect(anthropicCapabilities("claude-opus-4-8")).toMatchObject({
      thinking: "adaptive",
      thinkingAlwaysOn: false,
      structuredOutputs: true,
      forcedToolChoice: true,
    });
    expect(anthropicCapabilities("claude-opus-4-8").effort).toContain("xhigh");
    expect(anthropicCapabilities("claude-sonnet-4-6")).toMatchObject({
      thinking: "adaptive",
      effort: ["low", "medium", "high"],
    });
    expect(anthropicCapabilities("claude-sonnet-4-5")).toMatchObject({
      thinking: "budget",
      effort: [],
      structuredOutputs: true,
    });
    expect(anthropicCapabilities("claude-opus-4-5")).toMatchObject({
      thinking: "budget",
      effort: ["low", "medium", "high"],
    });
    expect(anthropicCapabilities("claude-opus-5")).toMatchObject({
      thinking: "adaptive",
      thinkingByDefault: true,
      thinkingAlwaysOn: false,
    });
    expect(anthropicCapabilities("claude-opus-5-5")).toMatchObject({
      thinking: "adaptive",
      thinkingAlwaysOn: true,
      forcedToolChoice: false,
    });
    expect(anthropicCapabilities("claude-fable-5-1")).toMatchObject({
      thinkingAlwaysOn: true,
      forcedToolChoice: false,
    });
    expect(anthropicCapabilities("claude-opus-4-1")).toMatchObject({ thinking: "budget", structuredOutputs: false });
  });

  it("reads snapshot, router and cloud forms of an id", () => {
    for (const id of [
      "claude-sonnet-4-5-20250929",
      "anthropic/claude-sonnet-4-5",
      "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
      "claude-sonnet-4-5@20250929",
      "Claude-Sonnet-4-5",
    ]) {
      expect(normaliseModelId(id)).toBe("claude-sonnet-4-5");
      expect(anthropicCapabilities(id).thinking).toBe("budget");
    }
  });

  it("gives unlisted Claude ids of a known generation that generation's rules, and other ids the safe default", () => {
    expect(anthropicCapabilities("claude-opus-5-6")).toMatchObject({
      thinking: "adaptive",
      thinkingAlwaysOn: true,
      forcedToolChoice: false,
      source: "generation rule (claude-opus-5-5)",
    });
    expect(anthropicCapabilities("claude-haiku-5")).toMatchObject({ thinking: "adaptive", thinkingByDefault: true });
    expect(anthropicCapabilities("claude-sonnet-4-9")).toMatchObject({
      thinking: "adaptive",
      source: "generation rule (claude-opus-4-7)",
    });
    expect(anthropicCapabilities("my-gateway-model")).toEqual({ ...defaultAnthropicCapabilities });
    expect(defaultAnthropicCapabilities).toMatchObject({
      thinking: "none",
      effort: [],
      structuredOutputs: true,
      forcedToolChoice: false,
    });
  });

  it("applies overrides after the table, the last matching one winning", () => {
    const overrides = [
      { pattern: "my-*", capabilities: { thinking: "adaptive" as const, effort: ["low" as const] } },
      { pattern: "my-claude", capabilities: { effort: ["high" as const] } },
    ];
    expect(anthropicCapabilities("my-claude", overrides)).toMatchObject({
      thinking: "adaptive",
      effort: ["high"],
      source: "override my-claude",
    });
    expect(anthropicCapabilities("claude-opus-4-8", overrides)).toMatchObject({ source: "claude-opus-4-8" });
  });
});

describe("openaiCapabilities", () => {
  it("knows reasoning models, their efforts and the chat models", () => {
    expect(openaiCapabilities("gpt-5-mini")).toMatchObject({
      reasoning: true,
      temperature: false,
      maxCompletionTokens: true,
      effort: ["minimal", "low", "medium", "high"],
    });
    expect(openaiCapabilities("gpt-5.1")).toMatchObject({ reasoning: true, effort: ["none", "low", "medium", "high"] });
    expect(openaiCapabilities("gpt-5.4-mini").effort).toContain("xhigh");
    expect(openaiCapabilities("gpt-5.2-pro")).toMatchObject({ reasoning: true, effort: ["high"] });
    expect(openaiCapabilities("o4-mini")).toMatchObject({ reasoning: true, effort: ["low", "medium", "high"] });
    expect(openaiCapabilities("gpt-4.1-mini")).toMatchObject({
      reasoning: false,
      temperature: true,
      maxCompletionTokens: false,
      strictJsonSchema: true,
    });
    expect(openaiCapabilities("gpt-3.5-turbo")).toMatchObject({ strictJsonSchema: false });
    expect(openaiCapabilities("gpt-5-chat-latest")).toMatchObject({ reasoning: false, temperature: false });
    expect(openaiCapabilities("openai/gpt-5-mini").reasoning).toBe(true);
    expect(openaiCapabilities("llama3.1:8b")).toMatchObject({
      reasoning: false,
      temperature: true,
      strictJsonSchema: true,
      source: "default",
    });
  });

  it("lets OPENAI_REASONING_MODELS decide the reasoning flag, and overrides change the rest", () => {
    expect(openaiCapabilities("qwq:32b", { isReasoning: true })).toMatchObject({
      reasoning: true,
      effort: ["low", "medium", "high"],
      temperature: false,
    });
    expect(openaiCapabilities("o3", { isReasoning: false })).toMatchObject({ reasoning: false, temperature: true });
    expect(
      openaiCapabilities("qwq:32b", { overrides: [{ pattern: "qwq*", capabilities: { strictJsonSchema: false } }] }),
    ).toMatchObject({ strictJsonSchema: false });
  });
});

describe("thinking effort", () => {
  it("maps budgets onto efforts and back", () => {
    expect([undefined, 0, 1024, 2048, 4096, 6144, 8192, 12_288, 16_384, 64_000].map(effortForBudget)).toEqual([
      "none",
      "none",
      "low",
      "low",
      "medium",
      "medium",
      "high",
      "high",
      "xhigh",
      "xhigh",
    ]);
    expect(budgetForEffort("high")).toBe(8192);
    expect(budgetForEffort("none")).toBeUndefined();
    expect(reasoningAllowance("medium")).toBe(8192);
    expect(reasoningAllowance("low", 10_000)).toBe(10_000);
  });

  it("picks the closest level a model accepts, never above the one asked for when a lower one exists", () => {
    expect(anthropicEffortFor("xhigh", ["low", "medium", "high"])).toBe("high");
    expect(anthropicEffortFor("none", ["low", "medium", "high"])).toBe("low");
    expect(anthropicEffortFor("high", [])).toBeUndefined();
    expect(openaiEffortFor("none", ["minimal", "low", "medium", "high"])).toBe("minimal");
    expect(openaiEffortFor("none", ["none", "low"])).toBe("none");
    expect(openaiEffortFor("xhigh", ["low", "medium", "high"])).toBe("high");
    expect(openaiEffortFor("low", ["high"])).toBe("high");
  });
});

describe("capability overrides from the environment", () => {
  it("parses model id patterns and their fields", () => {
    const issues: FieldIssue[] = [];
    expect(
      parseAnthropicCapabilityOverrides(
        '{"claude-opus-6*":{"thinking":"adaptive","effort":["low","high"],"forcedToolChoice":false}}',
        issues,
      ),
    ).toEqual([
      {
        pattern: "claude-opus-6*",
        capabilities: { thinking: "adaptive", effort: ["low", "high"], forcedToolChoice: false },
      },
    ]);
    expect(parseOpenAICapabilityOverrides('{"qwen3*":{"reasoning":true}}', issues)).toEqual([
      { pattern: "qwen3*", capabilities: { reasoning: true } },
    ]);
    expect(issues).toEqual([]);
  });

  it("names the variable, the pattern and the field of every mistake", () => {
    const issues: FieldIssue[] = [];
    parseAnthropicCapabilityOverrides('{"claude-x":{"thinking":"deep","efort":["low"]}}', issues);
    parseOpenAICapabilityOverrides("not json", issues);
    parseOpenAICapabilityOverrides('["gpt"]', issues);
    expect(issues.map((issue) => issue.field)).toEqual([
      "ANTHROPIC_MODEL_CAPABILITIES.claude-x.thinking",
      "ANTHROPIC_MODEL_CAPABILITIES.claude-x",
      "OPENAI_MODEL_CAPABILITIES",
      "OPENAI_MODEL_CAPABILITIES",
    ]);
    expect(issues[1]?.message).toContain("efort");
    expect(issues[2]?.message).toContain("JSON object");
  });
});
