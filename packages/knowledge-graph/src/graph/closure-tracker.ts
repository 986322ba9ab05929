import type { ClosureRecord } from "../store/repositories/knowledge-graph.repository.ts";

/**
 * What incremental deduction needs to know about a session's graph: the
 * rules (by `ruleKey`) its believed facts were closed under, which relations
 * that covered (the first `covered`, in load and creation order), and which
 * have arrived since. Anything that takes a fact out of the believed set, or
 * brings one back, breaks the closure: the next deduction starts over.
 */
export class ClosureTracker {
  private closure: ClosureRecord | null;
  /** Keys of relations the closure has not seen (stored after it, or created in this call). */
  private readonly unseen = new Set<string>();
  private broken = false;

  constructor(record: ClosureRecord | null) {
    this.closure = record;
  }

  /** A stored relation loaded at `position` (its index in position order). */
  loaded(position: number, key: string): void {
    if (this.closure && position >= this.closure.covered) this.unseen.add(key);
  }

  /** A relation created in this call. */
  created(key: string): void {
    this.unseen.add(key);
  }

  /** A relation left the graph's order (moved by an entity merge). */
  removed(key: string): void {
    this.unseen.delete(key);
    this.broken = true;
  }

  /** The believed set changed other than by new facts: the closure no longer holds. */
  invalidate(): void {
    this.broken = true;
  }

  /** The rules the closure holds for and the keys it has not seen; null when deduction must start from every fact. */
  state(): { unseen: ReadonlySet<string>; closedUnder: ReadonlySet<string> } | null {
    if (this.closure === null || this.broken) return null;
    return { unseen: this.unseen, closedUnder: new Set(this.closure.rules) };
  }

  /** The believed facts are now closed under `ruleKeys`, covering the graph's first `relationCount` relations. */
  closed(ruleKeys: readonly string[], relationCount: number): void {
    this.closure = { rules: [...new Set(ruleKeys)].sort(), covered: relationCount };
    this.unseen.clear();
    this.broken = false;
  }

  /** The record to keep with the session: null when the closure no longer holds. */
  record(): ClosureRecord | null {
    return this.broken ? null : this.closure;
  }
}
