import { type JobAccepted, jobAcceptedSchema } from "@deliberate/contracts";
import type { DeliberateClientError } from "../errors.ts";
import type { HttpConnection } from "../http/config.ts";
import { sendHttpRequest } from "../http/http-request.ts";
import { checkResponse } from "../validation.ts";
import { createOutboxDrain, type OutboxDrain } from "./outbox-drain.ts";
import type { OutboxEntry, OutboxStore } from "./outbox.ts";

/** The queue-fallback settings of the agent-intent client's options. */
export interface IntentOutboxOptions {
  outbox?: OutboxStore;
  outboxRetryMs?: number;
  outboxMaxRetryMs?: number;
  onOutboxDelivered?: (entry: OutboxEntry, accepted: JobAccepted) => void;
  onOutboxRejected?: (entry: OutboxEntry, error: DeliberateClientError) => void;
}

/** What the client exposes of its outbox: send what is due now, see what waits, stop its timer. */
export interface IntentOutboxView {
  /** Tries every queued intent now, oldest first (stopping while the API is still away). */
  flush(): Promise<{ delivered: number; rejected: number; remaining: number }>;
  pending(): Promise<OutboxEntry[]>;
  close(): void;
}

/** The drain that sends queued async intents when the API returns; null without an outbox store. */
export function createIntentOutbox(options: IntentOutboxOptions, connection: HttpConnection): OutboxDrain | null {
  if (!options.outbox) return null;
  return createOutboxDrain({
    store: options.outbox,
    // One attempt each time: the outbox's own backoff spaces the retries.
    send: async (entry) => {
      const response = await sendHttpRequest(
        { ...connection, retries: 0 },
        {
          method: "POST",
          path: "/agent_intent_async",
          body: entry.request,
          idempotent: false,
          what: "POST /agent_intent_async",
        },
      );
      return checkResponse(jobAcceptedSchema, response.body, "POST /agent_intent_async");
    },
    retryMs: options.outboxRetryMs ?? 1_000,
    maxRetryMs: options.outboxMaxRetryMs ?? 30_000,
    ...(options.onOutboxDelivered ? { onDelivered: options.onOutboxDelivered } : {}),
    ...(options.onOutboxRejected ? { onRejected: options.onOutboxRejected } : {}),
  });
}

/** The client's view of its drain (only queued entries count as pending). */
export function intentOutboxView(drain: OutboxDrain, store: OutboxStore): IntentOutboxView {
  return {
    flush: () => drain.flush(true),
    pending: async () => (await store.list()).filter((entry) => entry.state === "queued"),
    close: () => drain.close(),
  };
}
