import { join } from "node:path";
import { scenarioDomainKnowledge as familyKnowledge } from "@deliberate/knowledge-graph/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type CoordinatorEvent,
  type CoordinatorOutcome,
  createDeliberateClient,
  createHttpTransport,
  createMemoryStateStore,
  createReasoningCoordinator,
  type DeliberateClient,
  type KeptSession,
  type ReasoningCoordinatorOptions,
  type Transport,
} from "../src/index.ts";
import { connectMcp } from "../src/mcp.ts";
import { knowledgeGraphHost } from "./support/knowledge-graph-host.ts";
import {
  mcpServerMain,
  type ServiceProcess,
  serverEnvironment,
  startApi,
  temporaryDirectory,
} from "./support/services.ts";

// A conversation's reasoning session kept open across turns (keepSessionAcrossTurns), end to end
// against the built services with no model key (host-executed): over REST with no token, where the
// service cannot tell callers apart, so the coordinator continues and ends the session by its signed
// state; and over MCP stdio, where the connection is the caller.

const directory = temporaryDirectory();
afterAll(() => directory.remove());

const firstQuery =
  "Deduce the consequences of this: given that Alice is Bob's parent, Bob is Carol's and Carol is Dave's, is Alice an ancestor of Dave?";
const secondQuery =
  "Deduce the consequences of this: given that Alice is Bob's parent, Bob is Carol's and Carol is Dave's, is Bob an ancestor of Dave?";

interface Surface {
  client: DeliberateClient;
  /** How many times the host's model was asked to seed a new graph (extract from the goal and context). */
  seeds(): number;
  /** The session as the server's session read shows it (the knowledgeGraph section). */
  read(sessionId: string): Promise<{ state: string; calls: number; revision: number }>;
  close(): Promise<void>;
}

function seedsOf(host: ReturnType<typeof knowledgeGraphHost>): number {
  return host.prompts.filter(
    (prompt) => prompt.name === "knowledge_graph_extraction" && prompt.user.includes("Source: goal and context"),
  ).length;
}

async function restSurface(): Promise<Surface> {
  const api: ServiceProcess = await startApi(join(directory.path, `kept-api-${Date.now()}.db`));
  const transport = createHttpTransport({ baseUrl: api.url, env: {}, retries: 0 });
  const host = knowledgeGraphHost();
  return {
    client: createDeliberateClient({ transport, complete: host }),
    seeds: () => seedsOf(host),
    read: async (sessionId) =>
      (
        (await (await fetch(`${api.url}/v1/sessions/${sessionId}?limit=1`)).json()) as {
          knowledgeGraph: { state: string; calls: number; revision: number };
        }
      ).knowledgeGraph,
    close: async () => {
      await transport.close().catch(() => {});
      await api.stop();
    },
  };
}

async function mcpStdioSurface(): Promise<Surface> {
  const transport = await connectMcp({
    command: process.execPath,
    args: [mcpServerMain],
    env: await serverEnvironment(join(directory.path, `kept-stdio-${Date.now()}.db`)),
    stderr: "ignore",
  });
  const host = knowledgeGraphHost();
  return {
    client: createDeliberateClient({ transport: transport as Transport, complete: host }),
    seeds: () => seedsOf(host),
    read: async (sessionId) => {
      const resource = await transport.client.readResource({ uri: `deliberate://sessions/${sessionId}?limit=1` });
      return (
        JSON.parse((resource.contents[0] as { text: string }).text) as {
          knowledgeGraph: { state: string; calls: number; revision: number };
        }
      ).knowledgeGraph;
    },
    close: () => transport.close(),
  };
}

function reasoned(outcome: CoordinatorOutcome) {
  if (outcome.kind !== "answer" || outcome.source !== "reasoning")
    throw new Error(`expected a reasoning answer, got ${JSON.stringify(outcome).slice(0, 400)}`);
  return outcome;
}

describe.each([
  ["rest (anonymous)", restSurface],
  ["mcp-stdio", mcpStdioSurface],
] as const)("a conversation's session kept open over %s", (_name, open) => {
  let surface: Surface;
  beforeAll(async () => {
    surface = await open();
  });
  afterAll(async () => {
    await surface?.close();
  });

  function coordinatorWith(overrides: Partial<ReasoningCoordinatorOptions> = {}) {
    const events: CoordinatorEvent[] = [];
    let clock = Date.now();
    const store = createMemoryStateStore({ now: () => clock });
    const coordinator = createReasoningCoordinator({
      client: surface.client,
      standard: async () => ({ text: "Standard answer.", confidence: 0.9 }),
      onEvent: (event) => events.push(event),
      keepSessionAcrossTurns: { idleMs: 60_000 },
      store,
      now: () => clock,
      ...overrides,
    });
    const advance = (ms: number) => {
      clock += ms;
    };
    return { coordinator, events, store, advance };
  }

  it("the next turn continues the same graph (no new seed), and endConversation ends it", async () => {
    const { coordinator, events } = coordinatorWith();
    const seedsBefore = surface.seeds();
    const first = reasoned(
      await coordinator.handle({ query: firstQuery, domainKnowledge: familyKnowledge, conversationId: "conv-1" }),
    );
    const seedsAfterFirst = surface.seeds();
    expect(seedsAfterFirst).toBeGreaterThan(seedsBefore);
    expect(await surface.read(first.reasoningSessionId)).toMatchObject({ state: "active", calls: 1 });
    expect(events.some((event) => event.type === "progress" && event.stage === "session_kept")).toBe(true);

    const second = reasoned(await coordinator.handle({ query: secondQuery, conversationId: "conv-1" }));
    expect(second.reasoningSessionId).toBe(first.reasoningSessionId);
    // The graph was continued, not rebuilt: the second turn seeded nothing.
    expect(surface.seeds()).toBe(seedsAfterFirst);
    expect(await surface.read(first.reasoningSessionId)).toMatchObject({ state: "active", calls: 2 });

    // Another conversation gets its own session.
    const other = reasoned(
      await coordinator.handle({ query: firstQuery, domainKnowledge: familyKnowledge, conversationId: "conv-2" }),
    );
    expect(other.reasoningSessionId).not.toBe(first.reasoningSessionId);

    await coordinator.endConversation("conv-1");
    expect((await surface.read(first.reasoningSessionId)).state).toBe("ended");
    // After it, the conversation starts afresh.
    const third = reasoned(
      await coordinator.handle({ query: secondQuery, domainKnowledge: familyKnowledge, conversationId: "conv-1" }),
    );
    expect(third.reasoningSessionId).not.toBe(first.reasoningSessionId);
    await coordinator.endConversation("conv-1");
    await coordinator.endConversation("conv-2");
  });

  it("a turn after the idle window starts a new session and ends the old one", async () => {
    const { coordinator, advance } = coordinatorWith();
    const first = reasoned(
      await coordinator.handle({ query: firstQuery, domainKnowledge: familyKnowledge, conversationId: "idle" }),
    );
    advance(61_000);
    const second = reasoned(
      await coordinator.handle({ query: firstQuery, domainKnowledge: familyKnowledge, conversationId: "idle" }),
    );
    expect(second.reasoningSessionId).not.toBe(first.reasoningSessionId);
    expect((await surface.read(first.reasoningSessionId)).state).toBe("ended");
    await coordinator.endConversation("idle");
  });

  it("a kept session the server closed meanwhile is replaced by a new one, and the turn is answered", async () => {
    const { coordinator, events, store } = coordinatorWith();
    const first = reasoned(
      await coordinator.handle({ query: firstQuery, domainKnowledge: familyKnowledge, conversationId: "closed" }),
    );
    const kept = (await store.get("deliberate:kept-session:closed")) as KeptSession;
    await surface.client.reasoning.endSession({ sessionState: kept.sessionState });
    const second = reasoned(
      await coordinator.handle({ query: firstQuery, domainKnowledge: familyKnowledge, conversationId: "closed" }),
    );
    expect(second.reasoningSessionId).not.toBe(first.reasoningSessionId);
    expect(events.some((event) => event.type === "progress" && event.stage === "session_restarted")).toBe(true);
    await coordinator.endConversation("closed");
    expect((await surface.read(second.reasoningSessionId)).state).toBe("ended");
  });

  it("without the option, every query ends its session (ended by its signed state)", async () => {
    const { coordinator } = coordinatorWith({ keepSessionAcrossTurns: false });
    const outcome = reasoned(
      await coordinator.handle({ query: firstQuery, domainKnowledge: familyKnowledge, conversationId: "plain" }),
    );
    expect((await surface.read(outcome.reasoningSessionId)).state).toBe("ended");
  });
});
