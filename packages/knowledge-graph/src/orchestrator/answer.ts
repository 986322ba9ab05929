import type { ConfidenceReport, CoTVariation, EpistemicStatus, Triple } from "@deliberate/contracts";
import { mapConcurrent } from "@deliberate/engine";
import {
  citationWeight,
  combineConfidence,
  confidenceFormula,
  credibleShare,
  graphSupport,
  neutralBasis,
  type SupportCounts,
} from "../algorithms/confidence.ts";
import { contradictionsOf } from "../algorithms/contradictions.ts";
import { weakestStatus } from "../algorithms/epistemic-status.ts";
import { normalizeEntityName, normalizePredicate } from "../algorithms/names.ts";
import { measureAgreement } from "../algorithms/self-consistency.ts";
import { type Fact, factKey } from "../algorithms/triples.ts";
import { type AnswerOutput, createAnswerMode, createSampleMode } from "../modes/answer.mode.ts";
import { createSelfAskMode } from "../modes/self-ask.mode.ts";
import { createThoughtsMode } from "../modes/thoughts.mode.ts";
import type { StoredSubQuestion } from "./pending.ts";
import type { ReasoningRun } from "./reasoning-run.ts";

/** The final answer with its confidence report. */
export interface Answered {
  kind: "answered";
  answer: string;
  report: ConfidenceReport;
}

/** The answer step needs the host first (self-ask): a tool call or the user's input. */
export interface AnswerWaiting {
  kind: "waiting";
  subQuestions: StoredSubQuestion[];
  waiting: number;
}

/** Cited facts sorted by what the graph makes of them, with the statuses of the supporting ones. */
export interface ClassifiedCitations {
  supporting: Triple[];
  supportingStatuses: EpistemicStatus[];
  contradicted: Triple[];
  unsupported: Triple[];
}

/**
 * Sorts cited facts into those the graph believes (with their status), those
 * it contradicts (a believed negation or rival value, or the fact itself
 * retracted or contested: never support), and those it does not have.
 */
export function classifyCitations(run: ReasoningRun, cited: readonly Triple[]): ClassifiedCitations {
  const { graph } = run;
  const believed = graph.believedFacts();
  const lookup = {
    has: (fact: Fact) => believed.has(fact),
    withSubject: (predicate: string, subject: string) => believed.match(predicate, subject, undefined),
  };
  const result: ClassifiedCitations = { supporting: [], supportingStatuses: [], contradicted: [], unsupported: [] };
  const seen = new Set<string>();
  for (const triple of cited) {
    const fact = {
      subject: normalizeEntityName(triple.subject),
      predicate: normalizePredicate(triple.predicate),
      object: normalizeEntityName(triple.object),
    };
    if (seen.has(factKey(fact))) continue;
    seen.add(factKey(fact));
    const shown = graph.tripleOf(fact);
    const relation = graph.relation(fact);
    if (believed.has(fact) && relation) {
      result.supporting.push(shown);
      result.supportingStatuses.push(relation.status);
      run.found.relevantEntities.add(fact.subject);
      run.found.relevantEntities.add(fact.object);
    } else if (relation || contradictionsOf(fact, lookup, graph.functionalPredicates()).length > 0)
      result.contradicted.push(shown);
    else result.unsupported.push(shown);
  }
  return result;
}

/** Graph support of classified citations (status-weighted). */
export function supportOf(citations: ClassifiedCitations): number {
  return graphSupport(countsOf(citations));
}

function countsOf(citations: ClassifiedCitations): SupportCounts {
  return {
    supporting: citations.supporting.length,
    supportingWeight: citations.supportingStatuses.reduce((sum, status) => sum + citationWeight[status], 0),
    contradicting: citations.contradicted.length,
    unsupported: citations.unsupported.length,
  };
}

/** The documented confidence: the model's bounded word, graph support of the cited facts, the basis the steps established, and consistency when sampled. */
export function confidenceReport(
  run: ReasoningRun,
  input: { verbalized: number; consistency: number | null; cited: readonly Triple[]; desired: number | null },
): ConfidenceReport {
  const citations = classifyCitations(run, input.cited);
  const support = supportOf(citations);
  // The reasoning steps vouch for an answer only when it rests on the graph: it cites a fact the graph believes.
  const basis = citations.supporting.length > 0 ? run.found.basis : null;
  const basisScore = (basis?.score ?? neutralBasis) * credibleShare(countsOf(citations));
  const combined = combineConfidence({
    verbalizedConfidence: input.verbalized,
    consistency: input.consistency,
    graphSupport: support,
    basis: basisScore,
  });
  const round = (value: number) => Math.round(value * 10_000) / 10_000;
  return {
    method: combined.method,
    score: round(combined.score),
    formula: confidenceFormula,
    components: {
      verbalizedConfidence: round(input.verbalized),
      consistency: input.consistency === null ? null : round(input.consistency),
      graphSupport: round(support),
      basis: round(basisScore),
    },
    basis: basis ? { kind: basis.kind, score: round(basis.score), description: basis.description } : null,
    restsOn: weakestStatus([...citations.supportingStatuses, ...(basis?.restsOn ? [basis.restsOn] : [])]),
    supportingFacts: citations.supporting,
    contradictedFacts: citations.contradicted,
    unsupportedFacts: citations.unsupported,
    desiredConfidenceLevel: input.desired,
    targetMet: input.desired === null ? null : combined.score >= input.desired,
  };
}

async function standardAnswer(run: ReasoningRun): Promise<AnswerOutput> {
  const focus = run.focus(run.input.goal, [...run.found.relevantEntities]);
  return run.ask(createAnswerMode(focus.names), {
    goal: run.input.goal,
    graph: focus.text,
    findings: run.findingsText(),
    sample: null,
  });
}

/** n independent samples; agreement computed in code picks the answer and gives the consistency. */
async function sampledAnswer(
  run: ReasoningRun,
  samples: number,
  extra: readonly AnswerOutput[] = [],
): Promise<{ chosen: AnswerOutput; agreement: number }> {
  const focus = run.focus(run.input.goal, [...run.found.relevantEntities]);
  const mode = createSampleMode(focus.names);
  const drawn = await mapConcurrent(
    Array.from({ length: samples }, (_, index) => index),
    run.context.concurrency,
    (index) =>
      run.ask(mode, {
        goal: run.input.goal,
        graph: focus.text,
        findings: run.findingsText(),
        sample: { index, of: samples },
      }),
  );
  const all = [...extra, ...drawn];
  const agreement = measureAgreement(all.map((sample) => sample.answerKey));
  run.found.selfConsistency = {
    samples: all.length,
    agreement: Math.round(agreement.agreement * 10_000) / 10_000,
    clusters: agreement.clusters.map((cluster) => ({
      answer: (all[cluster.members[0] as number] as AnswerOutput).answerKey,
      size: cluster.members.length,
    })),
  };
  return { chosen: all[agreement.chosen] as AnswerOutput, agreement: agreement.agreement };
}

/** Tree of thoughts: bounded breadth and depth, each thought scored in code (promise and graph support); the best line is kept. */
async function treeOfThoughts(run: ReasoningRun): Promise<void> {
  const { breadth, depth } = run.options.treeOfThoughts;
  const path: string[] = [];
  for (let level = 1; level <= depth; level += 1) {
    run.step(`tree of thoughts, level ${level}`);
    const focus = run.focus(run.input.goal, [...run.found.relevantEntities]);
    const answer = await run.ask(createThoughtsMode(focus.names, breadth), {
      goal: run.input.goal,
      graph: focus.text,
      findings: run.findingsText(),
      path,
      breadth,
    });
    const scored = answer.thoughts.map((thought) => {
      const support = supportOf(classifyCitations(run, thought.supportingFacts));
      return { thought: thought.thought, score: Math.round((0.5 * thought.promise + 0.5 * support) * 10_000) / 10_000 };
    });
    let best = 0;
    scored.forEach((item, index) => {
      if (item.score > (scored[best] as { score: number }).score) best = index;
    });
    scored.forEach((item, index) =>
      run.found.thoughts.push({ depth: level, thought: item.thought, score: item.score, kept: index === best }),
    );
    path.push((scored[best] as { thought: string }).thought);
    run.record(
      "thoughts",
      `Level ${level}: ${scored.length} thoughts scored (0.5 x promise + 0.5 x graph support); kept "${(scored[best] as { thought: string }).thought}" (${(scored[best] as { score: number }).score}).`,
      run.graph.mark(),
    );
  }
  run.findings.push(`Chosen line of thought: ${path.map((thought, index) => `(${index + 1}) ${thought}`).join(" ")}`);
}

/** Self-ask: sub-questions; graph ones answered now (concurrently), the first tool or user one makes the call wait. */
export async function selfAsk(
  run: ReasoningRun,
  subQuestions: StoredSubQuestion[] | null,
): Promise<AnswerWaiting | null> {
  let questions = subQuestions;
  if (questions === null) {
    run.step("self-ask: sub-questions");
    const focus = run.focus(run.input.goal, [...run.found.relevantEntities]);
    const allowUser = true;
    const answer = await run.ask(createSelfAskMode(run.input.tools, allowUser), {
      goal: run.input.goal,
      graph: focus.text,
      findings: run.findingsText(),
      tools: run.input.tools,
      allowUserInput: allowUser,
    });
    questions = answer.subQuestions.map((question) => ({
      question: question.question,
      source: question.source,
      toolName: question.source === "tool" ? question.toolName : null,
      toolArguments: question.source === "tool" ? question.toolArguments : null,
      answer: null,
    }));
    const open = questions.filter((question) => question.source === "graph" && question.answer === null);
    if (open.length > 0) {
      const focusAll = run.focus(`${run.input.goal} ${open.map((question) => question.question).join(" ")}`, [
        ...run.found.relevantEntities,
      ]);
      const mode = createAnswerMode(focusAll.names);
      const answers = await mapConcurrent(open, run.context.concurrency, (question) =>
        run.ask(mode, { goal: question.question, graph: focusAll.text, findings: run.findingsText(), sample: null }),
      );
      open.forEach((question, index) => {
        question.answer = (answers[index] as AnswerOutput).answer;
      });
    }
    run.record(
      "selfAsk",
      `${questions.length} sub-question(s): ${questions.map((question) => `${question.question} [${question.source}]`).join("; ")}.`,
      run.graph.mark(),
    );
  }
  const waiting = questions.findIndex((question) => question.answer === null);
  if (waiting >= 0) return { kind: "waiting", subQuestions: questions, waiting };
  run.found.subQuestions = questions.map((question) => ({
    question: question.question,
    source: question.source,
    answer: question.answer,
  }));
  run.findings.push(...questions.map((question) => `Sub-question: ${question.question} -> ${question.answer}`));
  return null;
}

/**
 * The answer step under a CoT variation. standardCoT: one answer with its
 * steps; selfConsistency: n samples, agreement in code; selfAsk: sub-questions
 * first (may wait for the host); treeOfThoughts_basic: bounded, scored
 * thoughts, then the answer. Below `desired` confidence, more samples are
 * drawn while the budget allows.
 */
export async function answerGoal(
  run: ReasoningRun,
  variation: CoTVariation,
  desired: number | null,
  resumeSubQuestions: StoredSubQuestion[] | null,
): Promise<Answered | AnswerWaiting> {
  if (variation === "selfAsk") {
    const waiting = await selfAsk(run, resumeSubQuestions);
    if (waiting) return waiting;
  }
  if (variation === "treeOfThoughts_basic") await treeOfThoughts(run);

  let output: AnswerOutput;
  let consistency: number | null = null;
  if (variation === "selfConsistency") {
    const sampled = await sampledAnswer(run, run.options.selfConsistencySamples);
    output = sampled.chosen;
    consistency = sampled.agreement;
  } else {
    output = await standardAnswer(run);
  }
  let report = confidenceReport(run, {
    verbalized: output.confidence,
    consistency,
    cited: output.supportingFacts,
    desired,
  });
  const samples = run.options.selfConsistencySamples;
  if (
    desired !== null &&
    report.score < desired &&
    variation !== "selfConsistency" &&
    run.options.maxModelCalls - run.modelCalls >= samples
  ) {
    const sampled = await sampledAnswer(run, samples, [output]);
    output = sampled.chosen;
    consistency = sampled.agreement;
    report = confidenceReport(run, {
      verbalized: output.confidence,
      consistency,
      cited: output.supportingFacts,
      desired,
    });
    run.notices.push({
      field: "outputRequirements.desiredConfidenceLevel",
      message: `The first answer's confidence was below ${desired}; ${samples} more answers were sampled and their agreement taken into account.`,
    });
  }
  run.findings.push(`Answer: ${output.answer}`);
  run.record(
    "answer",
    `${output.reasoning.join(" ")} => ${output.answerKey} (confidence ${report.score}, ${report.method}).`,
    run.graph.mark(),
  );
  return { kind: "answered", answer: output.answer, report };
}
