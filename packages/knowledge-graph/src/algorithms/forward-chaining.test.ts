import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type Atom, forwardChain, isVariable, type Rule, ruleKey, ruleProblems } from "./forward-chaining.ts";
import { type Fact, factKey } from "./triples.ts";

const nodes = ["a", "b", "c", "d", "e"];
const predicates = ["p", "q", "r"];
const variables = ["?x", "?y", "?z"];

const fact = fc.record({
  subject: fc.constantFrom(...nodes),
  predicate: fc.constantFrom(...predicates),
  object: fc.constantFrom(...nodes),
});
const term = fc.oneof(fc.constantFrom(...variables), fc.constantFrom(...nodes));
const atom = fc.record({ subject: term, predicate: fc.constantFrom(...predicates), object: term });

/** Random rules whose head variables all occur in the body, some with inequalities between bound terms. */
const rule = fc
  .record({
    name: fc.constantFrom("r1", "r2", "r3", "r4"),
    body: fc.array(atom, { minLength: 1, maxLength: 3 }),
    head: fc.array(atom, { minLength: 1, maxLength: 2 }),
    distinct: fc.array(fc.tuple(term, term), { maxLength: 2 }),
  })
  .map((candidate): Rule => {
    const bound = new Set(candidate.body.flatMap((item) => [item.subject, item.object]).filter(isVariable));
    const ground = (value: string) => (isVariable(value) && !bound.has(value) ? "a" : value);
    const distinct = candidate.distinct
      .map(([left, right]) => [ground(left), ground(right)] as const)
      .filter(([left, right]) => left !== right);
    return {
      name: candidate.name,
      body: candidate.body,
      head: candidate.head.map((item) => ({ ...item, subject: ground(item.subject), object: ground(item.object) })),
      ...(distinct.length > 0 ? { distinct } : {}),
    };
  });

/** The naive reference: apply every rule to every combination of facts until nothing changes. */
function naiveClosure(facts: readonly Fact[], rules: readonly Rule[]): Set<string> {
  const known = new Map(facts.map((item) => [factKey(item), item]));
  let changed = true;
  while (changed) {
    changed = false;
    for (const current of rules) {
      for (const binding of matchAll(current.body, [...known.values()], new Map())) {
        const value = (termValue: string) => (isVariable(termValue) ? binding.get(termValue) : termValue);
        if ((current.distinct ?? []).some(([left, right]) => value(left) === value(right))) continue;
        for (const head of current.head) {
          const derived = instantiate(head, binding);
          if (!known.has(factKey(derived))) {
            known.set(factKey(derived), derived);
            changed = true;
          }
        }
      }
    }
  }
  return new Set(known.keys());
}

function instantiate(item: Atom, binding: Map<string, string>): Fact {
  const value = (termValue: string) => (isVariable(termValue) ? (binding.get(termValue) as string) : termValue);
  return { subject: value(item.subject), predicate: item.predicate, object: value(item.object) };
}

function* matchAll(
  body: readonly Atom[],
  facts: readonly Fact[],
  binding: Map<string, string>,
): Generator<Map<string, string>> {
  if (body.length === 0) {
    yield binding;
    return;
  }
  const [first, ...rest] = body as [Atom, ...Atom[]];
  for (const candidate of facts) {
    if (candidate.predicate !== first.predicate) continue;
    const next = new Map(binding);
    let ok = true;
    for (const [termValue, value] of [
      [first.subject, candidate.subject],
      [first.object, candidate.object],
    ] as const) {
      if (!isVariable(termValue)) ok &&= termValue === value;
      else if (next.has(termValue)) ok &&= next.get(termValue) === value;
      else next.set(termValue, value);
    }
    if (ok) yield* matchAll(rest, facts, next);
  }
}

describe("forward chaining", () => {
  it("reaches the same closure as the naive fixpoint", () => {
    fc.assert(
      fc.property(fc.array(fact, { maxLength: 12 }), fc.array(rule, { minLength: 1, maxLength: 3 }), (facts, rules) => {
        const result = forwardChain(facts, rules);
        const closure = new Set([
          ...facts.map(factKey),
          ...result.deductions.map((deduction) => factKey(deduction.fact)),
        ]);
        expect(result.fixpoint).toBe(true);
        expect(closure).toEqual(naiveClosure(facts, rules));
      }),
      { numRuns: 300 },
    );
  });

  it("derives each fact once, never an input fact, each from its rule and premises known before it", () => {
    fc.assert(
      fc.property(fc.array(fact, { maxLength: 12 }), fc.array(rule, { minLength: 1, maxLength: 3 }), (facts, rules) => {
        const { deductions } = forwardChain(facts, rules);
        const known = new Set(facts.map(factKey));
        for (const deduction of deductions) {
          expect(known.has(factKey(deduction.fact))).toBe(false);
          const used = rules.find(
            (candidate) => candidate.name === deduction.rule && candidate.body.length === deduction.premises.length,
          );
          expect(used).toBeDefined();
          for (const premise of deduction.premises) expect(known.has(factKey(premise))).toBe(true);
          // Some rule of that name, bound by the premises, concludes the fact.
          const concludes = rules.some((candidate) => {
            if (candidate.name !== deduction.rule || candidate.body.length !== deduction.premises.length) return false;
            const binding = new Map<string, string>();
            const consistent = candidate.body.every((item, index) => {
              const premise = deduction.premises[index] as Fact;
              if (premise.predicate !== item.predicate) return false;
              return [
                [item.subject, premise.subject],
                [item.object, premise.object],
              ].every(([termValue, value]) => {
                if (!isVariable(termValue as string)) return termValue === value;
                const current = binding.get(termValue as string);
                if (current === undefined) binding.set(termValue as string, value as string);
                return current === undefined || current === value;
              });
            });
            return (
              consistent &&
              candidate.head.some((head) => factKey(instantiate(head, binding)) === factKey(deduction.fact))
            );
          });
          expect(concludes).toBe(true);
          known.add(factKey(deduction.fact));
        }
      }),
      { numRuns: 300 },
    );
  });

  it("does not depend on the order of facts or rules", () => {
    fc.assert(
      fc.property(
        fc.array(fact, { maxLength: 10 }),
        fc.array(rule, { minLength: 1, maxLength: 3 }),
        fc.integer(),
        (facts, rules, seed) => {
          const shuffled = [...facts]
            .sort((a, b) => ((factKey(a).length * 31 + seed) % 7) - ((factKey(b).length * 31 + seed) % 7))
            .reverse();
          const keys = (list: readonly Fact[], ruleList: readonly Rule[]) =>
            new Set(forwardChain(list, ruleList).deductions.map((deduction) => factKey(deduction.fact)));
          expect(keys(shuffled, [...rules].reverse())).toEqual(keys(facts, rules));
        },
      ),
    );
  });

  it("incremental closure: starting from what changed gives the same closure as recomputing from every fact", () => {
    fc.assert(
      fc.property(
        fc.array(fact, { maxLength: 10 }),
        fc.array(fact, { maxLength: 6 }),
        fc.array(rule, { minLength: 1, maxLength: 3 }),
        fc.array(rule, { maxLength: 2 }),
        fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
        (before, arriving, closedRules, otherRules, keep) => {
          // The graph as a previous call left it: closed under `closedRules`.
          const closed = [
            ...before,
            ...forwardChain(before, closedRules).deductions.map((deduction) => deduction.fact),
          ];
          // This call's rules: some it is closed under, some new.
          const rules = [...closedRules.filter((_, index) => keep[index]), ...otherRules];
          if (rules.length === 0) return;
          const all = [...closed, ...arriving];
          const incremental = forwardChain(all, rules, {
            incremental: { changed: arriving, closedUnder: new Set(closedRules.map(ruleKey)) },
          });
          const full = forwardChain(all, rules);
          const keys = (result: typeof full) =>
            new Set([...all.map(factKey), ...result.deductions.map((deduction) => factKey(deduction.fact))]);
          expect(keys(incremental)).toEqual(keys(full));
          expect(keys(incremental)).toEqual(naiveClosure(all, rules));
        },
      ),
      { numRuns: 400 },
    );
  });

  it("a rule with an inequality never concludes what the inequality excludes (nobody is their own sibling)", () => {
    const sibling: Rule = {
      name: "siblings share a parent",
      body: [
        { subject: "?p", predicate: "parent_of", object: "?x" },
        { subject: "?p", predicate: "parent_of", object: "?y" },
      ],
      head: [{ subject: "?x", predicate: "sibling_of", object: "?y" }],
      distinct: [["?x", "?y"]],
    };
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom(...nodes), fc.constantFrom(...nodes)), { maxLength: 12 }),
        (pairs) => {
          const facts = pairs.map(([parent, child]) => ({ subject: parent, predicate: "parent_of", object: child }));
          const derived = forwardChain(facts, [sibling]).deductions.map((deduction) => deduction.fact);
          for (const item of derived) expect(item.subject).not.toBe(item.object);
          // Every pair of different children of one parent is derived, both ways.
          for (const a of facts)
            for (const b of facts) {
              if (a.subject === b.subject && a.object !== b.object)
                expect(derived.some((item) => item.subject === a.object && item.object === b.object)).toBe(true);
            }
        },
      ),
    );
    const without = forwardChain(
      [{ subject: "ann", predicate: "parent_of", object: "bo" }],
      [{ ...sibling, distinct: [] }],
    ).deductions;
    expect(without.map((deduction) => deduction.fact)).toEqual([
      { subject: "bo", predicate: "sibling_of", object: "bo" },
    ]);
  });

  it("does work proportional to what changed: one new link on a 200-link chain costs its new facts' joins, not the closure's", () => {
    const link = (index: number): Fact => ({ subject: `n${index}`, predicate: "parent_of", object: `n${index + 1}` });
    const rules: Rule[] = [
      {
        name: "parent",
        body: [{ subject: "?x", predicate: "parent_of", object: "?y" }],
        head: [{ subject: "?x", predicate: "ancestor_of", object: "?y" }],
      },
      {
        name: "transitive",
        body: [
          { subject: "?x", predicate: "ancestor_of", object: "?y" },
          { subject: "?y", predicate: "ancestor_of", object: "?z" },
        ],
        head: [{ subject: "?x", predicate: "ancestor_of", object: "?z" }],
      },
    ];
    const chain = Array.from({ length: 200 }, (_, index) => link(index));
    const first = forwardChain(chain, rules);
    expect(first.deductions).toHaveLength((200 * 201) / 2);
    const closed = [...chain, ...first.deductions.map((deduction) => deduction.fact)];
    const arriving = link(200);
    const incremental = forwardChain([...closed, arriving], rules, {
      incremental: { changed: [arriving], closedUnder: new Set(rules.map(ruleKey)) },
    });
    const full = forwardChain([...closed, arriving], rules);
    expect(incremental.deductions).toHaveLength(201);
    expect(full.deductions).toHaveLength(201);
    // One new link: 201 new ancestor facts, each joined with the ancestors of its subject (at most 200): about 20,000 facts examined.
    expect(incremental.work.examined).toBeLessThan(201 * 201);
    // Recomputing joins every ancestor fact with every other: about n^3 / 6.
    expect(full.work.examined).toBeGreaterThan(50 * incremental.work.examined);
    if (process.env["PRINT_CHAINING_WORK"])
      console.info(
        `one new link on a 200-link chain: incremental ${JSON.stringify(incremental.work)}, full ${JSON.stringify(full.work)}, first closure ${JSON.stringify(first.work)}`,
      );
  });

  it("stops at maxDerived and says the closure is incomplete", () => {
    const chain: Fact[] = Array.from({ length: 20 }, (_, index) => ({
      subject: `n${index}`,
      predicate: "next",
      object: `n${index + 1}`,
    }));
    const transitive: Rule = {
      name: "reach",
      body: [
        { subject: "?x", predicate: "next", object: "?y" },
        { subject: "?y", predicate: "reach", object: "?z" },
      ],
      head: [{ subject: "?x", predicate: "reach", object: "?z" }],
    };
    const base: Rule = {
      name: "step",
      body: [{ subject: "?x", predicate: "next", object: "?y" }],
      head: [{ subject: "?x", predicate: "reach", object: "?y" }],
    };
    const full = forwardChain(chain, [base, transitive]);
    expect(full.fixpoint).toBe(true);
    expect(full.deductions).toHaveLength((20 * 21) / 2);
    const capped = forwardChain(chain, [base, transitive], { maxDerived: 50 });
    expect(capped.fixpoint).toBe(false);
    expect(capped.deductions).toHaveLength(50);
  });

  it("names what is wrong with a rule", () => {
    expect(ruleProblems({ name: "r", body: [], head: [{ subject: "a", predicate: "p", object: "b" }] })).toEqual([
      "rule 'r' has no conditions",
    ]);
    expect(
      ruleProblems({
        name: "r",
        body: [{ subject: "?x", predicate: "p", object: "b" }],
        head: [{ subject: "?x", predicate: "q", object: "?y" }],
      }),
    ).toEqual(["rule 'r': conclusion variable ?y does not occur in the conditions"]);
    expect(
      ruleProblems({
        name: "r",
        body: [{ subject: "?x", predicate: "?p", object: "b" }],
        head: [{ subject: "?x", predicate: "q", object: "b" }],
      }),
    ).toHaveLength(1);
    const body = [{ subject: "?x", predicate: "p", object: "?y" }];
    const head = [{ subject: "?x", predicate: "q", object: "?y" }];
    expect(ruleProblems({ name: "r", body, head, distinct: [["?x", "?z"]] })).toEqual([
      "rule 'r': the inequality ?x != ?z uses ?z, which does not occur in the conditions",
    ]);
    expect(ruleProblems({ name: "r", body, head, distinct: [["?x", "?x"]] })).toEqual([
      "rule 'r': the inequality ?x != ?x can never hold",
    ]);
    expect(ruleProblems({ name: "r", body, head, distinct: [["?x", "?y"]] })).toEqual([]);
  });

  it("identifies a rule by its shape, whatever its name and variable names", () => {
    const one: Rule = {
      name: "a",
      body: [{ subject: "?x", predicate: "p", object: "?y" }],
      head: [{ subject: "?y", predicate: "q", object: "?x" }],
      distinct: [["?x", "?y"]],
    };
    const renamed: Rule = {
      name: "b",
      body: [{ subject: "?s", predicate: "p", object: "?t" }],
      head: [{ subject: "?t", predicate: "q", object: "?s" }],
      distinct: [["?t", "?s"]],
    };
    expect(ruleKey(renamed)).toBe(ruleKey(one));
    expect(ruleKey({ ...one, distinct: [] })).not.toBe(ruleKey(one));
    expect(ruleKey({ ...one, head: [{ subject: "?x", predicate: "q", object: "?y" }] })).not.toBe(ruleKey(one));
  });
});
