import { definePreset } from "./preset-definition.ts";

/**
 * Establish the facts, branch into root-cause hypotheses (while checking the
 * report for biases), search the most promising line with MCTS, estimate the
 * fix's effect, and conclude.
 */
export const debugAnalysisPreset = definePreset({
  id: "debug-analysis",
  name: "Debug analysis",
  description:
    "States the established facts, branches into testable root-cause hypotheses while checking the report for biases (anchoring, confirmation), searches the most promising line of investigation with MCTS, estimates what fixing it changes, and concludes with next steps.",
  category: "debugging",
  inputs: [
    { name: "problem", description: "The symptom: what happens and what should happen instead", required: true },
    {
      name: "context",
      description: "Logs, code, recent changes, environment",
      required: false,
      default: "None given.",
    },
  ],
  session_step: "facts",
  steps: [
    {
      id: "facts",
      tool: "reasoning_linear",
      description: "Established facts and what they rule out",
      arguments: {
        content:
          "Bug report:\n{{input.problem}}\n\nEvidence at hand (logs, code, recent changes):\n{{input.context}}\n\nState the established facts and what they rule out.",
        session_id: { $ref: "session_id" },
      },
    },
    {
      id: "hypotheses",
      tool: "reasoning_tree",
      description: "Testable root-cause hypotheses",
      depends_on: ["facts"],
      arguments: {
        operation: "create",
        content:
          "Candidate root causes for this bug, each with the test that would confirm or refute it:\n{{input.problem}}\n\nFacts: {{steps.facts.content}}",
        num_branches: 4,
        session_id: { $ref: "session_id" },
      },
    },
    {
      id: "bias_check",
      tool: "reasoning_detect",
      description: "Biases in how the problem is reported",
      depends_on: ["facts"],
      arguments: {
        type: "biases",
        content: "{{input.problem}}\n\n{{input.context}}",
        session_id: { $ref: "session_id" },
      },
    },
    {
      id: "investigation",
      tool: "reasoning_mcts",
      description: "Search the most promising line of investigation",
      depends_on: ["hypotheses"],
      arguments: {
        operation: "explore",
        content:
          "Find the root cause of: {{input.problem}}\n\nFacts: {{steps.facts.content}}\n\nHypotheses:\n{{steps.hypotheses.branches}}",
        iterations: 6,
        simulation_depth: 3,
        session_id: { $ref: "session_id" },
      },
    },
    {
      id: "fix_impact",
      tool: "reasoning_counterfactual",
      description: "What fixing the likely cause changes",
      depends_on: ["investigation"],
      arguments: {
        scenario: "{{input.problem}}\n\nFacts: {{steps.facts.content}}",
        intervention:
          "Fix the cause found by the most promising line of investigation: {{steps.investigation.best_path.0.content}}",
        analysis_depth: "intervention",
        session_id: { $ref: "session_id" },
      },
    },
    {
      id: "conclusion",
      tool: "reasoning_reflection",
      description: "Conclusion and next steps",
      depends_on: ["bias_check", "fix_impact"],
      arguments: {
        operation: "process",
        content:
          "Debugging conclusion draft for: {{input.problem}}\n\nFacts: {{steps.facts.content}}\n\nHypotheses:\n{{steps.hypotheses.branches}}\n\nMost promising line:\n{{steps.investigation.best_path}}\n\nExpected effect of the fix: {{steps.fix_impact.counterfactual_outcome}}\n\nBiases in the report: {{steps.bias_check.summary}}\n\nState the most likely root cause, the confirming test and the fix.",
        max_iterations: 2,
        session_id: { $ref: "session_id" },
      },
    },
  ],
  output: {
    facts: { $ref: "steps.facts.content" },
    hypotheses: { $ref: "steps.hypotheses.branches", pluck: "content" },
    investigation: { $ref: "steps.investigation.best_path", pluck: "content" },
    biases: { $ref: "steps.bias_check.detections" },
    fix_impact: { $ref: "steps.fix_impact.counterfactual_outcome" },
    conclusion: { $ref: "steps.conclusion.refined_content" },
    next_steps: { $ref: "steps.conclusion.recommendations" },
  },
});
