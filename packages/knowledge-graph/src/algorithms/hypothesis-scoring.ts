import { contradictionsOf } from "./contradictions.ts";
import { type Fact, factKey } from "./triples.ts";

/** Something the hypotheses must explain: one entity, or entities that should be connected. */
export interface Observation {
  readonly entities: readonly string[];
}

/** A candidate explanation: facts to add, some of which may mention entities the graph does not have yet. */
export interface Hypothesis {
  readonly name: string;
  readonly additions: readonly Fact[];
  /** Keys of entities the hypothesis introduces. */
  readonly newEntities: readonly string[];
}

/** The graph a hypothesis is scored against. */
export interface ScoringGraph {
  /** Facts currently believed. */
  readonly facts: readonly Fact[];
  /** Facts once believed and retracted: re-asserting one is a contradiction. */
  readonly retracted?: readonly Fact[];
  /** Keys (`factKey`) of the believed facts that are asserted or derived from asserted facts: contradicting one refuses the hypothesis. */
  readonly firm?: ReadonlySet<string>;
  /** Predicates with at most one object per subject: a second object contradicts. */
  readonly functional?: ReadonlySet<string>;
}

export interface HypothesisScore {
  readonly name: string;
  /** Fraction of the observations the hypothesis explains, 0..1. */
  readonly coverage: number;
  /** 1 / (1 + (newElements - 1) / 4): one new element scores 1, five score 0.5. */
  readonly simplicity: number;
  /** 1 - contradicting additions / new additions. */
  readonly consistency: number;
  /** `hypothesisWeights`-weighted sum of the three, 0..1. */
  readonly score: number;
  /** New relations plus new entities. */
  readonly newElements: number;
  /** Additions that contradict the graph, a retracted fact, or another addition. */
  readonly contradictions: readonly Fact[];
  /** Asserted or derived facts an addition contradicts: the hypothesis is refused (score 0), whatever it would explain. */
  readonly refusedBy: readonly Fact[];
  /** Indexes of the observations explained. */
  readonly explained: readonly number[];
}

/** How the three criteria combine into a hypothesis's score. */
export const hypothesisWeights = { coverage: 0.5, consistency: 0.3, simplicity: 0.2 } as const;

/** How near (in undirected hops) an observed entity must be to what a hypothesis adds to count as explained. */
export const explanationReach = 2;

class UnionFind {
  private readonly parent = new Map<string, string>();
  find(node: string): string {
    let root = node;
    while (true) {
      const next = this.parent.get(root);
      if (next === undefined || next === root) break;
      root = next;
    }
    let cursor = node;
    while (cursor !== root) {
      const next = this.parent.get(cursor) as string;
      this.parent.set(cursor, root);
      cursor = next;
    }
    return root;
  }
  union(a: string, b: string): void {
    const rootA = this.find(a);
    const rootB = this.find(b);
    if (rootA === rootB) return;
    const [low, high] = rootA < rootB ? [rootA, rootB] : [rootB, rootA];
    this.parent.set(high, low);
  }
}

/**
 * Scores one hypothesis, in code: coverage (an observation is explained when
 * its entities are connected in the graph plus the additions and each lies
 * within `explanationReach` hops of an entity the additions touch), simplicity
 * (fewer new elements is better) and consistency (no addition may contradict
 * the graph: `p` against `not_p`, a second object of a functional predicate,
 * a retracted fact, or another addition). A hypothesis that contradicts an
 * asserted or derived fact (`firm`) is refused: its score is 0.
 */
export function scoreHypothesis(
  graph: ScoringGraph,
  observations: readonly Observation[],
  hypothesis: Hypothesis,
): HypothesisScore {
  const existing = new Set(graph.facts.map(factKey));
  const retracted = new Set((graph.retracted ?? []).map(factKey));
  const additions: Fact[] = [];
  const seenAdditions = new Set<string>();
  for (const fact of hypothesis.additions) {
    const key = factKey(fact);
    if (existing.has(key) || seenAdditions.has(key)) continue;
    seenAdditions.add(key);
    additions.push(fact);
  }
  // Contradictions in code: p against not_p, or a second object of a functional predicate, against the graph or another addition.
  const functional = graph.functional ?? new Set<string>();
  const bySubject = new Map<string, Fact[]>();
  for (const fact of [...graph.facts, ...additions]) {
    const group = `${fact.predicate}\u0000${fact.subject}`;
    (bySubject.get(group) ?? bySubject.set(group, []).get(group))?.push(fact);
  }
  const lookup = {
    has: (fact: Fact) => existing.has(factKey(fact)) || seenAdditions.has(factKey(fact)),
    withSubject: (predicate: string, subject: string) => bySubject.get(`${predicate}\u0000${subject}`) ?? [],
  };
  const refusedBy: Fact[] = [];
  const contradictions = additions.filter((fact) => {
    const against = contradictionsOf(fact, lookup, functional);
    for (const other of against) if (graph.firm?.has(factKey(other))) refusedBy.push(other);
    return against.length > 0 || retracted.has(factKey(fact));
  });
  const newElements = additions.length + new Set(hypothesis.newEntities).size;

  const neighbours = new Map<string, string[]>();
  const link = (a: string, b: string) => {
    (neighbours.get(a) ?? neighbours.set(a, []).get(a))?.push(b);
    (neighbours.get(b) ?? neighbours.set(b, []).get(b))?.push(a);
  };
  const components = new UnionFind();
  for (const fact of [...graph.facts, ...additions]) {
    link(fact.subject, fact.object);
    components.union(fact.subject, fact.object);
  }
  // Entities within reach of what the hypothesis touches.
  const near = new Map<string, number>();
  const queue: string[] = [];
  for (const fact of additions) {
    for (const node of [fact.subject, fact.object]) {
      if (!near.has(node)) {
        near.set(node, 0);
        queue.push(node);
      }
    }
  }
  for (let cursor = 0; cursor < queue.length; cursor += 1) {
    const node = queue[cursor] as string;
    const distance = near.get(node) as number;
    if (distance >= explanationReach) continue;
    for (const next of neighbours.get(node) ?? []) {
      if (near.has(next)) continue;
      near.set(next, distance + 1);
      queue.push(next);
    }
  }
  const explained: number[] = [];
  observations.forEach((observation, index) => {
    if (observation.entities.length === 0) return;
    const root = components.find(observation.entities[0] as string);
    const connected = observation.entities.every((entity) => components.find(entity) === root);
    if (connected && observation.entities.every((entity) => near.has(entity))) explained.push(index);
  });

  const coverage = observations.length === 0 ? 0 : explained.length / observations.length;
  const simplicity = 1 / (1 + Math.max(0, newElements - 1) / 4);
  const consistency = additions.length === 0 ? 0 : 1 - contradictions.length / additions.length;
  const score =
    additions.length === 0 || refusedBy.length > 0
      ? 0
      : hypothesisWeights.coverage * coverage +
        hypothesisWeights.consistency * consistency +
        hypothesisWeights.simplicity * simplicity;
  return {
    name: hypothesis.name,
    coverage,
    simplicity,
    consistency,
    score,
    newElements,
    contradictions,
    refusedBy,
    explained,
  };
}

/**
 * Scores every hypothesis and orders them best first: higher score, then
 * fewer new elements, then name. The first is the one to select.
 */
export function rankHypotheses(
  graph: ScoringGraph,
  observations: readonly Observation[],
  hypotheses: readonly Hypothesis[],
): HypothesisScore[] {
  return hypotheses
    .map((hypothesis) => scoreHypothesis(graph, observations, hypothesis))
    .sort(
      (a, b) => b.score - a.score || a.newElements - b.newElements || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
    );
}
