import { definePreset } from "./preset-definition.ts";

/**
 * Explore the decision from several viewpoints, then rank the options (TOPSIS)
 * and map the stakeholders concurrently; trace the chosen option's
 * consequences, check the reasoning for biases and write the decision record.
 */
export const architectureDecisionPreset = definePreset({
  id: "architecture-decision",
  name: "Architecture decision",
  description:
    "Explores the decision from several viewpoints, then concurrently ranks the options by TOPSIS over the criteria and maps stakeholders by power and interest; traces the recommended option's consequences, checks the reasoning for biases, and writes a decision record.",
  category: "decision",
  inputs: [
    { name: "question", description: "The decision to make", required: true },
    { name: "options", description: "The candidate options (a list of at least two names)", required: true },
    {
      name: "criteria",
      description: "Criteria as [{ name, weight?, direction? }]; omit to let the model choose them",
      required: false,
    },
    {
      name: "context",
      description: "Constraints, scale, team, current system",
      required: false,
      default: "None given.",
    },
  ],
  session_step: "explore",
  steps: [
    {
      id: "explore",
      tool: "reasoning_divergent",
      description: "The decision from several viewpoints",
      arguments: {
        content:
          "Architecture decision: {{input.question}}\n\nOptions:\n{{input.options}}\n\nContext: {{input.context}}\n\nExamine the options from distinct viewpoints (operations, cost, delivery speed, long-term evolution) and surface hidden assumptions.",
        num_perspectives: 4,
        challenge_assumptions: true,
        session_id: { $ref: "session_id" },
      },
    },
    {
      id: "ranking",
      tool: "reasoning_decision",
      description: "Rank the options (TOPSIS)",
      depends_on: ["explore"],
      arguments: {
        type: "topsis",
        question: "{{input.question}}",
        options: { $ref: "input.options" },
        criteria: { $ref: "input.criteria" },
        context: "{{input.context}}\n\nViewpoints considered:\n{{steps.explore.synthesis}}",
        session_id: { $ref: "session_id" },
      },
    },
    {
      id: "stakeholders",
      tool: "reasoning_decision",
      description: "Stakeholders by power and interest",
      depends_on: ["explore"],
      arguments: {
        type: "perspectives",
        topic: "{{input.question}}",
        context: "Options:\n{{input.options}}\n\nContext: {{input.context}}",
        session_id: { $ref: "session_id" },
      },
    },
    {
      id: "consequences",
      tool: "reasoning_counterfactual",
      description: "What adopting the recommended option changes",
      depends_on: ["ranking"],
      arguments: {
        scenario: "{{input.question}}\n\nContext: {{input.context}}",
        intervention: "Adopt {{steps.ranking.recommendation}}",
        analysis_depth: "counterfactual",
        session_id: { $ref: "session_id" },
      },
    },
    {
      id: "bias_check",
      tool: "reasoning_detect",
      description: "Biases in the reasoning behind the ranking",
      depends_on: ["ranking"],
      arguments: {
        type: "biases",
        content: "{{steps.explore.synthesis}}\n\n{{steps.ranking.rationale}}",
        session_id: { $ref: "session_id" },
      },
    },
    {
      id: "record",
      tool: "reasoning_reflection",
      description: "The decision record",
      depends_on: ["stakeholders", "consequences", "bias_check"],
      arguments: {
        operation: "process",
        content:
          "Draft architecture decision record for: {{input.question}}\n\nRecommended: {{steps.ranking.recommendation}}\nRankings: {{steps.ranking.rankings}}\nWarnings: {{steps.ranking.warnings}}\n\nConsequences: {{steps.consequences.counterfactual_outcome}}\n\nStakeholders: {{steps.stakeholders.stakeholder_map}}\nConflicts: {{steps.stakeholders.conflicts}}\n\nBiases found: {{steps.bias_check.summary}}\n\nWrite it as context, decision, consequences and open risks.",
        max_iterations: 2,
        session_id: { $ref: "session_id" },
      },
    },
  ],
  output: {
    recommendation: { $ref: "steps.ranking.recommendation" },
    rankings: { $ref: "steps.ranking.rankings" },
    warnings: { $ref: "steps.ranking.warnings" },
    stakeholder_map: { $ref: "steps.stakeholders.stakeholder_map" },
    conflicts: { $ref: "steps.stakeholders.conflicts" },
    consequences: { $ref: "steps.consequences.counterfactual_outcome" },
    biases: { $ref: "steps.bias_check.detections" },
    decision_record: { $ref: "steps.record.refined_content" },
    quality_score: { $ref: "steps.record.quality_score" },
  },
});
