import { DeliberateClientError } from "../errors.ts";

/** The phases of a reasoning attempt that have a deadline of their own. */
export type CoordinatorPhase = "health_check" | "capabilities" | "request" | "liveness" | "turn" | "end_session";

/** The timing options of the coordinator (all in ms; every one is optional). */
export interface CoordinatorTimingOptions {
  /** The health check of gate 2, retries included (one deadline for the whole check). Default 2,000. */
  healthCheckTimeoutMs?: number;
  /** Reading the server's capability when it is not cached. Default 2,000. */
  capabilityTimeoutMs?: number;
  /**
   * While a reasoning call is outstanding, the server is pinged this often (with the health check's deadline); a
   * ping it does not answer in time ends the call (a hung server), however long the call itself may take. Default
   * 2,000; 0 turns the watch off.
   */
  livenessIntervalMs?: number;
  /** Each reasoning request to a server that is alive (answers pings) but slow. Default 60,000. */
  callTimeoutMs?: number;
  /** The whole reasoning part of a turn: every call, tool, critique and the synthesis. Default 120,000. */
  timeoutMs?: number;
  /** The closing endSession (best effort; not awaited after a timeout or a lost connection). Default 2,000. */
  endSessionTimeoutMs?: number;
}

/** The resolved deadlines, and the bound they give for a server that stops answering. */
export interface CoordinatorBounds {
  healthCheckMs: number;
  capabilitiesMs: number;
  livenessIntervalMs: number;
  callMs: number;
  turnMs: number;
  endSessionMs: number;
  /**
   * The longest the coordinator spends on a server that answers nothing before it falls back to the standard
   * approach, from the moment reasoning is tried: a health check that times out (`healthCheckMs`), or a server
   * that answered the health check and the capability read and then stopped (`healthCheckMs + capabilitiesMs +
   * livenessIntervalMs + healthCheckMs`). 8,000 by default. Without the liveness watch it is the call timeout.
   */
  unresponsiveFallbackMs: number;
}

export const defaultTimings = {
  healthCheckTimeoutMs: 2_000,
  capabilityTimeoutMs: 2_000,
  livenessIntervalMs: 2_000,
  callTimeoutMs: 60_000,
  timeoutMs: 120_000,
  endSessionTimeoutMs: 2_000,
} as const satisfies Required<CoordinatorTimingOptions>;

function milliseconds(
  options: CoordinatorTimingOptions,
  name: keyof CoordinatorTimingOptions,
  minimum: number,
): number {
  const value = options[name] ?? defaultTimings[name];
  if (!Number.isInteger(value) || value < minimum) {
    throw new DeliberateClientError({
      code: "CONFIGURATION",
      message: `${name} must be a whole number of milliseconds >= ${minimum}, not ${String(value)}.`,
      issues: [{ field: name, message: `must be a whole number >= ${minimum}` }],
      hint: `Pass ${name} in createReasoningCoordinator's options, or leave it out for ${defaultTimings[name]}.`,
    });
  }
  return value;
}

/** The coordinator's deadlines from its options: defaults applied, each checked (CONFIGURATION naming the option). */
export function resolveBounds(options: CoordinatorTimingOptions): CoordinatorBounds {
  const healthCheckMs = milliseconds(options, "healthCheckTimeoutMs", 1);
  const capabilitiesMs = milliseconds(options, "capabilityTimeoutMs", 1);
  const livenessIntervalMs = milliseconds(options, "livenessIntervalMs", 0);
  const callMs = milliseconds(options, "callTimeoutMs", 1);
  const turnMs = milliseconds(options, "timeoutMs", 1);
  const endSessionMs = milliseconds(options, "endSessionTimeoutMs", 1);
  const stalledCall = livenessIntervalMs > 0 ? Math.min(callMs, livenessIntervalMs + healthCheckMs) : callMs;
  const unresponsiveFallbackMs = Math.min(
    turnMs,
    Math.max(healthCheckMs, healthCheckMs + capabilitiesMs + stalledCall),
  );
  return { healthCheckMs, capabilitiesMs, livenessIntervalMs, callMs, turnMs, endSessionMs, unresponsiveFallbackMs };
}
