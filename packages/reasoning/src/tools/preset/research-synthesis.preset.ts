import { definePreset } from "./preset-definition.ts";

/**
 * Root a graph of thoughts in the question; assess the sources' credibility
 * while the graph expands, is scored and finalised; check the conclusions for
 * biases and synthesise.
 */
export const researchSynthesisPreset = definePreset({
  id: "research-synthesis",
  name: "Research synthesis",
  description:
    "Roots a graph of thoughts in the research question and, concurrently, scores the sources' credibility (tier, corroboration, chain of custody) while the graph is expanded, scored and finalised into conclusions; checks the conclusions for biases and synthesises an answer that weighs the evidence.",
  category: "research",
  inputs: [
    { name: "question", description: "The research question", required: true },
    {
      name: "sources",
      description:
        "The evidence as [{ content, source?, source_type? }] (source_type: primary, secondary, tertiary, expert, anecdotal)",
      required: true,
    },
  ],
  session_step: "graph",
  steps: [
    {
      id: "graph",
      tool: "reasoning_graph",
      description: "A graph of thoughts rooted in the question",
      arguments: {
        operation: "init",
        content: "{{input.question}}",
        problem: "Answer the question from these sources:\n{{input.sources}}",
        session_id: { $ref: "session_id" },
      },
    },
    {
      id: "credibility",
      tool: "reasoning_evidence",
      description: "Credibility of each source",
      depends_on: ["graph"],
      arguments: {
        type: "assess",
        claim: "{{input.question}}",
        evidence: { $ref: "input.sources" },
        session_id: { $ref: "session_id" },
      },
    },
    {
      id: "expand",
      tool: "reasoning_graph",
      description: "Candidate lines of answer",
      depends_on: ["graph"],
      arguments: {
        operation: "generate",
        node_id: { $ref: "steps.graph.node_id" },
        k: 3,
        session_id: { $ref: "session_id" },
      },
    },
    {
      id: "score",
      tool: "reasoning_graph",
      description: "Score the candidates",
      depends_on: ["expand"],
      arguments: {
        operation: "score",
        node_ids: { $ref: "steps.expand.nodes", pluck: "id" },
        session_id: { $ref: "session_id" },
      },
    },
    {
      id: "conclude",
      tool: "reasoning_graph",
      description: "Conclusions from the graph's leaves",
      depends_on: ["score"],
      arguments: {
        operation: "finalize",
        session_id: { $ref: "session_id" },
      },
    },
    {
      id: "bias_check",
      tool: "reasoning_detect",
      description: "Biases in the conclusions",
      depends_on: ["conclude"],
      arguments: {
        type: "biases",
        content: "{{steps.conclude.conclusions}}",
        session_id: { $ref: "session_id" },
      },
    },
    {
      id: "synthesis",
      tool: "reasoning_reflection",
      description: "An answer that weighs the evidence",
      depends_on: ["credibility", "bias_check"],
      arguments: {
        operation: "process",
        content:
          "Research synthesis draft for: {{input.question}}\n\nConclusions:\n{{steps.conclude.conclusions}}\n\nSource credibility (overall {{steps.credibility.overall_credibility}}):\n{{steps.credibility.evidence_assessments}}\n\nBiases in the conclusions: {{steps.bias_check.summary}}\n\nAnswer the question, weighting each claim by the credibility of its sources, and state what remains uncertain.",
        max_iterations: 2,
        session_id: { $ref: "session_id" },
      },
    },
  ],
  output: {
    answer: { $ref: "steps.synthesis.refined_content" },
    conclusions: { $ref: "steps.conclude.conclusions" },
    overall_credibility: { $ref: "steps.credibility.overall_credibility" },
    source_assessments: { $ref: "steps.credibility.evidence_assessments" },
    biases: { $ref: "steps.bias_check.detections" },
    open_questions: { $ref: "steps.synthesis.recommendations" },
    quality_score: { $ref: "steps.synthesis.quality_score" },
  },
});
