import { type ClientErrorCode, DeliberateClientError } from "../errors.ts";

/**
 * An async intent the API could not take when it was sent (down, restarting, overloaded), kept until it can
 * (the spec's queue fallback, agent-intent-api.md "Transport Modes": the queue tolerates API restarts).
 * Plain JSON: a store may keep it anywhere.
 */
export interface OutboxEntry {
  /** The request's `correlation_id` (generated when the caller gave none): the API's idempotency key, so an entry sent twice makes one job. */
  id: string;
  kind: "agent_intent_async";
  /** The request as validated (an `AgentIntentRequest`), with `callback_url` and `correlation_id`. */
  request: { [field: string]: unknown; callback_url: string; correlation_id: string };
  /** When it was queued (ISO 8601). */
  queuedAt: string;
  /** Deliveries tried so far (the first POST included). */
  attempts: number;
  /** `queued`: waiting to be sent; `rejected`: the API refused it (4xx): kept for the host, never sent again. */
  state: "queued" | "rejected";
  /** Not before this time (ISO 8601). */
  nextAttemptAt: string;
  /** Why the last attempt did not deliver it. */
  lastError: { code: string; message: string } | null;
}

/**
 * Where queued intents wait. `put` resolves only once the entry is durable (the file outbox of
 * `@deliberate/client/node` writes a temporary file, syncs it and renames it over the old one, so a crash leaves
 * the previous version or the new one, never half of one). A host may supply its own (a database table, a KV store).
 */
export interface OutboxStore {
  put(entry: OutboxEntry): Promise<void>;
  get(id: string): Promise<OutboxEntry | undefined>;
  /** Every entry, oldest first. */
  list(): Promise<OutboxEntry[]>;
  delete(id: string): Promise<void>;
}

/** An outbox in memory: for tests and runtimes with no disk. Entries do not survive the process. */
export function createMemoryOutbox(): OutboxStore {
  const entries = new Map<string, string>();
  return {
    async put(entry) {
      entries.set(entry.id, JSON.stringify(entry));
    },
    async get(id) {
      const text = entries.get(id);
      return text === undefined ? undefined : (JSON.parse(text) as OutboxEntry);
    },
    async list() {
      return [...entries.values()]
        .map((text) => JSON.parse(text) as OutboxEntry)
        .sort((a, b) => a.queuedAt.localeCompare(b.queuedAt));
    },
    async delete(id) {
      entries.delete(id);
    },
  };
}

const unavailableCodes: ReadonlySet<ClientErrorCode> = new Set<ClientErrorCode>([
  "CONNECTION_FAILED",
  "TIMEOUT",
  "RATE_LIMITED",
  "REQUEST_TIMEOUT",
]);

/**
 * Whether a failed send means "the API is not taking requests now" (kept and retried) rather than "the API refused
 * this request" (not retried): no connection, no answer in time, 408, 429, 502, 503, 504.
 */
export function isApiUnavailable(error: unknown): boolean {
  if (!DeliberateClientError.isInstance(error)) return false;
  if (unavailableCodes.has(error.code)) return true;
  return error.status === 502 || error.status === 503 || error.status === 504;
}
