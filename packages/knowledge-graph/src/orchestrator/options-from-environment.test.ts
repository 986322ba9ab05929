import { ConfigError } from "@deliberate/base";
import { describe, expect, it } from "vitest";
import { knowledgeGraphOptionsFromEnvironment } from "./options-from-environment.ts";

describe("knowledge-graph options from the environment", () => {
  it("reads the lifecycle and limits, leaving the rest to the defaults", () => {
    expect(knowledgeGraphOptionsFromEnvironment({})).toEqual({});
    expect(
      knowledgeGraphOptionsFromEnvironment({
        KNOWLEDGE_GRAPH_IDLE_TIMEOUT_SECONDS: "60",
        KNOWLEDGE_GRAPH_MAX_SESSIONS: "5",
        KNOWLEDGE_GRAPH_STATE_SECRET: "0123456789abcdef",
      }),
    ).toEqual({ idleTimeoutMs: 60_000, maxActiveSessions: 5, stateSecret: "0123456789abcdef" });
    expect(
      knowledgeGraphOptionsFromEnvironment({
        KNOWLEDGE_GRAPH_MAX_GRAPH_GROWTH: "500",
        KNOWLEDGE_GRAPH_MAX_DERIVED_FACTS: "250000",
      }),
    ).toEqual({ maxGraphGrowth: 500, maxDerivedFacts: 250_000 });
  });

  it("names the variable that is wrong", () => {
    expect(() => knowledgeGraphOptionsFromEnvironment({ KNOWLEDGE_GRAPH_MAX_SESSIONS: "0" })).toThrow(ConfigError);
    expect(() => knowledgeGraphOptionsFromEnvironment({ KNOWLEDGE_GRAPH_IDLE_TIMEOUT_SECONDS: "soon" })).toThrow(
      /KNOWLEDGE_GRAPH_IDLE_TIMEOUT_SECONDS/,
    );
    expect(() => knowledgeGraphOptionsFromEnvironment({ KNOWLEDGE_GRAPH_STATE_SECRET: "short" })).toThrow(
      /at least 16/,
    );
    expect(() => knowledgeGraphOptionsFromEnvironment({ KNOWLEDGE_GRAPH_MAX_DERIVED_FACTS: "-3" })).toThrow(
      /KNOWLEDGE_GRAPH_MAX_DERIVED_FACTS must be a whole number of at least 1/,
    );
  });
});
