import type { ContextData, HostFact, HostRule, Triple } from "@deliberate/contracts";
import { forwardChain, isVariable, type Rule, ruleProblems } from "../algorithms/forward-chaining.ts";
import { normalizeEntityName, normalizePredicate } from "../algorithms/names.ts";
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
  return Boolean(context.domainKnowledge || context.historicalConversation || context.currentPlanStep || context.hostProvidedPriorReasoningSummary != null);
}

function toRule(rule: HostRule, displayNames: Map<string, string>): Rule {
  const term = (value: string) => {
    if (isVariable(value)) return value.toLowerCase();
    const key = normalizeEntityName(value);
    if (!displayNames.has(key)) displayNames.set(key, value.trim());
    return key;
  };
  const atom = (item: HostRule["conditions"][number]) => ({ subject: term(item.subject), predicate: normalizePredicate(item.predicate), object: term(item.object) });
  return { name: rule.name, body: rule.conditions.map(atom), head: rule.conclusions.map(atom) };
}

/** Adds the host's facts as asserted (provenance `host_data`); they do not count against the call's growth budget. */
function assertFacts(run: ReasoningRun, facts: readonly HostFact[], step: string): number {
  const { graph } = run;
  const provenance = { kind: "host_data" as const, taskId: run.input.taskId, step, reference: null };
  const meta = { confidence: 1, validity: "asserted" as const, provenance };
  const before = graph.growth;
  for (const fact of facts) {
    const subject = graph.upsertEntity({ name: fact.subject, type: "concept", observations: [] }, meta).key;
    const object = graph.upsertEntity({ name: fact.object, type: "concept", observations: [] }, meta).key;
    graph.upsertRelation({ subject, predicate: fact.predicate, object }, meta);
    run.found.relevantEntities.add(subject);
    run.found.relevantEntities.add(object);
  }
  run.exemptGrowth(graph.growth - before);
  return facts.length;
}

/**
 * Applies the host's rules in code by forward chaining over what is asserted
 * or derived (never over hypotheses), storing each new fact as derived with
 * its rule and premises; bounded by the call's growth budget.
 */
function applyRules(run: ReasoningRun, rules: readonly HostRule[], step: string): number {
  const { graph } = run;
  const displayNames = new Map<string, string>();
  const usable: Rule[] = [];
  for (const given of rules) {
    const rule = toRule(given, displayNames);
    const problems = ruleProblems(rule);
    if (problems.length > 0) run.notices.push({ field: "contextData.rules", message: `Rule '${given.name}' was not applied: ${problems.join("; ")}.` });
    else usable.push(rule);
  }
  if (usable.length === 0) return 0;
  const premises = graph.relations().filter((relation) => relation.validity === "asserted" || relation.validity === "derived");
  const result = forwardChain(premises, usable, { maxDerived: run.remainingGrowth() });
  const confidence = new Map(premises.map((relation) => [`${relation.subject}|${relation.predicate}|${relation.object}`, relation.confidence]));
  let added = 0;
  for (const deduction of result.deductions) {
    const newEntities = [deduction.fact.subject, deduction.fact.object].filter((key) => !graph.entity(key));
    if (newEntities.length + 1 > run.remainingGrowth()) {
      run.growthCapped("applying the host's rules");
      return added;
    }
    const provenance = { kind: "deduction" as const, taskId: run.input.taskId, step, reference: deduction.rule };
    for (const key of newEntities) graph.upsertEntity({ name: displayNames.get(key) ?? key, type: "concept", observations: [] }, { confidence: 1, validity: "derived", provenance });
    const weakest = Math.min(...deduction.premises.map((premise) => confidence.get(`${premise.subject}|${premise.predicate}|${premise.object}`) ?? 1));
    const triples: Triple[] = deduction.premises.map((premise) => graph.tripleOf(premise));
    graph.upsertRelation(deduction.fact, { confidence: weakest, validity: "derived", provenance, derivation: { rule: deduction.rule, premises: triples } });
    confidence.set(`${deduction.fact.subject}|${deduction.fact.predicate}|${deduction.fact.object}`, weakest);
    run.found.derivations.push({ triple: graph.tripleOf(deduction.fact), derivation: { rule: deduction.rule, premises: triples } });
    added += 1;
  }
  if (!result.fixpoint) run.growthCapped("applying the host's rules");
  return added;
}

/** Takes in the host's facts and applies the rules in force; records one trace step when there was anything. */
export function absorbHostKnowledge(run: ReasoningRun, input: { facts: readonly HostFact[]; rules: readonly HostRule[] }): void {
  if (input.facts.length === 0 && input.rules.length === 0) return;
  const mark = run.graph.mark();
  const step = "host data";
  const asserted = assertFacts(run, input.facts, step);
  const derived = applyRules(run, input.rules, step);
  const summary = `The host gave ${asserted} fact(s) as data (asserted) and ${input.rules.length} rule(s) are in force; ${derived} fact(s) were derived from them in code.`;
  run.findings.push(`Host data: ${summary}`);
  run.record("hostData", summary, mark);
}
