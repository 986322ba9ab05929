import { describe, expect, it } from "vitest";
import { capability, responses, trace } from "../../test/support/responses.ts";
import type { ServerDescription, Transport } from "../transport.ts";
import { createCapabilityCache } from "./capability-cache.ts";
import { defaultPolicy } from "./policy.ts";
import { confidenceBand, defaultHedges, summarizeWork, userInputPrompt } from "./presentation.ts";
import { createMemoryStateStore } from "./state-store.ts";

describe("confidence bands and hedged text", () => {
  it.each([
    [0.95, "high"],
    [0.8, "high"],
    [0.79, "moderate"],
    [0.5, "moderate"],
    [0.49, "low"],
    [0.25, "low"],
    [0.1, "insufficient"],
    [null, "unknown"],
  ] as const)("%s is %s", (score, band) => {
    expect(confidenceBand(score, defaultPolicy.bands)).toBe(band);
  });

  it("presents high confidence directly and hedges the rest", () => {
    expect(defaultHedges.high("Alice is Dave's ancestor.")).toBe("Alice is Dave's ancestor.");
    expect(defaultHedges.moderate("X.")).toMatch(/^My current thinking suggests/);
    expect(defaultHedges.low("X.")).toMatch(/^My confidence in this is low, but one possibility is: X\./);
    expect(defaultHedges.insufficient("X.")).toMatch(/^I couldn't reach a confident conclusion/);
    expect(defaultHedges.unknown("X.")).toContain("X.");
    expect(userInputPrompt("Do they have umbrellas?")).toBe(
      "To help me reason more effectively about this, could you please tell me: Do they have umbrellas?",
    );
  });
});

describe("show my work", () => {
  it("summarises approach, key information, main steps and confidence from the trace, without raw JSON", () => {
    const withSteps = trace({
      cotVariation: { requested: "selfConsistency", used: "selfConsistency" },
      steps: [
        { index: 0, kind: "seed", summary: "Seeded the graph", addedEntities: [], addedRelations: [] },
        { index: 1, kind: "toolCall", summary: "Asked the host to run weather", addedEntities: [], addedRelations: [] },
        {
          index: 2,
          kind: "toolResult",
          summary: "weather: rain expected in Paris",
          addedEntities: [],
          addedRelations: [],
        },
        {
          index: 3,
          kind: "deduce",
          summary: "Applied 1 rule: the picnic is at risk from rain",
          addedEntities: [],
          addedRelations: [],
        },
        { index: 4, kind: "answer", summary: "Answered", addedEntities: [], addedRelations: [] },
      ],
    });
    const summary = summarizeWork({
      response: responses.completed("t", "Go, with umbrellas.", 0.86, withSteps),
      reasoningType: "planAndExecuteCoT",
      refinements: ["Is rain certain?"],
      bands: defaultPolicy.bands,
    });
    expect(summary.approach).toBe(
      "Deductive analysis: applying rules to the known facts, with several independent answers compared for agreement",
    );
    expect(summary.keyInformation).toEqual(["Supported by: Alice ancestor of Dave", "weather: rain expected in Paris"]);
    expect(summary.mainSteps).toEqual([
      "Asked the host to run weather",
      "weather: rain expected in Paris",
      "Applied 1 rule: the picnic is at risk from rain",
    ]);
    expect(summary.confidence).toEqual({ band: "high", label: "High", score: 0.86 });
    expect(summary.refinements).toEqual(["Is rain certain?"]);
    expect(summary.markdown).toContain("**Confidence in this analysis:** High (86%)");
    expect(summary.markdown).not.toMatch(/[{}]/);
  });

  it("works from a response without a trace", () => {
    const summary = summarizeWork({
      response: responses.completed("t", "Maybe.", null, null),
      reasoningType: "abductive",
      bands: defaultPolicy.bands,
    });
    expect(summary).toMatchObject({
      approach: "Hypothesis generation: finding the most plausible explanation",
      keyInformation: [],
      mainSteps: [],
      confidence: { band: "unknown", label: "Unknown" },
    });
  });
});

describe("state store and capability cache", () => {
  it("expires entries by their TTL and keeps stored values apart from the caller's", async () => {
    let clock = 1_000;
    const store = createMemoryStateStore({ now: () => clock, maxEntries: 2 });
    const value = { a: [1] };
    await store.set("k", value, { ttlMs: 100 });
    value.a.push(2);
    expect(await store.get("k")).toEqual({ a: [1] });
    clock += 100;
    expect(await store.get("k")).toBeUndefined();
    await store.set("x", 1);
    await store.set("y", 2);
    await store.set("z", 3);
    expect(store.size()).toBe(2);
    expect(await store.get("x")).toBeUndefined();
  });

  function describing(descriptions: Array<Partial<ServerDescription>>): {
    transport: Transport;
    fetches: () => number;
    version: { value: string };
  } {
    let fetches = 0;
    const version = { value: "v1" };
    const transport = {
      surface: "http",
      endpoint: "http://server",
      protocolVersion: () => version.value,
    } as unknown as Transport;
    const operations = {
      async capabilities() {
        const description = descriptions[Math.min(fetches, descriptions.length - 1)] ?? {};
        fetches += 1;
        const full: ServerDescription = {
          surface: "http",
          endpoint: "http://server",
          protocolVersion: version.value,
          server: null,
          capabilities: {},
          ttlMs: null,
          ...description,
        };
        return full.capabilities["reasoning"]
          ? { capability: capability(full.capabilities["reasoning"] as object), description: full }
          : null;
      },
    };
    return { transport: Object.assign(transport, { operations }), fetches: () => fetches, version };
  }

  it("keeps the capability per server and protocol version, for the server's hinted lifetime or the default", async () => {
    let clock = 0;
    const store = createMemoryStateStore({ now: () => clock });
    const cache = createCapabilityCache({ store, ttlMs: 1_000, now: () => clock });
    const server = describing([
      { capabilities: { reasoning: { serverName: "a" } }, ttlMs: 5_000 },
      { capabilities: { reasoning: { serverName: "b" } }, ttlMs: null },
    ]);
    const operations = (server.transport as unknown as { operations: Parameters<typeof cache.get>[1] }).operations;
    const first = await cache.get(server.transport, operations);
    expect(first).toMatchObject({
      capability: { serverName: "a" },
      ttlSource: "server",
      expiresAt: 5_000,
      protocolVersion: "v1",
    });
    clock = 4_999;
    expect((await cache.get(server.transport, operations)).capability?.serverName).toBe("a");
    expect(server.fetches()).toBe(1);
    clock = 5_000;
    const second = await cache.get(server.transport, operations);
    expect(second).toMatchObject({ capability: { serverName: "b" }, ttlSource: "default", expiresAt: 6_000 });
    expect(server.fetches()).toBe(2);
    // A new protocol version is a new key; refresh fetches whatever the cache holds.
    server.version.value = "v2";
    await cache.get(server.transport, operations);
    expect(server.fetches()).toBe(3);
    await cache.get(server.transport, operations, { refresh: true });
    expect(server.fetches()).toBe(4);
  });

  it("does not keep what the server says not to store, and remembers a server with no capability", async () => {
    const store = createMemoryStateStore();
    const cache = createCapabilityCache({ store });
    const noStore = describing([{ capabilities: { reasoning: {} }, ttlMs: 0 }]);
    const operations = (noStore.transport as unknown as { operations: Parameters<typeof cache.get>[1] }).operations;
    await cache.get(noStore.transport, operations);
    await cache.get(noStore.transport, operations);
    expect(noStore.fetches()).toBe(2);
    const none = describing([{ capabilities: {} }]);
    const noneOperations = (none.transport as unknown as { operations: Parameters<typeof cache.get>[1] }).operations;
    expect((await cache.get(none.transport, noneOperations)).capability).toBeNull();
    await cache.get(none.transport, noneOperations);
    expect(none.fetches()).toBe(1);
  });

  it("ignores a stored entry that no longer parses (a host store shared across versions)", async () => {
    const store = createMemoryStateStore();
    await store.set("deliberate:capabilities:http://server|v1", {
      capability: { serverName: 3 },
      expiresAt: Number.MAX_SAFE_INTEGER,
    });
    const cache = createCapabilityCache({ store });
    const server = describing([{ capabilities: { reasoning: {} } }]);
    const operations = (server.transport as unknown as { operations: Parameters<typeof cache.get>[1] }).operations;
    expect((await cache.get(server.transport, operations)).capability?.serverName).toBe("deliberate-test");
    expect(server.fetches()).toBe(1);
  });
});
