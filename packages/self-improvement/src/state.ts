import { type BreakerState, closedBreaker } from "./circuit-breaker.ts";
import type { SelfImprovementRepository } from "./store/repository.ts";

const breakerKey = "circuit_breaker";
const pauseKey = "paused_until";

/** The persisted circuit breaker (closed when never written). */
export async function readBreaker(repository: SelfImprovementRepository): Promise<BreakerState> {
  return (await repository.state.get<BreakerState>(breakerKey)) ?? closedBreaker;
}

export async function writeBreaker(repository: SelfImprovementRepository, state: BreakerState, now: Date): Promise<void> {
  await repository.state.put(breakerKey, state, now.toISOString());
}

/** Until when the loop is paused (null: not paused, or the pause is over). */
export async function readPausedUntil(repository: SelfImprovementRepository, now: Date): Promise<string | null> {
  const until = await repository.state.get<string | null>(pauseKey);
  return until !== undefined && until !== null && until > now.toISOString() ? until : null;
}

export async function writePausedUntil(repository: SelfImprovementRepository, until: string | null, now: Date): Promise<void> {
  await repository.state.put(pauseKey, until, now.toISOString());
}
