import { DeliberateError } from "@deliberate/base";
import { describe, expect, it } from "vitest";
import { modelIdForMode, parseProviderEnvironment, unknownModeModels, redactSettings } from "./environment.ts";

function invalid(env: Record<string, string | undefined>): DeliberateError {
  try {
    parseProviderEnvironment(env);
  } catch (error) {
    if (DeliberateError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("expected the environment to be rejected");
}

describe("parseProviderEnvironment", () => {
  it("selects nothing, with defaults, when no variable is set", () => {
    const settings = parseProviderEnvironment({});
    expect(settings).toMatchObject({ provider: "none", timeoutMs: 60_000, maxRetries: 3, missing: undefined });
    expect(settings.reason).toContain("ANTHROPIC_API_KEY");
    expect(modelIdForMode(settings, "linear")).toBeUndefined();
  });

  it("selects anthropic when ANTHROPIC_API_KEY is set, even when OpenAI is configured too", () => {
    const settings = parseProviderEnvironment({ ANTHROPIC_API_KEY: "sk-ant-1", OPENAI_API_KEY: "sk-2" });
    expect(settings.provider).toBe("anthropic");
    expect(settings.reason).toBe("ANTHROPIC_API_KEY is set");
  });

  it("selects openai for an OpenAI key, or for a base URL alone (local servers)", () => {
    expect(parseProviderEnvironment({ OPENAI_API_KEY: "sk-2" })).toMatchObject({
      provider: "openai",
      reason: "OPENAI_API_KEY is set",
    });
    const local = parseProviderEnvironment({
      OPENAI_BASE_URL: "http://localhost:11434/v1",
      OPENAI_MODEL: "llama3.1:8b",
    });
    expect(local).toMatchObject({ provider: "openai", reason: "OPENAI_BASE_URL is set", missing: undefined });
    expect(modelIdForMode(local, "tree")).toBe("llama3.1:8b");
  });

  it("lets DELIBERATE_PROVIDER override the keys (case-insensitive)", () => {
    const settings = parseProviderEnvironment({
      DELIBERATE_PROVIDER: " OpenAI ",
      ANTHROPIC_API_KEY: "a",
      OPENAI_API_KEY: "b",
    });
    expect(settings).toMatchObject({ provider: "openai", reason: "DELIBERATE_PROVIDER is openai" });
  });

  it("records the missing variable when the chosen provider has no key", () => {
    expect(parseProviderEnvironment({ DELIBERATE_PROVIDER: "anthropic" }).missing).toBe("ANTHROPIC_API_KEY");
    expect(parseProviderEnvironment({ DELIBERATE_PROVIDER: "openai" }).missing).toBe(
      "OPENAI_API_KEY (or OPENAI_BASE_URL)",
    );
  });

  it("treats empty values as unset", () => {
    const settings = parseProviderEnvironment({
      ANTHROPIC_API_KEY: "",
      OPENAI_API_KEY: "  ",
      REQUEST_TIMEOUT_MS: "",
      DELIBERATE_PROVIDER: "",
    });
    expect(settings).toMatchObject({ provider: "none", timeoutMs: 60_000 });
  });

  it("resolves model ids: mode override > provider default > built-in default", () => {
    const anthropic = parseProviderEnvironment({ ANTHROPIC_API_KEY: "a", ANTHROPIC_MODEL_TREE: "claude-opus-4-1" });
    expect(modelIdForMode(anthropic, "tree")).toBe("claude-opus-4-1");
    expect(modelIdForMode(anthropic, "linear")).toBe("claude-sonnet-5");
    expect(modelIdForMode(anthropic, "auto")).toBe("claude-haiku-4-5");

    const withDefault = parseProviderEnvironment({
      ANTHROPIC_API_KEY: "a",
      ANTHROPIC_MODEL: "claude-x",
      ANTHROPIC_MODEL_MCTS: "claude-y",
    });
    expect(modelIdForMode(withDefault, "auto")).toBe("claude-x");
    expect(modelIdForMode(withDefault, "mcts")).toBe("claude-y");

    const openai = parseProviderEnvironment({ OPENAI_API_KEY: "b", OPENAI_MODEL_COUNTERFACTUAL: "o4-mini" });
    expect(modelIdForMode(openai, "counterfactual")).toBe("o4-mini");
    expect(modelIdForMode(openai, "auto")).toBe("gpt-5-mini");
  });

  it("warns about model variables that name no mode", () => {
    const settings = parseProviderEnvironment({
      ANTHROPIC_API_KEY: "a",
      ANTHROPIC_MODEL_LINEAER: "claude-x",
      ANTHROPIC_MODEL_LINEAR: "claude-y",
    });
    expect(unknownModeModels(settings, ["linear", "tree"])).toEqual([
      expect.stringContaining("ANTHROPIC_MODEL_LINEAER names no mode"),
    ]);
    expect(modelIdForMode(settings, "linear")).toBe("claude-y");
  });

  it("reads capability overrides, which are not a mode's model, and refuses bad ones naming the field", () => {
    const settings = parseProviderEnvironment({
      ANTHROPIC_API_KEY: "a",
      ANTHROPIC_MODEL_CAPABILITIES: '{"claude-opus-6*":{"thinking":"adaptive","effort":["low","high"]}}',
      OPENAI_MODEL_CAPABILITIES: '{"qwen3*":{"reasoning":true}}',
    });
    expect(settings.anthropic.capabilities).toEqual([
      { pattern: "claude-opus-6*", capabilities: { thinking: "adaptive", effort: ["low", "high"] } },
    ]);
    expect(settings.openai.capabilities).toEqual([{ pattern: "qwen3*", capabilities: { reasoning: true } }]);
    expect(settings.anthropic.modeModels).toEqual({});
    expect(unknownModeModels(settings, ["linear"])).toEqual([]);

    let error: unknown;
    try {
      parseProviderEnvironment({
        ANTHROPIC_API_KEY: "a",
        ANTHROPIC_MODEL_CAPABILITIES: '{"claude-x":{"effort":["extreme"]}}',
      });
    } catch (caught) {
      error = caught;
    }
    expect(error).toMatchObject({
      code: "INVALID_INPUT",
      issues: [{ field: "ANTHROPIC_MODEL_CAPABILITIES.claude-x.effort.0" }],
    });
  });

  it("reads the timeout, retries and OpenAI structured-output mode", () => {
    const settings = parseProviderEnvironment({
      OPENAI_BASE_URL: "http://127.0.0.1:8000/v1",
      REQUEST_TIMEOUT_MS: "1500",
      MAX_RETRIES: "0",
      OPENAI_STRUCTURED_OUTPUT: "json_object",
    });
    expect(settings).toMatchObject({ timeoutMs: 1_500, maxRetries: 0, openai: { structuredOutput: "json_object" } });
  });

  it("reads which OpenAI model ids are reasoning models: the built-in pattern by default, a list, or none", () => {
    expect(parseProviderEnvironment({ OPENAI_API_KEY: "b" }).openai.reasoningModels).toEqual(["default"]);
    expect(
      parseProviderEnvironment({ OPENAI_REASONING_MODELS: " default, qwq*, !gpt-5-chat* ," }).openai.reasoningModels,
    ).toEqual(["default", "qwq*", "!gpt-5-chat*"]);
    expect(parseProviderEnvironment({ OPENAI_REASONING_MODELS: "None" }).openai.reasoningModels).toEqual([]);
    expect(
      parseProviderEnvironment({ OPENAI_REASONING_MODELS: "openai/o3,deepseek-r1:7b" }).openai.reasoningModels,
    ).toEqual(["openai/o3", "deepseek-r1:7b"]);
    const error = invalid({ OPENAI_REASONING_MODELS: "o3 mini, ," });
    expect(error.issues).toEqual([{ field: "OPENAI_REASONING_MODELS", message: expect.stringContaining("o3 mini") }]);
  });

  it("rejects an unknown DELIBERATE_PROVIDER, naming the variable", () => {
    const error = invalid({ DELIBERATE_PROVIDER: "gemini" });
    expect(error.code).toBe("INVALID_INPUT");
    expect(error.issues).toEqual([
      { field: "DELIBERATE_PROVIDER", message: expect.stringContaining("anthropic, openai") },
    ]);
    expect(error.message).toContain("gemini");
  });

  it("rejects bad numbers and URLs, listing every bad variable at once", () => {
    const error = invalid({
      REQUEST_TIMEOUT_MS: "1.5s",
      MAX_RETRIES: "-1",
      OPENAI_BASE_URL: "localhost:11434",
      ANTHROPIC_BASE_URL: "ftp://example.com",
      OPENAI_STRUCTURED_OUTPUT: "xml",
    });
    expect(error.issues.map((issue) => issue.field).sort()).toEqual([
      "ANTHROPIC_BASE_URL",
      "MAX_RETRIES",
      "OPENAI_BASE_URL",
      "OPENAI_STRUCTURED_OUTPUT",
      "REQUEST_TIMEOUT_MS",
    ]);
    expect(invalid({ REQUEST_TIMEOUT_MS: "0" }).issues[0]?.field).toBe("REQUEST_TIMEOUT_MS");
    expect(invalid({ MAX_RETRIES: "11" }).issues[0]?.message).toContain("from 0 to 10");
  });

  it("never puts a key in an error message", () => {
    const error = invalid({ ANTHROPIC_API_KEY: "sk-ant-secret", DELIBERATE_PROVIDER: "nope", MAX_RETRIES: "x" });
    expect(JSON.stringify(error.toJSON())).not.toContain("sk-ant-secret");
  });
});

describe("redactSettings", () => {
  it("hides keys and URL passwords and keeps everything else", () => {
    const settings = parseProviderEnvironment({
      ANTHROPIC_API_KEY: "sk-ant-secret",
      OPENAI_BASE_URL: "https://user:hunter2@gateway.example.com/v1",
      ANTHROPIC_MODEL_TREE: "claude-opus-4-1",
    });
    const redacted = redactSettings(settings);
    const printed = JSON.stringify(redacted);
    expect(printed).not.toContain("sk-ant-secret");
    expect(printed).not.toContain("hunter2");
    expect(redacted.anthropic.apiKey).toBe("(set)");
    expect(redacted.openai.apiKey).toBe("(not set)");
    expect(redacted.anthropic.modeModels).toEqual({ tree: "claude-opus-4-1" });
    expect(redacted.provider).toBe("anthropic");
    expect(settings.anthropic.apiKey).toBe("sk-ant-secret");
  });
});
