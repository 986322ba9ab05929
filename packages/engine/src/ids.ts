import { randomUUID } from "node:crypto";

/** Id source; injected so calls can be replayed with the same ids. */
export interface IdGenerator {
  /** A new id with a readable prefix, e.g. `ses_…` for sessions. */
  next(prefix: string): string;
}

/**
 * `prefix_` then 8 characters of time (milliseconds, base 36) and 12 random hex
 * characters (48 bits). Ids made later sort later, so rows keyed by them are
 * appended to the end of their index instead of scattered over it (one page
 * written per batch of invocation rows, not one per row).
 */
export const randomIds: IdGenerator = {
  next: (prefix) => `${prefix}_${Date.now().toString(36).padStart(8, "0")}${randomUUID().replaceAll("-", "").slice(0, 12)}`,
};

/** Deterministic ids for tests: prefix_1, prefix_2, … */
export function createSequentialIds(): IdGenerator {
  let counter = 0;
  return {
    next: (prefix) => {
      counter += 1;
      return `${prefix}_${counter}`;
    },
  };
}
