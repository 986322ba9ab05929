import { isClientError } from "../errors.ts";
import { anySignal, timeoutSignal } from "../signals.ts";
import type { CoordinatorPhase } from "./bounds.ts";
import type { CachedCapability } from "./capability-cache.ts";
import { type CoordinatorContext, conversationKey, healthKey } from "./coordinator-context.ts";
import type { CoordinatorRequest, InvocationDecision } from "./coordinator-types.ts";
import { Fallback } from "./fallback-error.ts";
import { analyzeQuery, type QueryAnalysis } from "./heuristics.ts";
import { decideRoute, type GateResult, type RouteDecision } from "./routing.ts";
import { selectReasoningType, type TypeSelection } from "./type-selection.ts";

// Steps 1-2 of §1.3.1 (heuristics and route) and the gates (health, capability) with type selection, each
// gate under its own deadline.

export async function bounded<T>(
  c: CoordinatorContext,
  phase: CoordinatorPhase,
  deadlineMs: number,
  parent: AbortSignal | undefined,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const deadline = timeoutSignal(deadlineMs);
  const combined = anySignal([parent, deadline.signal]);
  c.emit({ type: "phase", phase, status: "started", deadlineMs });
  try {
    const value = await work(combined.signal);
    c.emit({ type: "phase", phase, status: "ok", deadlineMs });
    return value;
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    if (deadline.timedOut() || isClientError(error, "TIMEOUT")) {
      c.emit({ type: "phase", phase, status: "timed_out", deadlineMs, detail });
      throw new Fallback("timeout", `no answer within ${deadlineMs} ms (${phase.replace("_", " ")})`, "TIMEOUT", {
        phase,
        deadlineMs,
      });
    }
    c.emit({ type: "phase", phase, status: "failed", deadlineMs, detail });
    throw error;
  } finally {
    deadline.clear();
    combined.dispose();
  }
}

export async function healthy(
  c: CoordinatorContext,
  signal: AbortSignal | undefined,
): Promise<{ ok: true } | { ok: false; detail: string; timedOut: boolean }> {
  const key = healthKey(c.client.transport.endpoint);
  const cached = (await c.store.get(key)) as { ok: boolean; detail?: string; timedOut?: boolean } | undefined;
  if (cached && typeof cached.ok === "boolean")
    return cached.ok
      ? { ok: true }
      : { ok: false, detail: cached.detail ?? "unhealthy", timedOut: cached.timedOut === true };
  let result: { ok: true } | { ok: false; detail: string; timedOut: boolean };
  try {
    await bounded(c, "health_check", c.bounds.healthCheckMs, signal, (phaseSignal) =>
      c.client.transport.ping({ timeoutMs: c.bounds.healthCheckMs, signal: phaseSignal }),
    );
    result = { ok: true };
  } catch (error) {
    if (signal?.aborted) throw error;
    result = {
      ok: false,
      detail: error instanceof Error ? error.message : String(error),
      timedOut: error instanceof Fallback && error.kind === "timeout",
    };
  }
  await c.store.set(key, result, { ttlMs: c.healthTtlMs });
  return result;
}

export async function previousTurnUsedReasoning(
  c: CoordinatorContext,
  conversationId: string | undefined,
): Promise<{ used: boolean; lastAnswer: string | null }> {
  if (conversationId === undefined) return { used: false, lastAnswer: null };
  const record = (await c.store.get(conversationKey(conversationId))) as
    | { usedReasoning?: boolean; lastAnswer?: string | null }
    | undefined;
  return { used: record?.usedReasoning === true, lastAnswer: record?.lastAnswer ?? null };
}

/** Steps 1-2 of §1.3.1: the heuristics and the route, no server asked. */
export async function routeOf(
  c: CoordinatorContext,
  request: CoordinatorRequest,
): Promise<{ analysis: QueryAnalysis; routed: RouteDecision; previous: { used: boolean; lastAnswer: string | null } }> {
  const previous = await previousTurnUsedReasoning(c, request.conversationId);
  const analysis = analyzeQuery(
    request.query,
    { intent: request.intent, taskType: request.taskType, previousTurnUsedReasoning: previous.used },
    c.policy,
  );
  return { analysis, routed: decideRoute(analysis, c.policy), previous };
}

/** The gates (health, capability) and type selection, for a query the route sends to reasoning. */
export async function checkGates(
  c: CoordinatorContext,
  request: CoordinatorRequest,
  analysis: QueryAnalysis,
  routed: RouteDecision,
): Promise<InvocationDecision> {
  const standardOnly = (
    gate: GateResult,
    routeReason: string,
    capability: CachedCapability | null = null,
    selection: TypeSelection | null = null,
  ): InvocationDecision => ({
    route: "standard",
    routeReason,
    gate,
    analysis,
    selection,
    capability,
  });
  const health = await healthy(c, request.signal);
  if (!health.ok) {
    const where = health.timedOut ? { phase: "health_check" as const, deadlineMs: c.bounds.healthCheckMs } : {};
    return standardOnly(
      { passed: false, gate: "unhealthy", detail: health.detail, ...where },
      "gate: the reasoning server is not healthy",
    );
  }
  let capability: CachedCapability;
  try {
    capability = await bounded(c, "capabilities", c.bounds.capabilitiesMs, request.signal, (signal) =>
      c.capabilities.get(c.client.transport, c.client.reasoning, { timeoutMs: c.bounds.capabilitiesMs, signal }),
    );
  } catch (error) {
    if (request.signal?.aborted) throw error;
    const where =
      error instanceof Fallback && error.kind === "timeout"
        ? { phase: "capabilities" as const, deadlineMs: c.bounds.capabilitiesMs }
        : {};
    return standardOnly(
      { passed: false, gate: "capability", detail: error instanceof Error ? error.message : String(error), ...where },
      "gate: the capabilities could not be read",
    );
  }
  if (!capability.capability)
    return standardOnly(
      { passed: false, gate: "capability", detail: "the server advertises no reasoning capability" },
      "gate: no reasoning capability",
      capability,
    );
  const selection = selectReasoningType(
    {
      query: request.query,
      intent: request.intent,
      score: analysis.score,
      supported: capability.capability.supportedReasoningTypes,
    },
    c.policy,
  );
  if (selection.type === null)
    return standardOnly(
      { passed: false, gate: "capability", detail: selection.reasons.at(-1) ?? "no type" },
      "gate: no supported reasoning type",
      capability,
      selection,
    );
  return { route: routed.route, routeReason: routed.reason, gate: { passed: true }, analysis, selection, capability };
}

export async function decide(c: CoordinatorContext, request: CoordinatorRequest): Promise<InvocationDecision> {
  const { analysis, routed } = await routeOf(c, request);
  if (c.options.enabled === false) {
    return {
      route: "standard",
      routeReason: "gate: disabled",
      gate: { passed: false, gate: "disabled", detail: "advanced reasoning is disabled for this agent" },
      analysis,
      selection: null,
      capability: null,
    };
  }
  if (routed.route === "standard")
    return {
      route: "standard",
      routeReason: routed.reason,
      gate: { passed: true },
      analysis,
      selection: null,
      capability: null,
    };
  return checkGates(c, request, analysis, routed);
}
