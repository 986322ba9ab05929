import { type BreakerState, closedBreaker } from "./circuit-breaker.ts";
import type { SelfImprovementConfig } from "./config.ts";
import type { SelfImprovementRepository } from "./store/repositories/self-improvement.repository.ts";

const breakerKey = "circuit_breaker";
const pauseKey = "paused_until";

/** The persisted circuit breaker (closed when never written). */
export async function readBreaker(repository: SelfImprovementRepository): Promise<BreakerState> {
  return (await repository.state.get<BreakerState>(breakerKey)) ?? closedBreaker;
}

export async function writeBreaker(
  repository: SelfImprovementRepository,
  state: BreakerState,
  now: Date,
): Promise<void> {
  await repository.state.put(breakerKey, state, now.toISOString());
}

/** Until when the loop is paused (null: not paused, or the pause is over). */
export async function readPausedUntil(repository: SelfImprovementRepository, now: Date): Promise<string | null> {
  const until = await repository.state.get<string | null>(pauseKey);
  return until !== undefined && until !== null && until > now.toISOString() ? until : null;
}

export async function writePausedUntil(
  repository: SelfImprovementRepository,
  until: string | null,
  now: Date,
): Promise<void> {
  await repository.state.put(pauseKey, until, now.toISOString());
}

/** The running service's loop settings, as it recorded them in the database (what `status` shows). */
export interface ServiceSettingsRecord {
  holder: string;
  recorded_at: string;
  mode: SelfImprovementConfig["mode"];
  analyzer: SelfImprovementConfig["analyzer"]["use"];
  cycle_ms: number;
}

/** The state key of the service's settings: written at start and by every cycle of the leader. */
export const serviceStateKey = "service_settings";

export function serviceStateOf(
  input: { holder: string; config: SelfImprovementConfig },
  recordedAt: string,
): ServiceSettingsRecord {
  return {
    holder: input.holder,
    recorded_at: recordedAt,
    mode: input.config.mode,
    analyzer: input.config.analyzer.use,
    cycle_ms: input.config.cycleMs,
  };
}
