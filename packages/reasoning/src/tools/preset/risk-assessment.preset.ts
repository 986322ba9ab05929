import { definePreset } from "./preset-definition.ts";

/**
 * Frame the subject; brainstorm what could go wrong and check for blind spots
 * concurrently; play the risks out on a timeline with a worst-case branch and
 * estimate the effect of mitigating them; then assess.
 */
export const riskAssessmentPreset = definePreset({
  id: "risk-assessment",
  name: "Risk assessment",
  description:
    "Frames what is at stake, then concurrently brainstorms what could go wrong (assumptions challenged) and checks the plan for blind spots such as optimism or overconfidence; plays the risks out on a timeline with a worst-case branch, estimates what mitigating them changes, and assesses the residual risk.",
  category: "risk",
  inputs: [
    { name: "subject", description: "The plan, system or decision to assess", required: true },
    {
      name: "context",
      description: "Constraints, timeline, what is already in place",
      required: false,
      default: "None given.",
    },
  ],
  session_step: "frame",
  steps: [
    {
      id: "frame",
      tool: "reasoning_linear",
      description: "Scope, assets at stake, assumptions",
      arguments: {
        content:
          "Assess the risks of: {{input.subject}}\n\nContext: {{input.context}}\n\nState the scope, what is at stake and the assumptions the plan relies on.",
        session_id: { $ref: "session_id" },
      },
    },
    {
      id: "risks",
      tool: "reasoning_divergent",
      description: "What could go wrong",
      depends_on: ["frame"],
      arguments: {
        content:
          "What could go wrong with: {{input.subject}}\n\nFrame: {{steps.frame.content}}\n\nCover technical, operational, people and external risks; rate likelihood and impact.",
        num_perspectives: 5,
        challenge_assumptions: true,
        session_id: { $ref: "session_id" },
      },
    },
    {
      id: "blind_spots",
      tool: "reasoning_detect",
      description: "Biases in the plan (optimism, overconfidence, ...)",
      depends_on: ["frame"],
      arguments: {
        type: "biases",
        content: "{{input.subject}}\n\n{{input.context}}",
        session_id: { $ref: "session_id" },
      },
    },
    {
      id: "timeline",
      tool: "reasoning_timeline",
      description: "How the risks could unfold",
      depends_on: ["risks"],
      arguments: {
        operation: "create",
        content:
          "How {{input.subject}} unfolds, step by step, if the identified risks materialise:\n{{steps.risks.synthesis}}",
        label: "risks materialise",
        session_id: { $ref: "session_id" },
      },
    },
    {
      id: "worst_case",
      tool: "reasoning_timeline",
      description: "A worst-case branch of the timeline",
      depends_on: ["timeline"],
      arguments: {
        operation: "branch",
        timeline_id: { $ref: "steps.timeline.timeline_id" },
        content: "Worst case: the most damaging risks compound and the first responses fail.",
        label: "worst case",
        session_id: { $ref: "session_id" },
      },
    },
    {
      id: "mitigation",
      tool: "reasoning_counterfactual",
      description: "What mitigating the main risks changes",
      depends_on: ["risks"],
      arguments: {
        scenario: "{{input.subject}}\n\nRisks identified:\n{{steps.risks.synthesis}}",
        intervention: "Mitigate the most severe of these risks before going ahead.",
        analysis_depth: "intervention",
        session_id: { $ref: "session_id" },
      },
    },
    {
      id: "assessment",
      tool: "reasoning_reflection",
      description: "Residual risk and recommendations",
      depends_on: ["blind_spots", "worst_case", "mitigation"],
      arguments: {
        operation: "process",
        content:
          "Risk assessment draft for: {{input.subject}}\n\nRisks:\n{{steps.risks.perspectives}}\n\nBlind spots: {{steps.blind_spots.summary}}\n\nWorst case: {{steps.worst_case.branches}}\n\nEffect of mitigation: {{steps.mitigation.counterfactual_outcome}}\n\nRank the risks by likelihood x impact, give the mitigation for each and the residual risk.",
        max_iterations: 2,
        session_id: { $ref: "session_id" },
      },
    },
  ],
  output: {
    risks: { $ref: "steps.risks.perspectives" },
    blind_spots: { $ref: "steps.blind_spots.detections" },
    timeline_id: { $ref: "steps.timeline.timeline_id" },
    worst_case_branch_id: { $ref: "steps.worst_case.branch_id" },
    mitigation_effect: { $ref: "steps.mitigation.counterfactual_outcome" },
    assessment: { $ref: "steps.assessment.refined_content" },
    recommendations: { $ref: "steps.assessment.recommendations" },
    quality_score: { $ref: "steps.assessment.quality_score" },
  },
});
