import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { defaultReasoningModelPattern, isReasoningModel } from "./reasoning-models.ts";

describe("isReasoningModel", () => {
  it("knows the o-series and the gpt-5 family, also behind a router prefix", () => {
    for (const id of [
      "o1",
      "o1-mini",
      "o3",
      "o3-mini",
      "o3-pro",
      "o4-mini",
      "O3",
      "gpt-5",
      "gpt-5-mini",
      "gpt-5.1",
      "gpt-5.2-pro",
      "openai/o3",
      "openai/gpt-5",
    ]) {
      expect(isReasoningModel(id), id).toBe(true);
    }
    for (const id of [
      "gpt-4.1-mini",
      "gpt-4o",
      "gpt-4o-mini",
      "llama3.1:8b",
      "ollama",
      "omni-moderation-latest",
      "claude-sonnet-4-5",
    ]) {
      expect(isReasoningModel(id), id).toBe(false);
      expect(defaultReasoningModelPattern.test(id), id).toBe(false);
    }
  });

  it("matches wildcards against the whole id, case-insensitively, with regex characters taken literally", () => {
    expect(isReasoningModel("qwq:32b", ["qwq*"])).toBe(true);
    expect(isReasoningModel("my-qwq", ["qwq*"])).toBe(false);
    expect(isReasoningModel("DeepSeek-R1", ["deepseek-r1"])).toBe(true);
    expect(isReasoningModel("o3xmini", ["o3.mini"])).toBe(false);
    expect(isReasoningModel("o3.mini", ["o3.mini"])).toBe(true);
  });

  it("an exclusion wins wherever it stands; an empty list matches nothing", () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[a-z0-9][a-z0-9.:-]{0,20}$/),
        fc.array(fc.constantFrom("default", "*", "gpt-*", "o*")),
        (id, patterns) => {
          expect(isReasoningModel(id, [`!${id}`, ...patterns])).toBe(false);
          expect(isReasoningModel(id, [...patterns, `!${id}`])).toBe(false);
          expect(isReasoningModel(id, [])).toBe(false);
          expect(isReasoningModel(id, ["*"])).toBe(true);
          expect(isReasoningModel(id, [id])).toBe(true);
        },
      ),
    );
  });
});
