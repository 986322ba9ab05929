import type { FakeModelRequest, FakeReply } from "@deliberate/providers/testing";

/**
 * Answers for every structured request the core modes make, keyed by the
 * schema name each mode sends (see packages/core/src/modes). An unknown name
 * fails loudly so a new mode shows up as a clear test failure.
 */
export const scriptedAnswers: Record<string, (request: FakeModelRequest) => unknown> = {
  linear_continuation: (request) => ({
    content: `Step after request ${request.index}: the constraint rules out option B.`,
    confidence: 0.8,
    next_step: "Check option A against the budget.",
  }),
  tree_branches: (request) => {
    const count = Number(/exactly (\d+) distinct paths/.exec(request.prompt)?.[1] ?? 3);
    return {
      branches: Array.from({ length: count }, (_, index) => ({
        content: `Path ${index + 1}: approach ${index + 1}`,
        score: 0.9 - index * 0.2,
      })),
      recommendation: "Start with path 1.",
    };
  },
  divergent_perspective: (request) => ({
    viewpoint: `Lens ${request.index}`,
    content: `From this lens (request ${request.index}) the problem is about incentives.`,
    novelty_score: 0.7,
  }),
  divergent_synthesis: () => ({
    challenged_assumptions: ["Budget is fixed"],
    synthesis: "Combine the incentive and minimalist views.",
  }),
  // A first draft scores 0.55 on every rubric criterion, its revision 0.9.
  reflection_critique: (request) => {
    const level = request.prompt.includes("Refined:") ? 0.9 : 0.55;
    return {
      scores: { logic: level, evidence: level, completeness: level, clarity: level },
      strengths: ["clear goal"],
      weaknesses: ["no evidence"],
      recommendations: ["cite the benchmark"],
    };
  },
  reflection_revision: () => ({
    refined_content: "Refined: the constraint rules out B, per the benchmark.",
    changes: ["cited the benchmark"],
  }),
  reflection_session_evaluation: () => ({
    quality_score: 0.75,
    coherence_score: 0.8,
    strengths: ["steps follow"],
    weaknesses: ["step 3 is vague"],
    recommendations: ["tighten step 3"],
  }),
  auto_route: () => ({ selected_mode: "linear", confidence: 0.9, rationale: "One clear line of reasoning." }),
};

/** The fake model server's responder: the scripted answer for the request's schema name. */
export function answerBySchemaName(request: FakeModelRequest): FakeReply {
  const answer = scriptedAnswers[request.schemaName ?? ""];
  if (!answer) return { status: 400, message: `No scripted answer for schema "${request.schemaName ?? "(none)"}"` };
  return { object: answer(request) };
}
