import { definePreset } from "./preset-definition.ts";

/**
 * Understand the code first, then review it from several angles, list its
 * failure modes and check the reasoning around it concurrently, and refine
 * the findings into one prioritised review.
 */
export const codeReviewPreset = definePreset({
  id: "code-review",
  name: "Code review",
  description:
    "Explains what the code must guarantee, then concurrently reviews it from four angles (correctness, security, performance, maintainability), explores how it can fail and checks the reasoning in it for fallacies; a reflection pass turns the findings into a prioritised review.",
  category: "code",
  inputs: [
    { name: "code", description: "The code (or diff) to review", required: true },
    {
      name: "context",
      description: "What the change is for, constraints, the PR description",
      required: false,
      default: "No further context given.",
    },
  ],
  session_step: "understand",
  steps: [
    {
      id: "understand",
      tool: "reasoning_linear",
      description: "What the code does and what it must guarantee",
      arguments: {
        content:
          "Code under review:\n```\n{{input.code}}\n```\n\nContext: {{input.context}}\n\nBefore judging it, explain what this code does and what it must guarantee (its contract, inputs, invariants).",
        session_id: { $ref: "session_id" },
      },
    },
    {
      id: "angles",
      tool: "reasoning_divergent",
      description: "Review from distinct angles",
      depends_on: ["understand"],
      arguments: {
        content:
          "Review this code, each perspective from one angle: correctness and edge cases, security, performance, readability and maintainability. Name concrete lines and fixes.\n\n```\n{{input.code}}\n```\n\nWhat it must guarantee: {{steps.understand.content}}",
        num_perspectives: 4,
        challenge_assumptions: true,
        session_id: { $ref: "session_id" },
      },
    },
    {
      id: "failure_modes",
      tool: "reasoning_tree",
      description: "How the code can fail",
      depends_on: ["understand"],
      arguments: {
        operation: "create",
        content:
          "Distinct ways this code can fail in production (inputs, concurrency, resources, dependencies):\n```\n{{input.code}}\n```",
        num_branches: 3,
        session_id: { $ref: "session_id" },
      },
    },
    {
      id: "reasoning_check",
      tool: "reasoning_detect",
      description: "Fallacies in the code's comments and the change's justification",
      depends_on: ["understand"],
      arguments: {
        type: "fallacies",
        content: "{{input.code}}\n\n{{input.context}}",
        session_id: { $ref: "session_id" },
      },
    },
    {
      id: "review",
      tool: "reasoning_reflection",
      description: "One prioritised review",
      depends_on: ["angles", "failure_modes", "reasoning_check"],
      arguments: {
        operation: "process",
        content:
          "Draft code review. Turn it into a prioritised list of findings (blocking first), each with the fix.\n\nFindings by angle:\n{{steps.angles.perspectives}}\n\nSynthesis: {{steps.angles.synthesis}}\n\nFailure modes:\n{{steps.failure_modes.branches}}\n\nReasoning issues: {{steps.reasoning_check.summary}}\n\nCode:\n```\n{{input.code}}\n```",
        max_iterations: 2,
        session_id: { $ref: "session_id" },
      },
    },
  ],
  output: {
    contract: { $ref: "steps.understand.content" },
    findings: { $ref: "steps.angles.perspectives" },
    failure_modes: { $ref: "steps.failure_modes.branches", pluck: "content" },
    reasoning_issues: { $ref: "steps.reasoning_check.detections" },
    review: { $ref: "steps.review.refined_content" },
    recommendations: { $ref: "steps.review.recommendations" },
    quality_score: { $ref: "steps.review.quality_score" },
  },
});
