import { negatePredicate } from "./names.ts";

/** A ground statement over entity keys. */
export interface Fact {
  readonly subject: string;
  readonly predicate: string;
  readonly object: string;
}

/** A stable string key for a fact (unique per subject, predicate, object). */
export function factKey(fact: Fact): string {
  return `${fact.subject}\u0000${fact.predicate}\u0000${fact.object}`;
}

/** The fact that contradicts `fact`: same endpoints, negated predicate. */
export function negationOf(fact: Fact): Fact {
  return { subject: fact.subject, predicate: negatePredicate(fact.predicate), object: fact.object };
}

/** Facts indexed by predicate, subject and object, for joins and lookups. */
export class FactIndex {
  private readonly keys = new Set<string>();
  private readonly byPredicate = new Map<
    string,
    { all: Fact[]; bySubject: Map<string, Fact[]>; byObject: Map<string, Fact[]> }
  >();
  readonly facts: Fact[] = [];

  constructor(facts: Iterable<Fact> = []) {
    for (const fact of facts) this.add(fact);
  }

  get size(): number {
    return this.facts.length;
  }

  has(fact: Fact): boolean {
    return this.keys.has(factKey(fact));
  }

  /** Adds `fact`; false when it was already there. */
  add(fact: Fact): boolean {
    const key = factKey(fact);
    if (this.keys.has(key)) return false;
    this.keys.add(key);
    this.facts.push(fact);
    let entry = this.byPredicate.get(fact.predicate);
    if (!entry) {
      entry = { all: [], bySubject: new Map(), byObject: new Map() };
      this.byPredicate.set(fact.predicate, entry);
    }
    entry.all.push(fact);
    push(entry.bySubject, fact.subject, fact);
    push(entry.byObject, fact.object, fact);
    return true;
  }

  /** Facts with `predicate`, narrowed by a known subject and/or object. */
  match(predicate: string, subject: string | undefined, object: string | undefined): readonly Fact[] {
    const entry = this.byPredicate.get(predicate);
    if (!entry) return [];
    if (subject !== undefined) {
      const candidates = entry.bySubject.get(subject) ?? [];
      return object === undefined ? candidates : candidates.filter((fact) => fact.object === object);
    }
    if (object !== undefined) return entry.byObject.get(object) ?? [];
    return entry.all;
  }
}

function push(map: Map<string, Fact[]>, key: string, fact: Fact): void {
  const list = map.get(key);
  if (list) list.push(fact);
  else map.set(key, [fact]);
}
