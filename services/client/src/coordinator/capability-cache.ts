import { type ReasoningCapability, reasoningCapabilitySchema } from "@deliberate/contracts";
import type { ReasoningOperations } from "../reasoning-operations.ts";
import type { CallOptions, Transport } from "../transport.ts";
import type { ReasoningStateStore } from "./state-store.ts";

/** What the cache holds for one server and protocol version. */
export interface CachedCapability {
  /** The server's `reasoning` capability, or null when it advertises none. */
  capability: ReasoningCapability | null;
  endpoint: string;
  protocolVersion: string;
  fetchedAt: number;
  expiresAt: number;
  /** Whether the lifetime came from the server (`Cache-Control` / `Expires`) or the default TTL. */
  ttlSource: "server" | "default";
}

export interface CapabilityCacheOptions {
  store: ReasoningStateStore;
  /** Lifetime when the server gives no hint; default 10 minutes. */
  ttlMs?: number;
  now?: () => number;
}

/** The store key: one entry per server and protocol version. */
export function capabilityKey(endpoint: string, protocolVersion: string): string {
  return `deliberate:capabilities:${endpoint}|${protocolVersion}`;
}

function readEntry(value: unknown, now: number): CachedCapability | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const entry = value as CachedCapability;
  if (typeof entry.expiresAt !== "number" || entry.expiresAt <= now) return undefined;
  if (entry.capability === null) return entry;
  // The store may be the host's own (JSON from elsewhere): trust only what still parses.
  const parsed = reasoningCapabilitySchema.safeParse(entry.capability);
  return parsed.success ? { ...entry, capability: parsed.data } : undefined;
}

/**
 * The capability cache (§1.5.1): the server's `reasoning` capability, kept in
 * the state store under its server and protocol version, for the server's
 * hinted lifetime (`Cache-Control: max-age`, `no-store`, `Expires`) or the
 * default TTL. A refresh, a new server or a new protocol version fetches again.
 */
export function createCapabilityCache(options: CapabilityCacheOptions) {
  const now = options.now ?? Date.now;
  const defaultTtl = options.ttlMs ?? 10 * 60_000;
  return {
    async get(
      transport: Transport,
      operations: ReasoningOperations,
      getOptions: CallOptions & { refresh?: boolean } = {},
    ): Promise<CachedCapability> {
      const { refresh, ...callOptions } = getOptions;
      const protocolVersion = transport.protocolVersion() ?? "unknown";
      const key = capabilityKey(transport.endpoint, protocolVersion);
      if (!refresh) {
        const cached = readEntry(await options.store.get(key), now());
        if (cached) return cached;
      }
      const advertised = await operations.capabilities(callOptions);
      const hinted = advertised?.description.ttlMs ?? null;
      const ttlMs = hinted ?? defaultTtl;
      const fetchedAt = now();
      const entry: CachedCapability = {
        capability: advertised?.capability ?? null,
        endpoint: transport.endpoint,
        protocolVersion: advertised?.description.protocolVersion ?? protocolVersion,
        fetchedAt,
        expiresAt: fetchedAt + ttlMs,
        ttlSource: hinted === null ? "default" : "server",
      };
      if (ttlMs > 0)
        await options.store.set(capabilityKey(transport.endpoint, entry.protocolVersion), entry, { ttlMs });
      return entry;
    },
    async invalidate(transport: Transport): Promise<void> {
      await options.store.delete(capabilityKey(transport.endpoint, transport.protocolVersion() ?? "unknown"));
    },
  };
}

export type CapabilityCache = ReturnType<typeof createCapabilityCache>;
