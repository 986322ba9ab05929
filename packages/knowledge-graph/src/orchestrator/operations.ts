import type { Triple } from "@deliberate/contracts";
import type { EpistemicStatus } from "@deliberate/contracts";
import { derivedStatus, restsOnHypothesis, validityOfStatus, weakestStatus } from "../algorithms/epistemic-status.ts";
import { forwardChain, isVariable, type Rule, ruleKey, ruleProblems } from "../algorithms/forward-chaining.ts";
import { normalizeEntityName, normalizePredicate } from "../algorithms/names.ts";
import { validatePath } from "../algorithms/path-search.ts";
import { createDeductionMode, type DeductionAnswer } from "../modes/deduction.mode.ts";
import { createInductionMode } from "../modes/induction.mode.ts";
import { type GraphRelation, WorkingGraph } from "../graph/working-graph.ts";
import type { AnswerBasis, ReasoningRun } from "./reasoning-run.ts";
import { round } from "./score-rounding.ts";

export { abduce } from "./abduce.ts";

/**
 * Inductive step: the model names patterns across entities and an abstraction
 * for each; code measures how many members really share the pattern in the
 * graph (support) and adds the abstraction and member links as hypothesized,
 * with confidence = the model's confidence x support.
 */
export async function induce(run: ReasoningRun, purpose: string, step: string): Promise<void> {
  const { graph } = run;
  const focus = run.focus(`${run.input.goal} ${purpose}`);
  if (focus.names.length < 2) {
    run.record("induce", "Induction needs at least two entities; the graph has fewer.", graph.mark());
    run.findings.push("Induction: the graph has too few entities for a pattern.");
    return;
  }
  const answer = await run.ask(createInductionMode(focus.names), {
    goal: run.input.goal,
    purpose,
    graph: focus.text,
    names: focus.names,
  });
  const mark = graph.mark();
  const believed = graph.believedFacts();
  const summaries: string[] = [];
  let strongest = 0;
  for (const pattern of answer.patterns) {
    const members = [...new Set(pattern.members.map(normalizeEntityName))].filter((key) => graph.entity(key));
    if (members.length < 2) continue;
    // Support measured in code: the share of members that have the claimed relation, or else the most common shared one.
    let support = 0;
    let sharedText = "";
    if (pattern.sharedRelation) {
      const predicate = normalizePredicate(pattern.sharedRelation.predicate);
      const object = normalizeEntityName(pattern.sharedRelation.object);
      support =
        members.filter((member) => believed.has({ subject: member, predicate, object })).length / members.length;
      sharedText = `${predicate} ${graph.nameOf(object)}`;
    } else {
      const counts = new Map<string, number>();
      for (const member of members) {
        const seen = new Set<string>();
        for (const fact of believed.facts) {
          if (fact.subject !== member) continue;
          const key = `${fact.predicate}\u0000${fact.object}`;
          if (seen.has(key)) continue;
          seen.add(key);
          counts.set(key, (counts.get(key) ?? 0) + 1);
        }
      }
      const best = [...counts.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0];
      support = best ? best[1] / members.length : 0;
      if (best) sharedText = best[0].replace("\u0000", " ");
    }
    const needed = (graph.entityNamed(pattern.abstraction.name) ? 0 : 1) + members.length;
    if (needed > run.remainingGrowth()) {
      run.growthCapped("adding an induced concept");
      break;
    }
    const confidence = round(pattern.confidence * support);
    strongest = Math.max(strongest, support);
    const provenance = {
      kind: "induction" as const,
      taskId: run.input.taskId,
      step,
      reference: pattern.abstraction.name,
    };
    const abstraction = graph.upsertEntity(
      {
        name: pattern.abstraction.name,
        type: pattern.abstraction.type,
        observations: [pattern.abstraction.definition, `Pattern: ${pattern.description}`],
      },
      { confidence, validity: "hypothesized", provenance },
    ).key;
    for (const member of members) {
      graph.upsertRelation(
        { subject: member, predicate: pattern.memberRelation, object: abstraction },
        { confidence, validity: "hypothesized", status: "hypothetical", provenance },
      );
      run.found.relevantEntities.add(member);
    }
    run.found.relevantEntities.add(abstraction);
    summaries.push(
      `${graph.nameOf(abstraction)} generalises ${members.map((member) => graph.nameOf(member)).join(", ")} (${pattern.description}); support in the graph ${round(support)}${sharedText ? ` (shared: ${sharedText})` : ""}, confidence ${confidence}`,
    );
  }
  run.findings.push(...summaries.map((summary) => `Induction: ${summary}.`));
  if (summaries.length > 0)
    run.establish({
      kind: "induction",
      score: round(0.5 * strongest),
      restsOn: "hypothetical",
      description: `Induced ${summaries.length} pattern(s) from the graph; the best support in the graph is ${round(strongest)}`,
    });
  run.record("induce", summaries.length > 0 ? summaries.join("; ") : "No pattern had two members in the graph.", mark);
}

function ruleFromAnswer(rule: DeductionAnswer["rules"][number], displayNames: Map<string, string>): Rule {
  const term = (value: string) => {
    if (isVariable(value.trim())) return value.trim().toLowerCase();
    const key = normalizeEntityName(value);
    if (!displayNames.has(key)) displayNames.set(key, value.trim());
    return key;
  };
  const atom = (item: { subject: string; predicate: string; object: string }) => ({
    subject: term(item.subject),
    predicate: normalizePredicate(item.predicate),
    object: term(item.object),
  });
  const distinct = rule.different.map((pair) => [term(pair.left), term(pair.right)] as const);
  return {
    name: rule.name,
    body: rule.conditions.map(atom),
    head: rule.conclusions.map(atom),
    ...(distinct.length > 0 ? { distinct } : {}),
  };
}

/** How a status reads in an answer's findings. */
function describeStatus(status: EpistemicStatus): string {
  if (status === "asserted") return "asserted facts";
  if (status === "derived") return "a proof from asserted facts";
  if (status === "hypothetical") return "a hypothesis, not a proof";
  return "a derivation from a hypothesis, not a proof";
}

/** The basis a settled query gives the answer: a proof, a derivation from a hypothesis, or nothing that follows. */
function queryBasis(holds: boolean, restsOn: EpistemicStatus | null, description: string): AnswerBasis {
  if (!holds) return { kind: "not_derivable", score: 0.3, restsOn: null, description };
  if (restsOn !== null && restsOnHypothesis(restsOn))
    return { kind: "derived_from_hypothesis", score: 0.5, restsOn, description };
  return { kind: "proof", score: 1, restsOn: restsOn ?? "derived", description };
}

/**
 * Applies the rules by forward chaining (incremental when the graph is closed
 * under some of them already: only what changed since is joined) and adds
 * each deduction with the weakest status of its premises. A deduction that a
 * stronger fact contradicts is refused (and reported); so is one whose premise
 * was refused. Records the work done for the trace.
 */
function applyRules(
  run: ReasoningRun,
  rules: readonly Rule[],
  displayNames: ReadonlyMap<string, string>,
  step: string,
) {
  const { graph } = run;
  const incremental = graph.closureInput();
  // Chaining extends the graph's own index of believed facts (no copy); it is rebuilt from the graph afterwards.
  const result = forwardChain(graph.believedFacts(), rules, {
    maxDerived: run.options.maxDerivedFacts,
    extendInPlace: true,
    ...(incremental ? { incremental } : {}),
  });
  graph.forgetBelievedIndex();
  const provenanceFor = (rule: string) => ({
    kind: "deduction" as const,
    taskId: run.input.taskId,
    step,
    reference: rule,
  });
  let added = 0;
  let refused = 0;
  for (const deduction of result.deductions) {
    const premises = deduction.premises.map((premise) => graph.relation(premise));
    if (premises.some((premise) => premise === undefined || !WorkingGraph.believes(premise))) {
      refused += 1;
      continue;
    }
    const believedPremises = premises as GraphRelation[];
    const newEntities = [deduction.fact.subject, deduction.fact.object].filter((key) => !graph.entity(key));
    if (newEntities.length > run.remainingGrowth()) {
      run.growthCapped("adding entities named by deduced relations");
      break;
    }
    const status = derivedStatus(believedPremises.map((premise) => premise.status));
    const validity = validityOfStatus(status);
    for (const key of newEntities)
      graph.upsertEntity(
        { name: displayNames.get(key) ?? key, type: "concept", observations: [] },
        { confidence: 1, validity, provenance: provenanceFor(deduction.rule) },
      );
    const premiseTriples: Triple[] = deduction.premises.map((premise) => graph.tripleOf(premise));
    const confidence = Math.min(...believedPremises.map((premise) => premise.confidence));
    const outcome = graph.upsertRelation(deduction.fact, {
      confidence,
      validity,
      status,
      provenance: provenanceFor(deduction.rule),
      derivation: { rule: deduction.rule, premises: premiseTriples },
    });
    if (outcome.refusedBy) {
      refused += 1;
      continue;
    }
    run.found.derivations.push({
      triple: graph.tripleOf(deduction.fact),
      derivation: { rule: deduction.rule, premises: premiseTriples },
    });
    for (const key of [deduction.fact.subject, deduction.fact.object]) run.found.relevantEntities.add(key);
    added += 1;
  }
  if (result.fixpoint && run.exhausted === null) graph.markClosed(rules.map(ruleKey));
  else if (!result.fixpoint) run.growthCapped(`deducing (${run.options.maxDerivedFacts} deduced relations per call)`);
  const previous = run.found.chaining;
  run.found.chaining = {
    factsExamined: (previous?.factsExamined ?? 0) + result.work.examined,
    ruleFirings: (previous?.ruleFirings ?? 0) + result.work.firings,
    factsDerived: (previous?.factsDerived ?? 0) + added,
    incremental:
      (previous?.incremental ?? true) &&
      incremental !== null &&
      rules.every((rule) => incremental.closedUnder.has(ruleKey(rule))),
  };
  if (refused > 0)
    run.findings.push(
      `Deduction: ${refused} deduced fact(s) were refused because a stronger fact contradicts them or their premises.`,
    );
  return { added, result };
}

/**
 * Deductive step: the model states the premises as explicit rules over
 * triples; code applies them to the graph by forward chaining to a fixpoint
 * (each deduced triple stored as derived, with its rule and premises) and
 * settles the query by graph search.
 */
export async function deduce(run: ReasoningRun, purpose: string, step: string): Promise<void> {
  const { graph } = run;
  const focus = run.focus(`${run.input.goal} ${purpose}`);
  const answer = await run.ask(createDeductionMode(focus.names), {
    goal: run.input.goal,
    purpose,
    graph: focus.text,
    premises: run.input.premises,
    names: focus.names,
  });
  const mark = graph.mark();
  const rules: Rule[] = [];
  const displayNames = new Map<string, string>();
  for (const candidate of answer.rules) {
    const rule = ruleFromAnswer(candidate, displayNames);
    const problems = ruleProblems(rule);
    if (problems.length > 0) {
      run.notices.push({ field: null, message: `Rule '${candidate.name}' was not applied: ${problems.join("; ")}.` });
      continue;
    }
    rules.push(rule);
  }
  const statements = new Map(answer.rules.map((rule) => [rule.name, rule.statement]));
  const { added, result } = applyRules(run, rules, displayNames, step);
  const lines = run.found.derivations
    .slice(-added)
    .map(
      (item) =>
        `${item.triple.subject} ${item.triple.predicate} ${item.triple.object} (by '${item.derivation.rule}' from ${item.derivation.premises.map((premise) => `${premise.subject} ${premise.predicate} ${premise.object}`).join(" and ")})`,
    );
  run.findings.push(
    `Deduction: ${rules.length} rule(s) applied to a fixpoint in ${result.rounds} round(s); ${added} new fact(s) follow.`,
  );
  for (const rule of rules) run.findings.push(`Rule '${rule.name}': ${statements.get(rule.name) ?? ""}`);
  run.findings.push(...lines.slice(0, 25).map((line) => `Deduced: ${line}.`));

  // The query, settled in code.
  const query = answer.query;
  let querySummary = "";
  if (query.kind === "path") {
    const from = normalizeEntityName(query.from);
    const to = normalizeEntityName(query.to);
    const predicates =
      query.predicates?.map((predicate) =>
        predicate.startsWith("^") ? `^${normalizePredicate(predicate.slice(1))}` : normalizePredicate(predicate),
      ) ?? undefined;
    const validation = validatePath(graph.believedFacts(), { from, to, predicates });
    run.found.pathValidation = {
      from: graph.nameOf(from),
      to: graph.nameOf(to),
      predicates: predicates ?? null,
      valid: validation.valid,
      path: validation.path.map((fact) => graph.tripleOf(fact)),
      reason: validation.reason.replaceAll(from, graph.nameOf(from)).replaceAll(to, graph.nameOf(to)),
    };
    for (const fact of validation.path) {
      run.found.relevantEntities.add(fact.subject);
      run.found.relevantEntities.add(fact.object);
    }
    const restsOn = weakestStatus(validation.path.map((fact) => graph.relation(fact)?.status ?? "asserted"));
    querySummary = `Path check: ${run.found.pathValidation.reason}${validation.valid ? `: ${run.found.pathValidation.path.map((triple) => `${triple.subject} ${triple.predicate} ${triple.object}`).join(", ")}; it rests on ${describeStatus(restsOn ?? "asserted")}` : ""}.`;
    run.establish(queryBasis(validation.valid, restsOn, querySummary));
  } else if (query.kind === "triple") {
    const fact = {
      subject: normalizeEntityName(query.subject),
      predicate: normalizePredicate(query.predicate),
      object: normalizeEntityName(query.object),
    };
    const holds = graph.believedFacts().has(fact);
    const status = graph.relation(fact)?.status ?? "asserted";
    querySummary = `Query ${graph.nameOf(fact.subject)} ${fact.predicate} ${graph.nameOf(fact.object)}: ${holds ? `holds (${status}: ${describeStatus(status)})` : "does not follow from the graph and the rules"}.`;
    run.establish(queryBasis(holds, holds ? status : null, querySummary));
    if (graph.entity(fact.subject)) run.found.relevantEntities.add(fact.subject);
    if (graph.entity(fact.object)) run.found.relevantEntities.add(fact.object);
  }
  if (querySummary) run.findings.push(querySummary);
  run.record(
    "deduce",
    `${rules.length} rule(s) applied by forward chaining (${result.rounds} round(s), ${result.fixpoint ? "fixpoint reached" : "stopped at the growth limit"}); ${added} triple(s) deduced. ${querySummary}`.trim(),
    mark,
  );
}
