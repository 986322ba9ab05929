import type { ContextData, HostFact, HostRule, Triple } from "@deliberate/contracts";
import { forwardChain, isVariable, type Rule, ruleProblems } from "../algorithms/forward-chaining.ts";
import { normalizeEntityName, normalizePredicate } from "../algorithms/names.ts";
import { type GraphRelation, WorkingGraph } from "../graph/working-graph.ts";
import type { ReasoningRun } from "./reasoning-run.ts";

/** The rules in force for a call: the session's stored ones, replaced or extended by this call's (by name). */
export function rulesInForce(stored: readonly HostRule[], given: readonly HostRule[] | null | undefined): HostRule[] {
  const byName = new Map(stored.map((rule) => [rule.name, rule]));
  for (const rule of given ?? []) byName.set(rule.name, rule);
  return [...byName.values()];
}

/**
 * Whether the call's text needs the model's extraction: always without facts
 * as data; with them, only when the host also sent text beyond the goal
 * (domain knowledge, conversation, a plan step or a prior summary).
 */
export function needsExtraction(context: ContextData | null | undefined): boolean {
  if (!context?.facts || context.facts.length === 0) return true;
  return Boolean(
    context.domainKnowledge ||
      context.historicalConversation ||
      context.currentPlanStep ||
      context.hostProvidedPriorReasoningSummary != null,
  );
}

function toRule(rule: HostRule, displayNames: Map<string, string>): Rule {
  const term = (value: string) => {
    if (isVariable(value)) return value.toLowerCase();
    const key = normalizeEntityName(value);
    if (!displayNames.has(key)) displayNames.set(key, value.trim());
    return key;
  };
  const atom = (item: HostRule["conditions"][number]) => ({
    subject: term(item.subject),
    predicate: normalizePredicate(item.predicate),
    object: term(item.object),
  });
  const distinct = (rule.different ?? []).map((pair) => [term(pair.left), term(pair.right)] as const);
  return {
    name: rule.name,
    body: rule.conditions.map(atom),
    head: rule.conclusions.map(atom),
    ...(distinct.length > 0 ? { distinct } : {}),
  };
}

/**
 * Adds the host's facts with status `asserted` (provenance `host_data`),
 * through the graph's contradiction check like any arriving fact; they do not
 * count against the call's growth budget. Returns how many were refused.
 */
function assertFacts(run: ReasoningRun, facts: readonly HostFact[], step: string): number {
  const { graph } = run;
  const provenance = { kind: "host_data" as const, taskId: run.input.taskId, step, reference: null };
  const meta = { confidence: 1, validity: "asserted" as const, status: "asserted" as const, provenance };
  const before = graph.growth;
  let refused = 0;
  for (const fact of facts) {
    const subject = graph.upsertEntity({ name: fact.subject, type: "concept", observations: [] }, meta).key;
    const object = graph.upsertEntity({ name: fact.object, type: "concept", observations: [] }, meta).key;
    if (graph.upsertRelation({ subject, predicate: fact.predicate, object }, meta).refusedBy) refused += 1;
    run.found.relevantEntities.add(subject);
    run.found.relevantEntities.add(object);
  }
  run.exemptGrowth(graph.growth - before);
  return refused;
}

/** The host's rules as the chaining algorithm takes them; a rule code cannot apply is reported and left out. */
function usableRules(run: ReasoningRun, rules: readonly HostRule[], displayNames: Map<string, string>): Rule[] {
  const usable: Rule[] = [];
  for (const given of rules) {
    const rule = toRule(given, displayNames);
    const problems = ruleProblems(rule);
    if (problems.length > 0)
      run.notices.push({
        field: "contextData.rules",
        message: `Rule '${given.name}' was not applied: ${problems.join("; ")}.`,
      });
    else usable.push(rule);
  }
  return usable;
}

/** A believed fact that rests on no hypothesis: what the host's rules may build on. */
function isProven(relation: GraphRelation): boolean {
  return WorkingGraph.believes(relation) && (relation.status === "asserted" || relation.status === "derived");
}

/**
 * Applies the host's rules in code by forward chaining over believed asserted
 * or derived facts (never over hypotheses), storing each new fact with status
 * `derived`, its rule and premises, through the contradiction check (a
 * stronger contradicting fact refuses it). Bounded by `maxDerivedFacts`; the
 * entities deduced facts name count against the growth budget.
 */
function applyRules(run: ReasoningRun, rules: readonly HostRule[], step: string): { derived: number; refused: number } {
  const { graph } = run;
  const displayNames = new Map<string, string>();
  const usable = usableRules(run, rules, displayNames);
  if (usable.length === 0) return { derived: 0, refused: 0 };
  const premises = graph.relations().filter(isProven);
  const result = forwardChain(premises, usable, { maxDerived: run.options.maxDerivedFacts });
  let derived = 0;
  let refused = 0;
  for (const deduction of result.deductions) {
    const held = deduction.premises.map((premise) => graph.relation(premise));
    // A premise an earlier deduction of this run displaced (or that never made it in) no longer supports this one.
    if (held.some((premise) => premise === undefined || !isProven(premise))) {
      refused += 1;
      continue;
    }
    const newEntities = [deduction.fact.subject, deduction.fact.object].filter((key) => !graph.entity(key));
    if (newEntities.length > run.remainingGrowth()) {
      run.growthCapped("adding entities named by the host's rules");
      return { derived, refused };
    }
    const provenance = { kind: "deduction" as const, taskId: run.input.taskId, step, reference: deduction.rule };
    for (const key of newEntities)
      graph.upsertEntity(
        { name: displayNames.get(key) ?? key, type: "concept", observations: [] },
        { confidence: 1, validity: "derived", provenance },
      );
    const confidence = Math.min(...(held as GraphRelation[]).map((premise) => premise.confidence));
    const triples: Triple[] = deduction.premises.map((premise) => graph.tripleOf(premise));
    const derivation = { rule: deduction.rule, premises: triples };
    if (
      graph.upsertRelation(deduction.fact, {
        confidence,
        validity: "derived",
        status: "derived",
        provenance,
        derivation,
      }).refusedBy
    ) {
      refused += 1;
      continue;
    }
    run.found.derivations.push({ triple: graph.tripleOf(deduction.fact), derivation });
    derived += 1;
  }
  if (!result.fixpoint)
    run.growthCapped(`applying the host's rules (${run.options.maxDerivedFacts} deduced relations per call)`);
  return { derived, refused };
}

/** Takes in the host's facts and applies the rules in force; records one trace step when there was anything. */
export function absorbHostKnowledge(
  run: ReasoningRun,
  input: { facts: readonly HostFact[]; rules: readonly HostRule[] },
): void {
  if (input.facts.length === 0 && input.rules.length === 0) return;
  const mark = run.graph.mark();
  const step = "host data";
  const refusedFacts = assertFacts(run, input.facts, step);
  const { derived, refused } = applyRules(run, input.rules, step);
  const refusals =
    refusedFacts + refused > 0
      ? ` ${refusedFacts + refused} fact(s) were refused as contradicted by stronger ones (see the notices).`
      : "";
  const summary = `The host gave ${input.facts.length} fact(s) as data (asserted) and ${input.rules.length} rule(s) are in force; ${derived} fact(s) were derived from them in code.${refusals}`;
  run.findings.push(`Host data: ${summary}`);
  run.record("hostData", summary, mark);
}
