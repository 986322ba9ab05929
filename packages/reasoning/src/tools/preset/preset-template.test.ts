import { describe, expect, it } from "vitest";
import { renderValue, resolveTemplate } from "./preset-template.ts";

const branches = (seed: string) => [
  {
    id: `br_${seed}1`,
    content: "Timeouts under load",
    score: 0.8,
    status: "active",
    created_at: `2026-11-22T10:00:0${seed}.000Z`,
  },
  {
    id: `br_${seed}2`,
    content: "A race on the cache",
    score: 0.6666666666666666,
    status: "active",
    created_at: `2026-11-22T10:00:0${seed}.000Z`,
  },
];

describe("renderValue: results as text for the model", () => {
  it("renders records readably, without ids or timestamps, so the text is the same on every run", () => {
    const text = renderValue(branches("1"));
    expect(text).toBe(
      "- Timeouts under load (score 0.8) — status: active\n- A race on the cache (score 0.6667) — status: active",
    );
    expect(renderValue(branches("2"))).toBe(text);
    expect(text).not.toMatch(/br_|2026|[{}"]/);
  });

  it("leads each item with its name and body, then its numbers, then its other fields", () => {
    expect(renderValue([{ viewpoint: "skeptic", content: "Caches hide bugs", novelty_score: 0.6 }])).toBe(
      "- skeptic: Caches hide bugs (novelty score 0.6)",
    );
    expect(renderValue([{ option: "Postgres", score: 0.71, rank: 1, tied: false }])).toBe(
      "- Postgres (score 0.71, rank 1, tied no)",
    );
    expect(renderValue([{ type: "anchoring", severity: "high", confidence: 0.7, evidence: "first quote" }])).toBe(
      "- anchoring (confidence 0.7) — severity: high; evidence: first quote",
    );
    expect(renderValue({ key_players: ["ops", "security"], keep_informed: [], thought_id: "th_1" })).toBe(
      "key players: ops; security",
    );
    expect(renderValue(["a", "b"])).toBe("- a\n- b");
    expect(renderValue(0.123456)).toBe("0.1235");
  });

  it("puts that text into templates", () => {
    const scope = {
      inputs: {},
      results: new Map([["tree", { branches: branches("3"), session_id: "ses_9" }]]),
      sessionId: undefined,
    };
    expect(resolveTemplate("Failure modes:\n{{steps.tree.branches}}", scope)).toBe(
      `Failure modes:\n${renderValue(branches("1"))}`,
    );
  });
});
