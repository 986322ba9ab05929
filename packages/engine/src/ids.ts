import { hash, randomBytes } from "node:crypto";

/** Id source; injected so calls can be replayed with the same ids. */
export interface IdGenerator {
  /** A new id with a readable prefix, e.g. `ses_…` for sessions. */
  next(prefix: string): string;
  /**
   * A generator for one independent part of the work (e.g. one step of a
   * preset), so the ids a part draws do not depend on how its work interleaves
   * with concurrent parts. Generators without it use themselves.
   */
  scope?(name: string): IdGenerator;
}

/**
 * `prefix_` then 8 characters of time (milliseconds, base 36) and 12 random hex
 * characters (48 bits). Ids made later sort later, so rows keyed by them are
 * appended to the end of their index instead of scattered over it (one page
 * written per batch of invocation rows, not one per row).
 */
export const randomIds: IdGenerator = {
  next: (prefix) => `${prefix}_${timePart()}${randomHex12()}`,
};

/** The time part, converted once per millisecond (several ids are drawn per call). */
let lastMillisecond = -1;
let lastTimePart = "";
function timePart(): string {
  const now = Date.now();
  if (now !== lastMillisecond) {
    lastMillisecond = now;
    lastTimePart = now.toString(36).padStart(8, "0");
  }
  return lastTimePart;
}

/** Random bytes drawn in blocks (one system call per 680 ids) and turned into hex once, 12 characters per id. */
let pool = "";
let offset = 0;
function randomHex12(): string {
  if (offset + 12 > pool.length) {
    pool = randomBytes(4080).toString("hex");
    offset = 0;
  }
  offset += 12;
  return pool.slice(offset - 12, offset);
}

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

/**
 * Ids that are the same on every replay of a host-executed call: derived from
 * the suspended call's id (the seed), the scope and a counter per prefix. A
 * replay that reaches further than the last one draws the same ids for
 * everything the last one drew, so results that carry ids (and prompts built
 * from them) do not change from round to round.
 *
 * When the seed is a {@link randomIds} id, the ids keep its 8 characters of
 * time and then 12 hex characters of the digest: time-ordered like every other
 * id (a model-free call over HTTP is host-executed, and its session and
 * thought rows would otherwise land on a random page of each of their indexes:
 * about a third of the SQLite work of a `reasoning_decision`). Other seeds give
 * 20 hex characters of the digest.
 */
export function createReplayIds(seed: string): IdGenerator {
  return new ReplayIds(seed);
}

/**
 * A class with its counters made on the first id: every call of a host-executed service gets one, and a
 * call that draws no id (a read) then leaves one small object behind, not a map and two closures.
 */
class ReplayIds implements IdGenerator {
  private counters: Map<string, number> | undefined;
  private time: string | undefined;

  constructor(private readonly seed: string) {}

  next(prefix: string): string {
    if (this.counters === undefined) {
      this.counters = new Map();
      this.time = timeOfId(this.seed);
    }
    const count = (this.counters.get(prefix) ?? 0) + 1;
    this.counters.set(prefix, count);
    // One-shot `hash` (node >= 20.12): the same digest as createHash's, without a Hash object per id.
    const digest = hash("sha256", `${this.seed}\u0000${prefix}\u0000${count}`, "hex");
    return this.time === undefined
      ? `${prefix}_${digest.slice(0, 20)}`
      : `${prefix}_${this.time}${digest.slice(0, 12)}`;
  }

  scope(name: string): IdGenerator {
    return new ReplayIds(`${this.seed}/${name}`);
  }
}

/** The 8 characters of time of a {@link randomIds} id (also at the start of a seed scoped from one), else undefined. */
function timeOfId(id: string): string | undefined {
  return /^[a-z]+_([0-9a-z]{8})[0-9a-f]{12}(?:\/|$)/.exec(id)?.[1];
}
