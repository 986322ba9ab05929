/**
 * Where the coordinator keeps what outlives one call: multi-turn reasoning
 * sessions (§1.3.4), the last reasoning turn per conversation, the capability
 * cache and the health gate. Values are plain JSON. The default keeps them in
 * memory; a host plugs in its database, Redis, ... by implementing these three methods.
 */
export interface ReasoningStateStore {
  get(key: string): Promise<unknown>;
  /** Stores `value`; with `ttlMs`, it may be dropped after that long (and `get` must not return it then). */
  set(key: string, value: unknown, options?: { ttlMs?: number }): Promise<void>;
  delete(key: string): Promise<void>;
}

export interface MemoryStateStoreOptions {
  /** The clock, in ms (tests pin it). */
  now?: () => number;
  /** Most entries kept; the oldest written goes first. Default 10,000. */
  maxEntries?: number;
}

/** The in-memory store (the default): per process, bounded, entries expire by their TTL. */
export function createMemoryStateStore(
  options: MemoryStateStoreOptions = {},
): ReasoningStateStore & { size(): number } {
  const now = options.now ?? Date.now;
  const maxEntries = options.maxEntries ?? 10_000;
  const entries = new Map<string, { value: string; expiresAt: number | null }>();
  return {
    async get(key) {
      const entry = entries.get(key);
      if (!entry) return undefined;
      if (entry.expiresAt !== null && entry.expiresAt <= now()) {
        entries.delete(key);
        return undefined;
      }
      return JSON.parse(entry.value) as unknown;
    },
    async set(key, value, setOptions) {
      entries.delete(key);
      // Stored as JSON so what a caller later mutates is not what the store holds (as with any real store).
      entries.set(key, {
        value: JSON.stringify(value),
        expiresAt: setOptions?.ttlMs !== undefined ? now() + setOptions.ttlMs : null,
      });
      while (entries.size > maxEntries) {
        const oldest = entries.keys().next().value;
        if (oldest === undefined) break;
        entries.delete(oldest);
      }
    },
    async delete(key) {
      entries.delete(key);
    },
    size: () => entries.size,
  };
}
