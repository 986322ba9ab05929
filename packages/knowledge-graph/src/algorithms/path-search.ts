import { type Fact, FactIndex } from "./triples.ts";

export interface PathQuery {
  from: string;
  to: string;
  /**
   * The relation types the path must follow, in order; `^p` walks a `p`
   * relation backwards (object to subject). Omit to find the shortest
   * directed path over any relations.
   */
  predicates?: readonly string[] | undefined;
  /** Longest path searched when `predicates` is omitted (default 6). */
  maxDepth?: number;
}

export interface PathValidation {
  valid: boolean;
  /** The relations walked, in order (empty when invalid). */
  path: Fact[];
  reason: string;
}

interface Step {
  node: string;
  via: Fact | null;
  previous: number;
  position: number;
}

/**
 * Validates a path in a graph by breadth-first search: with `predicates`, a
 * walk from `from` to `to` following exactly that sequence of relation types;
 * without, the shortest directed path of at most `maxDepth` relations. The
 * returned path is always a real chain of the given facts.
 */
export function validatePath(facts: Iterable<Fact> | FactIndex, query: PathQuery): PathValidation {
  const index = facts instanceof FactIndex ? facts : new FactIndex(facts as Iterable<Fact>);
  const outgoing = new Map<string, Fact[]>();
  const incoming = new Map<string, Fact[]>();
  for (const fact of index.facts) {
    append(outgoing, fact.subject, fact);
    append(incoming, fact.object, fact);
  }
  const sequence = query.predicates;
  const length = sequence ? sequence.length : (query.maxDepth ?? 6);
  if (sequence && sequence.length === 0) {
    return query.from === query.to
      ? { valid: true, path: [], reason: "an empty path joins a node to itself" }
      : { valid: false, path: [], reason: "an empty relation sequence cannot join two different nodes" };
  }
  if (!sequence && query.from === query.to)
    return { valid: true, path: [], reason: `${query.from} is the node itself` };

  const steps: Step[] = [{ node: query.from, via: null, previous: -1, position: 0 }];
  const seen = new Set<string>([sequence ? `${query.from}\u0000${0}` : query.from]);
  for (let cursor = 0; cursor < steps.length; cursor += 1) {
    const step = steps[cursor] as Step;
    if (step.position >= length) continue;
    const moves: Array<{ fact: Fact; next: string }> = [];
    if (sequence) {
      const wanted = sequence[step.position] as string;
      const backwards = wanted.startsWith("^");
      const predicate = backwards ? wanted.slice(1) : wanted;
      const candidates = (backwards ? incoming : outgoing).get(step.node) ?? [];
      for (const fact of candidates)
        if (fact.predicate === predicate) moves.push({ fact, next: backwards ? fact.subject : fact.object });
    } else {
      for (const fact of outgoing.get(step.node) ?? []) moves.push({ fact, next: fact.object });
    }
    for (const move of moves) {
      const position = step.position + 1;
      // Without a sequence, the position does not matter for where we can go next: visit each node once (shortest path).
      const key = sequence ? `${move.next}\u0000${position}` : move.next;
      if (seen.has(key)) continue;
      seen.add(key);
      steps.push({ node: move.next, via: move.fact, previous: cursor, position });
      const arrived = move.next === query.to && (!sequence || position === sequence.length);
      if (arrived)
        return { valid: true, path: walkBack(steps, steps.length - 1), reason: describeFound(query, position) };
    }
  }
  return { valid: false, path: [], reason: describeMissing(query, length) };
}

function walkBack(steps: readonly Step[], last: number): Fact[] {
  const path: Fact[] = [];
  for (let cursor = last; cursor > 0; cursor = (steps[cursor] as Step).previous)
    path.push((steps[cursor] as Step).via as Fact);
  return path.reverse();
}

function describeFound(query: PathQuery, length: number): string {
  return query.predicates
    ? `${query.from} reaches ${query.to} through ${query.predicates.join(" / ")}`
    : `${query.from} reaches ${query.to} in ${length} relation${length === 1 ? "" : "s"}`;
}

function describeMissing(query: PathQuery, length: number): string {
  return query.predicates
    ? `no walk from ${query.from} to ${query.to} follows ${query.predicates.join(" / ")} in the graph`
    : `no directed path of at most ${length} relations leads from ${query.from} to ${query.to}`;
}

function append(map: Map<string, Fact[]>, key: string, fact: Fact): void {
  const list = map.get(key);
  if (list) list.push(fact);
  else map.set(key, [fact]);
}
