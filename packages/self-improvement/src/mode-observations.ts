import type { Store } from "@deliberate/store";
import type { SelfImprovementRepositories } from "./store/repositories/self-improvement.repository.ts";

/**
 * Which modes each tool asks, counted in memory as calls happen and written in one transaction by `flush` (the sync
 * task and each cycle flush): counting on the call path costs no database write.
 */
export interface ModeObservations {
  /** Counts one call of `tool` that asked each of `modes`. */
  record(tool: string, modes: readonly string[]): void;
  /** Writes the counts gathered since the last flush; on failure they are kept for the next one and the error rethrown. */
  flush(store: Store<SelfImprovementRepositories>, now: Date): Promise<void>;
}

/** An empty set of counts. */
export function createModeObservations(): ModeObservations {
  const observed = new Map<string, Map<string, number>>();
  const add = (tool: string, mode: string, calls: number) => {
    const modes = observed.get(tool) ?? new Map<string, number>();
    modes.set(mode, (modes.get(mode) ?? 0) + calls);
    observed.set(tool, modes);
  };
  return {
    record(tool, modes) {
      for (const mode of modes) add(tool, mode, 1);
    },
    async flush(store, now) {
      if (observed.size === 0) return;
      const batch = [...observed.entries()].flatMap(([tool, modes]) =>
        [...modes.entries()].map(([mode, calls]) => ({ tool, mode, calls })),
      );
      observed.clear();
      try {
        await store.transaction(async (repositories) => {
          for (const entry of batch)
            await repositories.selfImprovement.toolModes.observe({ ...entry, now: now.toISOString() });
        });
      } catch (error) {
        // Not written (e.g. the database is away): the counts are kept for the next flush.
        for (const entry of batch) add(entry.tool, entry.mode, entry.calls);
        throw error;
      }
    },
  };
}
