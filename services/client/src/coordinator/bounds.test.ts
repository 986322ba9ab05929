import { describe, expect, it } from "vitest";
import { capability, responses } from "../../test/support/responses.ts";
import { createDeliberateClient } from "../client.ts";
import { DeliberateClientError } from "../errors.ts";
import type { CallOptions, ServerDescription, Transport } from "../transport.ts";
import { defaultTimings, resolveBounds } from "./bounds.ts";
import { createReasoningCoordinator } from "./coordinator.ts";
import type { CoordinatorEvent } from "./events.ts";
import { fallbackMatrix } from "./fallback.ts";

// Every phase of a reasoning attempt has a deadline, and a server that stops answering is given up by one of them
// (reported as the phase and the deadline it had; the tests assert on those, never on elapsed time).

/** Resolves never, rejecting when the call's signal aborts (as a transport does). */
function never(options: CallOptions = {}): Promise<never> {
  return new Promise((_resolve, reject) => {
    options.signal?.addEventListener(
      "abort",
      () => reject(new DeliberateClientError({ code: "ABORTED", message: "aborted" })),
      { once: true },
    );
  });
}

/** A server that answers until `hangAfter` executeTask calls have started, then answers nothing at all. */
function hangingServer(hangAfter: { pings?: boolean; describe?: boolean; executeCalls?: number }) {
  let executeCalls = 0;
  const hung = () =>
    (hangAfter.executeCalls !== undefined && executeCalls > hangAfter.executeCalls) || hangAfter.pings === true;
  const transport: Transport = {
    surface: "mcp",
    endpoint: "memory://hanging",
    async callTool() {
      throw new Error("not used");
    },
    async callMethod(method, params, options = {}) {
      if (method === "reasoning/executeTask") {
        executeCalls += 1;
        if (hung()) return never(options);
        return responses.completed(params["taskId"] as string, "An answer.");
      }
      if (hung()) return never(options);
      return {
        reasoningSessionId: params["reasoningSessionId"],
        status: "ended",
        alreadyClosed: false,
        endedAt: "2026-11-22T12:00:00.000Z",
        entities: 1,
        relations: 1,
      };
    },
    async describe(options = {}): Promise<ServerDescription> {
      if (hangAfter.describe) return never(options);
      return {
        surface: "mcp",
        endpoint: "memory://hanging",
        protocolVersion: "2025-11-25",
        server: null,
        capabilities: { reasoning: capability() },
        ttlMs: null,
      };
    },
    async ping(options = {}) {
      if (hung()) return never(options);
    },
    protocolVersion: () => "2025-11-25",
    async close() {},
  };
  return createDeliberateClient({ transport });
}

const query = "Why did last night's deploy fail?";

function run(client: ReturnType<typeof hangingServer>, timings: Record<string, number> = {}) {
  const events: CoordinatorEvent[] = [];
  const coordinator = createReasoningCoordinator({
    client,
    standard: async () => ({ text: "Standard answer." }),
    onEvent: (event) => events.push(event),
    ...timings,
  });
  return { coordinator, events };
}

describe("the deadlines", () => {
  it("defaults: health 2 s, capability 2 s, liveness every 2 s, a request 60 s, the turn 120 s; a silent server given up within 8 s", () => {
    expect(resolveBounds({})).toEqual({
      healthCheckMs: 2_000,
      capabilitiesMs: 2_000,
      livenessIntervalMs: 2_000,
      callMs: 60_000,
      turnMs: 120_000,
      endSessionMs: 2_000,
      unresponsiveFallbackMs: 8_000,
    });
    expect(resolveBounds({}).unresponsiveFallbackMs).toBeLessThanOrEqual(10_000);
    // Without the liveness watch, a stalled call is bounded by the call timeout.
    expect(resolveBounds({ livenessIntervalMs: 0, callTimeoutMs: 5_000 }).unresponsiveFallbackMs).toBe(9_000);
    expect(resolveBounds({ timeoutMs: 3_000 }).unresponsiveFallbackMs).toBe(3_000);
  });

  it.each(Object.keys(defaultTimings))("refuses a bad %s, naming it", (name) => {
    for (const value of [-1, 1.5, Number.NaN]) {
      expect(() => resolveBounds({ [name]: value })).toThrow(
        expect.objectContaining({ code: "CONFIGURATION", issues: [expect.objectContaining({ field: name })] }),
      );
    }
  });

  it("a server that answers nothing: the health check's deadline, standard answer, nothing else asked", async () => {
    const { coordinator, events } = run(hangingServer({ pings: true }), { healthCheckTimeoutMs: 150 });
    const outcome = await coordinator.handle({ query });
    expect(outcome).toMatchObject({
      kind: "answer",
      source: "standard",
      decision: { gate: { passed: false, gate: "unhealthy", phase: "health_check", deadlineMs: 150 } },
    });
    expect(events.filter((event) => event.type === "phase")).toEqual([
      { type: "phase", phase: "health_check", status: "started", deadlineMs: 150 },
      expect.objectContaining({ type: "phase", phase: "health_check", status: "timed_out", deadlineMs: 150 }),
    ]);
  });

  it("a capability read that hangs: its deadline", async () => {
    const { coordinator } = run(hangingServer({ describe: true }), { capabilityTimeoutMs: 150 });
    const outcome = await coordinator.handle({ query });
    expect(outcome).toMatchObject({
      source: "standard",
      decision: { gate: { passed: false, gate: "capability", phase: "capabilities", deadlineMs: 150 } },
    });
  });

  it("a server that goes silent mid-task: the liveness watch gives up on it, however long the call timeout", async () => {
    const { coordinator, events } = run(hangingServer({ executeCalls: 0 }), {
      healthCheckTimeoutMs: 150,
      livenessIntervalMs: 100,
      callTimeoutMs: 600_000,
    });
    const outcome = await coordinator.handle({ query });
    expect(outcome).toMatchObject({
      source: "standard",
      failure: { kind: "timeout", phase: "liveness", deadlineMs: 250 },
      notice: fallbackMatrix.timeout.userMessage,
    });
    expect(events).toContainEqual(
      expect.objectContaining({ type: "phase", phase: "liveness", status: "timed_out", deadlineMs: 250 }),
    );
    // endSession is attempted but not waited for: the fallback does not wait on a silent server.
    expect(
      events.some((event) => event.type === "phase" && event.phase === "end_session" && event.status === "started"),
    ).toBe(true);
  });

  it("with the watch off, a silent call is given up by the request deadline", async () => {
    const { coordinator } = run(hangingServer({ executeCalls: 0 }), { livenessIntervalMs: 0, callTimeoutMs: 150 });
    const outcome = await coordinator.handle({ query });
    expect(outcome).toMatchObject({
      source: "standard",
      failure: { kind: "timeout", phase: "request", deadlineMs: 150 },
    });
  });

  it("the turn's deadline bounds the whole interaction", async () => {
    const { coordinator, events } = run(hangingServer({ executeCalls: 0 }), { livenessIntervalMs: 0, timeoutMs: 150 });
    const outcome = await coordinator.handle({ query });
    expect(outcome).toMatchObject({ source: "standard", failure: { kind: "timeout", phase: "turn", deadlineMs: 150 } });
    expect(events).toContainEqual({ type: "phase", phase: "turn", status: "timed_out", deadlineMs: 150 });
  });

  it("a server that answers pings while it works is not given up", async () => {
    let calls = 0;
    const transport: Transport = {
      surface: "mcp",
      endpoint: "memory://slow",
      callTool: async () => {
        throw new Error("not used");
      },
      async callMethod(method, params) {
        if (method !== "reasoning/executeTask")
          return {
            reasoningSessionId: params["reasoningSessionId"],
            status: "ended",
            alreadyClosed: false,
            endedAt: "2026-11-22T12:00:00.000Z",
            entities: 1,
            relations: 1,
          };
        calls += 1;
        // Slow: answers after several liveness rounds.
        await new Promise((resolve) => setTimeout(resolve, 400));
        return responses.completed(params["taskId"] as string, "Slow but sure.");
      },
      describe: async () => ({
        surface: "mcp",
        endpoint: "memory://slow",
        protocolVersion: "2025-11-25",
        server: null,
        capabilities: { reasoning: capability() },
        ttlMs: null,
      }),
      ping: async () => {},
      protocolVersion: () => "2025-11-25",
      close: async () => {},
    };
    const { coordinator } = run(createDeliberateClient({ transport }) as never, {
      livenessIntervalMs: 50,
      healthCheckTimeoutMs: 100,
    });
    expect(await coordinator.handle({ query })).toMatchObject({ source: "reasoning", answer: "Slow but sure." });
    expect(calls).toBe(1);
  });
});
