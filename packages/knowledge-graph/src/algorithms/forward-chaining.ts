import { type Fact, FactIndex } from "./triples.ts";

/** A pattern over facts: subject and object are entity keys or variables (`?name`); the predicate is a constant. */
export interface Atom {
  readonly subject: string;
  readonly predicate: string;
  readonly object: string;
}

/**
 * An explicit rule: when every body atom matches (with consistent variables)
 * and every `distinct` pair of terms is bound to two different entities, each
 * head atom holds. `distinct` is the rule language's inequality (`?x != ?y`):
 * a sibling rule needs it so that nobody is their own sibling.
 */
export interface Rule {
  readonly name: string;
  readonly body: readonly Atom[];
  readonly head: readonly Atom[];
  readonly distinct?: readonly (readonly [string, string])[];
}

/** A fact the rules added, with the rule and the premises (one per body atom, in body order) it came from. */
export interface Deduction {
  readonly fact: Fact;
  readonly rule: string;
  readonly premises: readonly Fact[];
}

export interface ForwardChainOptions {
  /** Stop after this many new facts (graph-growth safeguard); the result then says it was truncated. */
  maxDerived?: number;
  /**
   * Incremental closure: the input facts other than `changed` are already
   * closed under the rules whose `ruleKey` is in `closedUnder`, so those rules
   * start from `changed` alone (semi-naive over what is new); every other rule
   * starts from all the facts. The closure is the same as without this option.
   */
  incremental?: { changed: Iterable<Fact>; closedUnder: ReadonlySet<string> };
  /** When `facts` is a `FactIndex`, add the deductions to it instead of copying it first. */
  extendInPlace?: boolean;
}

/** What a run of forward chaining did: the measure of its work (independent of timing). */
export interface ChainingWork {
  /** Candidate facts tried against a body atom. */
  examined: number;
  /** Complete body matches (rule firings), each instantiating the head. */
  firings: number;
}

export interface ForwardChainResult {
  /** New facts in the order they were derived; none of them was among the input facts. */
  readonly deductions: readonly Deduction[];
  /** Rounds of rule application until nothing new followed (or the cap was hit). */
  readonly rounds: number;
  /** True when the closure is complete: applying every rule once more adds nothing. */
  readonly fixpoint: boolean;
  readonly work: ChainingWork;
}

/** True for a variable term (`?x`). */
export function isVariable(term: string): boolean {
  return term.startsWith("?");
}

/**
 * What is wrong with a rule, if anything: an empty body or head, a variable
 * predicate, or a head variable the body does not bind (the head would not be ground).
 */
export function ruleProblems(rule: Rule): string[] {
  const problems: string[] = [];
  if (rule.body.length === 0) problems.push(`rule '${rule.name}' has no conditions`);
  if (rule.head.length === 0) problems.push(`rule '${rule.name}' has no conclusions`);
  const bound = new Set<string>();
  for (const atom of rule.body) {
    if (isVariable(atom.predicate))
      problems.push(`rule '${rule.name}': predicates are constants, not variables ('${atom.predicate}')`);
    for (const term of [atom.subject, atom.object]) if (isVariable(term)) bound.add(term);
  }
  for (const atom of rule.head) {
    if (isVariable(atom.predicate))
      problems.push(`rule '${rule.name}': predicates are constants, not variables ('${atom.predicate}')`);
    for (const term of [atom.subject, atom.object]) {
      if (isVariable(term) && !bound.has(term))
        problems.push(`rule '${rule.name}': conclusion variable ${term} does not occur in the conditions`);
    }
  }
  for (const pair of rule.distinct ?? []) {
    for (const term of pair) {
      if (isVariable(term) && !bound.has(term))
        problems.push(
          `rule '${rule.name}': the inequality ${pair[0]} != ${pair[1]} uses ${term}, which does not occur in the conditions`,
        );
    }
    if (pair[0] === pair[1])
      problems.push(`rule '${rule.name}': the inequality ${pair[0]} != ${pair[1]} can never hold`);
  }
  return problems;
}

/**
 * A rule's identity regardless of its name and variable names: two rules with
 * the same key derive the same facts. Used to know which rules a graph is
 * already closed under.
 */
export function ruleKey(rule: Rule): string {
  const renamed = new Map<string, string>();
  const term = (value: string) => {
    if (!isVariable(value)) return `=${value}`;
    let name = renamed.get(value);
    if (name === undefined) {
      name = `?${renamed.size}`;
      renamed.set(value, name);
    }
    return name;
  };
  const atoms = (list: readonly Atom[]) => list.map((atom) => [term(atom.subject), atom.predicate, term(atom.object)]);
  const body = atoms(rule.body);
  const head = atoms(rule.head);
  const distinct = (rule.distinct ?? []).map((pair) => [term(pair[0]), term(pair[1])].sort()).sort();
  return JSON.stringify({ body, head, distinct });
}

type Binding = Map<string, string>;

function resolve(term: string, binding: Binding): string | undefined {
  return isVariable(term) ? binding.get(term) : term;
}

/** Binds one term to a value on top of `binding`: the variable it newly bound, "" when nothing new, null on a mismatch. */
function bindTerm(term: string, value: string, binding: Binding): string | null {
  if (!isVariable(term)) return term === value ? "" : null;
  const current = binding.get(term);
  if (current === undefined) {
    binding.set(term, value);
    return term;
  }
  return current === value ? "" : null;
}

/** Binds `atom` to `fact` on top of `binding`; returns the variables it newly bound, or null on a mismatch. */
function unify(atom: Atom, fact: Fact, binding: Binding): string[] | null {
  const first = bindTerm(atom.subject, fact.subject, binding);
  if (first === null) return null;
  const second = bindTerm(atom.object, fact.object, binding);
  if (second === null) return undo(binding, first === "" ? [] : [first]);
  if (first === "") return second === "" ? [] : [second];
  return second === "" ? [first] : [first, second];
}

function undo(binding: Binding, added: readonly string[]): null {
  for (const variable of added) binding.delete(variable);
  return null;
}

/**
 * Applies `rules` to `facts` by semi-naive forward chaining until nothing new
 * follows (a fixpoint) or `maxDerived` facts were added. Every deduction
 * carries the rule and the premises that produced it; the set of deduced facts
 * does not depend on the order of the facts or rules (below the cap).
 * Rules with problems (see `ruleProblems`) must be filtered out first.
 */
export function forwardChain(
  facts: Iterable<Fact> | FactIndex,
  rules: readonly Rule[],
  options: ForwardChainOptions = {},
): ForwardChainResult {
  const maxDerived = options.maxDerived ?? Number.POSITIVE_INFINITY;
  // An index handed over with `extendInPlace` is used as is (no copy of a large graph); the deductions are added to it.
  const known =
    facts instanceof FactIndex ? (options.extendInPlace ? facts : new FactIndex(facts.facts)) : new FactIndex(facts);
  const deductions: Deduction[] = [];
  const work: ChainingWork = { examined: 0, firings: 0 };
  // Round one: rules the facts are closed under start from the changed facts only; the others from every fact.
  const changed = options.incremental ? new FactIndex(options.incremental.changed) : known;
  const closedUnder = options.incremental?.closedUnder ?? new Set<string>();
  const startsFromChanged = new Set(rules.filter((rule) => closedUnder.has(ruleKey(rule))));
  let delta: FactIndex = known;
  let rounds = 0;
  let capped = false;

  while ((rounds === 0 || delta.size > 0) && !capped) {
    rounds += 1;
    const fresh = new FactIndex();
    for (const rule of rules) {
      if (capped) break;
      const pivotSource = rounds === 1 ? (startsFromChanged.has(rule) ? changed : known) : delta;
      if (pivotSource.size === 0) continue;
      // From every fact, one pivot finds every match; from a delta, each body position takes its turn.
      const pivots = pivotSource === known ? 1 : rule.body.length;
      for (let pivot = 0; pivot < pivots && !capped; pivot += 1) {
        const premises = new Array<Fact>(rule.body.length);
        const binding: Binding = new Map();
        const order = [pivot, ...rule.body.keys()].filter((index, position) => position === 0 || index !== pivot);
        const join = (step: number): void => {
          if (capped) return;
          if (step === order.length) {
            if (rule.distinct?.some(([left, right]) => resolve(left, binding) === resolve(right, binding))) return;
            work.firings += 1;
            for (const atom of rule.head) {
              const fact = {
                subject: resolve(atom.subject, binding) as string,
                predicate: atom.predicate,
                object: resolve(atom.object, binding) as string,
              };
              if (known.has(fact) || fresh.has(fact)) continue;
              fresh.add(fact);
              deductions.push({ fact, rule: rule.name, premises: [...premises] });
              if (deductions.length >= maxDerived) {
                capped = true;
                return;
              }
            }
            return;
          }
          const atomIndex = order[step] as number;
          const atom = rule.body[atomIndex] as Atom;
          const source = step === 0 ? pivotSource : known;
          const candidates = source.match(
            atom.predicate,
            resolve(atom.subject, binding),
            resolve(atom.object, binding),
          );
          for (const fact of candidates) {
            work.examined += 1;
            const added = unify(atom, fact, binding);
            if (added === null) continue;
            premises[atomIndex] = fact;
            join(step + 1);
            for (const variable of added) binding.delete(variable);
            if (capped) return;
          }
        };
        join(0);
      }
    }
    for (const fact of fresh.facts) known.add(fact);
    delta = fresh;
  }
  return { deductions, rounds, fixpoint: !capped, work };
}
