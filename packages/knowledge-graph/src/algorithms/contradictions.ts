import { negatePredicate } from "./names.ts";
import { type Fact, factKey } from "./triples.ts";

/** Looks facts up by predicate and subject (a `FactIndex` or the working graph). */
export interface FactLookup {
  has(fact: Fact): boolean;
  /** Facts with this predicate and subject. */
  withSubject(predicate: string, subject: string): Iterable<Fact>;
}

/**
 * The facts of `lookup` that contradict `fact`: its negation (`p` against
 * `not_p`, same subject and object), and, when its predicate is functional (at
 * most one object per subject), the same predicate from the same subject to
 * another object. A negated predicate is never functional.
 */
export function contradictionsOf(fact: Fact, lookup: FactLookup, functional: ReadonlySet<string>): Fact[] {
  const found: Fact[] = [];
  const negation = { subject: fact.subject, predicate: negatePredicate(fact.predicate), object: fact.object };
  if (lookup.has(negation)) found.push(negation);
  if (functional.has(fact.predicate)) {
    for (const other of lookup.withSubject(fact.predicate, fact.subject))
      if (other.object !== fact.object) found.push(other);
  }
  return found;
}

/** Every contradicting pair among `facts` (each pair once), for checking a graph's consistency. */
export function findContradictions(facts: readonly Fact[], functional: ReadonlySet<string>): Array<[Fact, Fact]> {
  const keys = new Set(facts.map(factKey));
  const bySubject = new Map<string, Fact[]>();
  for (const fact of facts) {
    const key = `${fact.predicate}\u0000${fact.subject}`;
    (bySubject.get(key) ?? bySubject.set(key, []).get(key))?.push(fact);
  }
  const lookup: FactLookup = {
    has: (fact) => keys.has(factKey(fact)),
    withSubject: (predicate, subject) => bySubject.get(`${predicate}\u0000${subject}`) ?? [],
  };
  const pairs: Array<[Fact, Fact]> = [];
  const seen = new Set<string>();
  for (const fact of facts) {
    for (const other of contradictionsOf(fact, lookup, functional)) {
      const pair = [factKey(fact), factKey(other)].sort().join("\u0001");
      if (seen.has(pair)) continue;
      seen.add(pair);
      pairs.push([fact, other]);
    }
  }
  return pairs;
}

/** Functional predicates as declared (any spelling), normalised the way relations are. */
export function functionalPredicateSet(
  declared: Iterable<string>,
  normalize: (predicate: string) => string,
): Set<string> {
  const set = new Set<string>();
  for (const predicate of declared) {
    const normalized = normalize(predicate);
    if (!normalized.startsWith("not_")) set.add(normalized);
  }
  return set;
}
