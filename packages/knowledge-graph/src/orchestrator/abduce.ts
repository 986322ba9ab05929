import type { ReasoningTrace } from "@deliberate/contracts";
import { restsOnHypothesis } from "../algorithms/epistemic-status.ts";
import { type HypothesisScore, rankHypotheses } from "../algorithms/hypothesis-scoring.ts";
import { normalizeEntityName, normalizePredicate } from "../algorithms/names.ts";
import { type Fact, factKey } from "../algorithms/triples.ts";
import { type AbductionAnswer, createAbductionMode } from "../modes/abduction.mode.ts";
import { WorkingGraph } from "../graph/working-graph.ts";
import type { ReasoningRun } from "./reasoning-run.ts";
import { round } from "./score-rounding.ts";

/** A hypothesis in graph keys, with the entities it introduces (by key: their name and type). */
interface GraphHypothesis {
  name: string;
  additions: Fact[];
  newEntities: string[];
  declared: Map<string, { name: string; type: string }>;
}

/**
 * Abductive step: the model names observations and proposes 2-3 hypotheses;
 * code scores each on coverage, simplicity and consistency, selects the best,
 * and adds it as hypothesized with its score as confidence.
 */
export async function abduce(run: ReasoningRun, purpose: string, step: string): Promise<void> {
  const { graph } = run;
  const focus = run.focus(`${run.input.goal} ${purpose}`);
  if (focus.names.length === 0) {
    run.record("abduce", "Abduction needs observations; the graph is empty.", graph.mark());
    return;
  }
  const answer = await run.ask(createAbductionMode(focus.names), {
    goal: run.input.goal,
    purpose,
    graph: focus.text,
    names: focus.names,
  });
  const observations = answer.observations.map((observation) => ({
    entities: observation.entities.map(normalizeEntityName),
  }));
  const hypotheses = answer.hypotheses.map((hypothesis) => inGraphKeys(graph, hypothesis));
  const firm = new Set(
    graph
      .relations()
      .filter((relation) => WorkingGraph.believes(relation) && !restsOnHypothesis(relation.status))
      .map(factKey),
  );
  const ranked = rankHypotheses(
    {
      facts: graph.believedFacts().facts,
      retracted: graph.retractedFacts(),
      firm,
      functional: graph.functionalPredicates(),
    },
    observations,
    hypotheses,
  );
  const best = ranked[0];
  const mark = graph.mark();
  const chosen = hypotheses.find((hypothesis) => hypothesis.name === best?.name);
  if (best && chosen && best.score > 0) {
    adoptHypothesis(run, best, chosen, step);
    run.establish({
      kind: "abduction",
      score: round(0.6 * best.score),
      restsOn: "hypothetical",
      description: `Selected hypothesis '${best.name}' (score ${round(best.score)}), consistent with the asserted and derived facts`,
    });
  } else {
    run.establish({
      kind: "abduction",
      score: 0.1,
      restsOn: null,
      description: "No hypothesis was consistent with the graph and explained anything",
    });
  }
  for (const observation of observations)
    for (const key of observation.entities) if (graph.entity(key)) run.found.relevantEntities.add(key);
  run.found.hypotheses.push(...ranked.map((score) => reportHypothesis(run, score, score === best, answer, hypotheses)));
  const justification =
    best && best.score > 0
      ? `Selected '${best.name}' (score ${round(best.score)}: explains ${best.explained.length} of ${observations.length} observation(s), ${best.newElements} new element(s), ${best.contradictions.length} contradiction(s)); ${ranked
          .slice(1)
          .map((other) => `'${other.name}' scored ${round(other.score)}`)
          .join(", ")}.`
      : "No hypothesis added anything consistent to the graph.";
  run.findings.push(
    `Abduction: observations: ${answer.observations.map((observation) => observation.description).join("; ")}.`,
    `Abduction: ${justification}`,
  );
  const chosenSource = answer.hypotheses.find((hypothesis) => hypothesis.name === best?.name);
  if (chosenSource && best && best.score > 0)
    run.findings.push(`Selected hypothesis '${best.name}': ${chosenSource.explanation}`);
  run.record("abduce", justification, mark);
}

/** A proposed hypothesis in graph keys: a name the graph does not know declares a new entity of its type. */
function inGraphKeys(graph: ReasoningRun["graph"], hypothesis: AbductionAnswer["hypotheses"][number]): GraphHypothesis {
  const declared = new Map<string, { name: string; type: string }>();
  const keyOf = (name: string, type: string) => {
    const key = normalizeEntityName(name);
    if (!graph.entity(key) && !declared.has(key)) declared.set(key, { name: name.trim(), type });
    return key;
  };
  const additions = hypothesis.additions.map((addition) => ({
    subject: keyOf(addition.subject, addition.subjectType),
    predicate: normalizePredicate(addition.predicate),
    object: keyOf(addition.object, addition.objectType),
  }));
  return { name: hypothesis.name, additions, newEntities: [...declared.keys()], declared };
}

/** Adds the selected hypothesis to the graph as hypothesized (its score as confidence), within the growth budget. */
function adoptHypothesis(run: ReasoningRun, best: HypothesisScore, chosen: GraphHypothesis, step: string): void {
  const { graph } = run;
  const provenance = { kind: "abduction" as const, taskId: run.input.taskId, step, reference: best.name };
  const confidence = round(best.score);
  if (best.newElements > run.remainingGrowth()) {
    run.growthCapped("adding the selected hypothesis");
    return;
  }
  for (const [key, entity] of chosen.declared)
    if (!graph.entity(key))
      graph.upsertEntity({ ...entity, observations: [] }, { confidence, validity: "hypothesized", provenance });
  for (const addition of chosen.additions) {
    for (const key of [addition.subject, addition.object]) run.found.relevantEntities.add(key);
    graph.upsertRelation(addition, { confidence, validity: "hypothesized", status: "hypothetical", provenance });
  }
}

/** One hypothesis as the trace shows it; a refused one also gets a notice naming the facts it contradicts. */
function reportHypothesis(
  run: ReasoningRun,
  score: HypothesisScore,
  selected: boolean,
  answer: AbductionAnswer,
  hypotheses: readonly GraphHypothesis[],
): ReasoningTrace["hypotheses"][number] {
  const { graph } = run;
  const source = answer.hypotheses.find((hypothesis) => hypothesis.name === score.name);
  if (score.refusedBy.length > 0) {
    run.notices.push({
      field: null,
      message: `Hypothesis '${score.name}' was refused: it contradicts ${score.refusedBy
        .map((fact) => {
          const shown = graph.tripleOf(fact);
          return `'${shown.subject} ${shown.predicate} ${shown.object}' (${graph.relation(fact)?.status ?? "asserted"})`;
        })
        .join(", ")}.`,
    });
  }
  const additions = hypotheses.find((hypothesis) => hypothesis.name === score.name)?.additions ?? [];
  return {
    name: score.name,
    explanation: source?.explanation ?? "",
    additions: additions.map((fact) => ({
      subject: graph.nameOf(fact.subject),
      predicate: fact.predicate,
      object: graph.nameOf(fact.object),
    })),
    newElements: score.newElements,
    coverage: round(score.coverage),
    simplicity: round(score.simplicity),
    consistency: round(score.consistency),
    score: round(score.score),
    contradictions: score.contradictions.map((fact) => ({
      subject: graph.nameOf(fact.subject),
      predicate: fact.predicate,
      object: graph.nameOf(fact.object),
    })),
    refusedBy: score.refusedBy.map((fact) => graph.tripleOf(fact)),
    selected: selected && score.score > 0,
  };
}
