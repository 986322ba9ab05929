import type { AvailableTool } from "@deliberate/contracts";
import type { DeliberateClient } from "../client.ts";
import { type CoordinatorBounds, resolveBounds } from "./bounds.ts";
import { type CapabilityCache, createCapabilityCache } from "./capability-cache.ts";
import { type ConversationSessions, createConversationSessions } from "./conversation-sessions.ts";
import type { ReasoningCoordinatorOptions } from "./coordinator-types.ts";
import type { CoordinatorEvent } from "./events.ts";
import { type CoordinatorPolicy, resolvePolicy } from "./policy.ts";
import { defaultHedges, type HedgeTemplates } from "./presentation.ts";
import { createMemoryStateStore, type ReasoningStateStore } from "./state-store.ts";

/** What every step of the coordinator works with: its options resolved once (defaults applied, deadlines checked). */
export interface CoordinatorContext {
  options: ReasoningCoordinatorOptions;
  client: DeliberateClient;
  policy: CoordinatorPolicy;
  bounds: CoordinatorBounds;
  store: ReasoningStateStore;
  now: () => number;
  newId: () => string;
  hedges: HedgeTemplates;
  maxRefinementCycles: number;
  maxToolCalls: number;
  healthTtlMs: number;
  capabilities: CapabilityCache;
  /** The host tools offered to the server (only when the host runs tools). */
  offeredTools: AvailableTool[];
  /** The sessions conversations keep open between turns (`keepSessionAcrossTurns`); null when off. */
  conversations: ConversationSessions | null;
  /** Reports an event; a listener's failure never changes an outcome. */
  emit: (event: CoordinatorEvent) => void;
}

export const sessionKey = (id: string) => `deliberate:session:${id}`;
export const conversationKey = (id: string) => `deliberate:conversation:${id}`;
export const healthKey = (endpoint: string) => `deliberate:health:${endpoint}`;

function randomId(): string {
  const crypto = (globalThis as { crypto?: { randomUUID?: () => string } }).crypto;
  if (crypto?.randomUUID) return `task-${crypto.randomUUID()}`;
  return `task-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 12)}`;
}

/** Resolves the options (a bad deadline is a CONFIGURATION error naming it). */
export function createCoordinatorContext(options: ReasoningCoordinatorOptions): CoordinatorContext {
  const store = options.store ?? createMemoryStateStore(options.now ? { now: options.now } : {});
  const now = options.now ?? Date.now;
  const keep = options.keepSessionAcrossTurns === true ? {} : options.keepSessionAcrossTurns || undefined;
  return {
    options,
    client: options.client,
    policy: resolvePolicy(options.policy),
    bounds: resolveBounds(options),
    store,
    now,
    newId: options.newId ?? randomId,
    hedges: { ...defaultHedges, ...options.hedges },
    maxRefinementCycles: options.maxRefinementCycles ?? 2,
    maxToolCalls: options.maxToolCalls ?? 8,
    healthTtlMs: options.healthTtlMs ?? 30_000,
    capabilities: createCapabilityCache({
      store,
      ...(options.capabilityTtlMs !== undefined ? { ttlMs: options.capabilityTtlMs } : {}),
      now,
    }),
    offeredTools: options.executeTool ? (options.availableTools ?? []) : [],
    conversations: keep ? createConversationSessions({ store, now, keep }) : null,
    emit: (event) => {
      try {
        options.onEvent?.(event);
      } catch {
        // A listener's failure never changes an outcome.
      }
    },
  };
}
