import { describeValue, invalidInput, IssueList } from "./invalid-input.ts";

/** A direct causal link, named as in `reasoning_counterfactual.causal_model.relationships` (spec 3.13). */
export interface CausalRelationship {
  cause: string;
  effect: string;
  /** Linear coefficient: a change of 1 in `cause` changes `effect` by `strength`, all else held fixed. */
  strength: number;
}

/** A causal model as in `reasoning_counterfactual.causal_model` (spec 3.13). */
export interface CausalModel {
  variables: readonly string[];
  relationships: readonly CausalRelationship[];
}

/** Indexed, validated form of a {@link CausalModel}; edges keep input order. */
export interface CausalGraph {
  variables: readonly string[];
  indexOf: ReadonlyMap<string, number>;
  /** `children[v]` = outgoing edges of variable v, in input order. */
  children: readonly (readonly CausalEdge[])[];
  /** `parents[v]` = incoming edges of variable v, in input order. */
  parents: readonly (readonly CausalEdge[])[];
  /** Variable indexes in topological order (causes before effects). */
  order: readonly number[];
}

/** One validated edge, by variable index. */
export interface CausalEdge {
  /** Index into `relationships`. */
  relationship: number;
  cause: number;
  effect: number;
  strength: number;
}

/**
 * Checks a causal model's structure, without requiring it to be acyclic:
 * variables are unique non-empty names; every relationship names known
 * variables, is not a self-loop, is not a duplicate of an earlier cause →
 * effect pair, and has a finite strength. Throws INVALID_INPUT naming each
 * bad field under `field` (default `causal_model`), e.g.
 * `causal_model.relationships.2.cause`.
 */
export function validateCausalStructure(model: CausalModel, field = "causal_model"): Omit<CausalGraph, "order"> {
  const issues = new IssueList();
  if (model === null || typeof model !== "object")
    invalidInput(field, `must be an object with variables and relationships, got ${describeValue(model)}`);
  let indexOf = new Map<string, number>();
  if (issues.array(model.variables, `${field}.variables`, 1))
    indexOf = issues.uniqueNames(model.variables, (index) => `${field}.variables.${index}`);
  const edges: CausalEdge[] = [];
  if (issues.array(model.relationships, `${field}.relationships`)) {
    const seen = new Map<string, number>();
    model.relationships.forEach((relationship, index) => {
      const at = `${field}.relationships.${index}`;
      const cause = indexOf.get(relationship?.cause);
      const effect = indexOf.get(relationship?.effect);
      if (cause === undefined)
        issues.add(`${at}.cause`, `must be one of variables, got ${describeValue(relationship?.cause)}`);
      if (effect === undefined)
        issues.add(`${at}.effect`, `must be one of variables, got ${describeValue(relationship?.effect)}`);
      const strengthOk = issues.finite(relationship?.strength, `${at}.strength`);
      if (cause === undefined || effect === undefined || !strengthOk) return;
      if (cause === effect) {
        issues.add(at, `is a self-loop on ${JSON.stringify(relationship.cause)}; a variable cannot cause itself`);
        return;
      }
      const key = `${cause}>${effect}`;
      const first = seen.get(key);
      if (first !== undefined) {
        issues.add(
          at,
          `duplicates ${field}.relationships.${first} (${relationship.cause} -> ${relationship.effect}); combine them into one strength`,
        );
        return;
      }
      seen.set(key, index);
      edges.push({ relationship: index, cause, effect, strength: relationship.strength });
    });
  }
  issues.throwIfAny(
    "List every variable once in variables; each relationship links two different listed variables with a finite strength.",
  );
  const children: CausalEdge[][] = model.variables.map(() => []);
  const parents: CausalEdge[][] = model.variables.map(() => []);
  for (const edge of edges) {
    (children[edge.cause] as CausalEdge[]).push(edge);
    (parents[edge.effect] as CausalEdge[]).push(edge);
  }
  return { variables: model.variables, indexOf, children, parents };
}

/**
 * Finds a directed cycle, or returns null if the model is acyclic. The
 * result lists variable names along the cycle and repeats the first at the
 * end (`["A", "B", "C", "A"]`). Deterministic: depth-first search from
 * variables in input order, following relationships in input order; the
 * first cycle met is returned. Iterative, O(V + E). Throws INVALID_INPUT on
 * structural problems (see {@link validateCausalStructure}).
 */
export function findCausalCycle(model: CausalModel, field = "causal_model"): string[] | null {
  const graph = validateCausalStructure(model, field);
  const cycle = findCycle(graph);
  return cycle === null ? null : cycle.map((index) => graph.variables[index] as string);
}

/**
 * Validates a causal model (structure and acyclicity) and indexes it.
 * A cycle is reported as INVALID_INPUT on `<field>.relationships` naming the
 * cycle path. O(V log V + E).
 */
export function validateCausalModel(model: CausalModel, field = "causal_model"): CausalGraph {
  const graph = validateCausalStructure(model, field);
  const cycle = findCycle(graph);
  if (cycle !== null) {
    const path = cycle.map((index) => graph.variables[index] as string).join(" -> ");
    invalidInput(
      `${field}.relationships`,
      `contain a cycle: ${path}; a causal model must be acyclic`,
      "Remove or reverse one relationship on the cycle (feedback loops need a time-indexed model).",
    );
  }
  return { ...graph, order: kahnOrder(graph) };
}

/**
 * Variables in topological order (every cause before its effects) by Kahn's
 * algorithm; among variables ready at the same time the earliest in
 * `variables` goes first, so the order is unique for a given input.
 * Throws INVALID_INPUT on a cycle (naming it) or structural problems.
 */
export function causalTopologicalOrder(model: CausalModel, field = "causal_model"): string[] {
  const graph = validateCausalModel(model, field);
  return graph.order.map((index) => graph.variables[index] as string);
}

/** One directed path and the product of the strengths along it. */
export interface CausalPath {
  /** Variable names from the path's start to its end. */
  variables: string[];
  /** Product of the strengths of the path's relationships. */
  product: number;
}

/** Default cap on enumerated paths: paths can be exponential in the number of variables. */
export const defaultMaxCausalPaths = 1000;

/**
 * Enumerates directed paths of a validated graph from `from` to every
 * variable (or only to `to`), depth-first with relationships in input order,
 * stopping after `maxPaths` paths (`truncated: true` then). Path products
 * are the strength products; by the path-tracing rule of linear models
 * their sum over all paths from X to Y is X's total effect on Y.
 */
export function enumerateCausalPaths(
  graph: Omit<CausalGraph, "order">,
  options: { from: number; to?: number; maxPaths: number },
): { paths: CausalPath[]; truncated: boolean } {
  const paths: CausalPath[] = [];
  const canReachTarget = options.to === undefined ? undefined : ancestorsOf(graph, options.to);
  const stack: { variable: number; product: number; depth: number }[] = [];
  const current: number[] = [];
  // Push children in reverse so they pop in input order.
  const push = (variable: number, product: number, depth: number) => {
    const edges = graph.children[variable] as readonly CausalEdge[];
    for (let index = edges.length - 1; index >= 0; index -= 1) {
      const edge = edges[index] as CausalEdge;
      if (canReachTarget === undefined || canReachTarget.has(edge.effect))
        stack.push({ variable: edge.effect, product: product * edge.strength, depth });
    }
  };
  current.push(options.from);
  push(options.from, 1, 1);
  while (stack.length > 0) {
    const entry = stack.pop() as { variable: number; product: number; depth: number };
    current.length = entry.depth;
    current.push(entry.variable);
    if (options.to === undefined || entry.variable === options.to) {
      if (paths.length >= options.maxPaths) return { paths, truncated: true };
      paths.push({ variables: current.map((index) => graph.variables[index] as string), product: entry.product });
    }
    if (entry.variable !== options.to) push(entry.variable, entry.product, entry.depth + 1);
  }
  return { paths, truncated: false };
}

/** Variables from which `target` is reachable, including itself. */
function ancestorsOf(graph: Omit<CausalGraph, "order">, target: number): Set<number> {
  const seen = new Set<number>([target]);
  const queue = [target];
  while (queue.length > 0) {
    const variable = queue.pop() as number;
    for (const edge of graph.parents[variable] as readonly CausalEdge[]) {
      if (!seen.has(edge.cause)) {
        seen.add(edge.cause);
        queue.push(edge.cause);
      }
    }
  }
  return seen;
}

/** Iterative three-colour DFS; returns the first cycle found as variable indexes (first repeated at the end). */
function findCycle(graph: Omit<CausalGraph, "order">): number[] | null {
  const white = 0;
  const grey = 1;
  const black = 2;
  const colour = new Uint8Array(graph.variables.length);
  for (let start = 0; start < graph.variables.length; start += 1) {
    if (colour[start] !== white) continue;
    const path: number[] = [start];
    const nextEdge: number[] = [0];
    colour[start] = grey;
    while (path.length > 0) {
      const variable = path[path.length - 1] as number;
      const edges = graph.children[variable] as readonly CausalEdge[];
      const position = nextEdge[nextEdge.length - 1] as number;
      if (position >= edges.length) {
        colour[variable] = black;
        path.pop();
        nextEdge.pop();
        continue;
      }
      nextEdge[nextEdge.length - 1] = position + 1;
      const next = (edges[position] as CausalEdge).effect;
      if (colour[next] === grey) return [...path.slice(path.indexOf(next)), next];
      if (colour[next] === white) {
        colour[next] = grey;
        path.push(next);
        nextEdge.push(0);
      }
    }
  }
  return null;
}

/** Kahn's algorithm with a min-heap of ready variable indexes (earliest input first). */
function kahnOrder(graph: Omit<CausalGraph, "order">): number[] {
  const remaining = graph.parents.map((edges) => edges.length);
  const heap: number[] = [];
  const pushHeap = (value: number) => {
    heap.push(value);
    let index = heap.length - 1;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      if ((heap[parent] as number) <= value) break;
      heap[index] = heap[parent] as number;
      index = parent;
    }
    heap[index] = value;
  };
  const popHeap = (): number => {
    const top = heap[0] as number;
    const last = heap.pop() as number;
    if (heap.length > 0) {
      let index = 0;
      for (;;) {
        const left = 2 * index + 1;
        if (left >= heap.length) break;
        const right = left + 1;
        const child = right < heap.length && (heap[right] as number) < (heap[left] as number) ? right : left;
        if ((heap[child] as number) >= last) break;
        heap[index] = heap[child] as number;
        index = child;
      }
      heap[index] = last;
    }
    return top;
  };
  remaining.forEach((count, index) => {
    if (count === 0) pushHeap(index);
  });
  const order: number[] = [];
  while (heap.length > 0) {
    const variable = popHeap();
    order.push(variable);
    for (const edge of graph.children[variable] as readonly CausalEdge[]) {
      const left = (remaining[edge.effect] as number) - 1;
      remaining[edge.effect] = left;
      if (left === 0) pushHeap(edge.effect);
    }
  }
  return order;
}
