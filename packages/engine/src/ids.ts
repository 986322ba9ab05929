import { randomUUID } from "node:crypto";

/** Id source; injected so calls can be replayed with the same ids. */
export interface IdGenerator {
  /** A new id with a readable prefix, e.g. `ses_…` for sessions. */
  next(prefix: string): string;
}

export const randomIds: IdGenerator = {
  next: (prefix) => `${prefix}_${randomUUID().replaceAll("-", "").slice(0, 20)}`,
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
