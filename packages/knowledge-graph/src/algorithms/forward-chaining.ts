import { type Fact, FactIndex } from "./triples.ts";

/** A pattern over facts: subject and object are entity keys or variables (`?name`); the predicate is a constant. */
export interface Atom {
  readonly subject: string;
  readonly predicate: string;
  readonly object: string;
}

/** An explicit rule: when every body atom matches (with consistent variables), each head atom holds. */
export interface Rule {
  readonly name: string;
  readonly body: readonly Atom[];
  readonly head: readonly Atom[];
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
}

export interface ForwardChainResult {
  /** New facts in the order they were derived; none of them was among the input facts. */
  readonly deductions: readonly Deduction[];
  /** Rounds of rule application until nothing new followed (or the cap was hit). */
  readonly rounds: number;
  /** True when the closure is complete: applying every rule once more adds nothing. */
  readonly fixpoint: boolean;
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
    if (isVariable(atom.predicate)) problems.push(`rule '${rule.name}': predicates are constants, not variables ('${atom.predicate}')`);
    for (const term of [atom.subject, atom.object]) if (isVariable(term)) bound.add(term);
  }
  for (const atom of rule.head) {
    if (isVariable(atom.predicate)) problems.push(`rule '${rule.name}': predicates are constants, not variables ('${atom.predicate}')`);
    for (const term of [atom.subject, atom.object]) {
      if (isVariable(term) && !bound.has(term)) problems.push(`rule '${rule.name}': conclusion variable ${term} does not occur in the conditions`);
    }
  }
  return problems;
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
export function forwardChain(facts: Iterable<Fact>, rules: readonly Rule[], options: ForwardChainOptions = {}): ForwardChainResult {
  const maxDerived = options.maxDerived ?? Number.POSITIVE_INFINITY;
  const known = new FactIndex(facts);
  const deductions: Deduction[] = [];
  let delta = new FactIndex(known.facts);
  let rounds = 0;
  let capped = false;

  while (delta.size > 0 && !capped) {
    rounds += 1;
    const fresh = new FactIndex();
    for (const rule of rules) {
      if (capped) break;
      for (let pivot = 0; pivot < rule.body.length && !capped; pivot += 1) {
        const premises = new Array<Fact>(rule.body.length);
        const binding: Binding = new Map();
        const order = [pivot, ...rule.body.keys()].filter((index, position) => position === 0 || index !== pivot);
        const join = (step: number): void => {
          if (capped) return;
          if (step === order.length) {
            for (const atom of rule.head) {
              const fact = { subject: resolve(atom.subject, binding) as string, predicate: atom.predicate, object: resolve(atom.object, binding) as string };
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
          const source = step === 0 ? delta : known;
          const candidates = source.match(atom.predicate, resolve(atom.subject, binding), resolve(atom.object, binding));
          for (const fact of candidates) {
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
  return { deductions, rounds, fixpoint: !capped };
}
