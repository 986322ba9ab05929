import type { JobAccepted } from "@deliberate/contracts";
import { DeliberateClientError } from "../errors.ts";
import type { OutboxStore } from "./outbox.ts";

/** How a queued entry ended: delivered (its job), or refused by the API. */
export type OutboxOutcome = { accepted: JobAccepted } | { error: DeliberateClientError };

/** Who waits for which outbox entry, and the outcomes already reached in this process. */
export interface OutboxSettlements {
  /** Records an entry's outcome and answers everyone waiting for it. */
  settle(id: string, outcome: OutboxOutcome): void;
  /** Resolves when `id` is delivered (with the job), rejects when the API refuses it. */
  delivered(id: string): Promise<JobAccepted>;
}

/** Keeps the most recent 1,000 outcomes, for a waiter that asks after the fact. */
export function createOutboxSettlements(store: OutboxStore): OutboxSettlements {
  const waiters = new Map<
    string,
    Array<{ resolve: (accepted: JobAccepted) => void; reject: (error: DeliberateClientError) => void }>
  >();
  const settled = new Map<string, OutboxOutcome>();

  const settle = (id: string, outcome: OutboxOutcome) => {
    settled.set(id, outcome);
    if (settled.size > 1_000) settled.delete(settled.keys().next().value as string);
    for (const waiter of waiters.get(id) ?? []) {
      if ("accepted" in outcome) waiter.resolve(outcome.accepted);
      else waiter.reject(outcome.error);
    }
    waiters.delete(id);
  };

  return {
    settle,
    delivered(id) {
      return new Promise<JobAccepted>((resolve, reject) => {
        const known = settled.get(id);
        if (known) {
          if ("accepted" in known) resolve(known.accepted);
          else reject(known.error);
          return;
        }
        const list = waiters.get(id) ?? [];
        list.push({ resolve, reject });
        waiters.set(id, list);
        // Already settled by an earlier process, or refused: say so now.
        void store.get(id).then((entry) => {
          if (entry?.state === "rejected")
            settle(id, {
              error: new DeliberateClientError({
                code: (entry.lastError?.code ?? "INTERNAL") as never,
                message: entry.lastError?.message ?? "rejected",
              }),
            });
        });
      });
    },
  };
}
