import { defineWorkflow } from "./workflow-definition.ts";

/** Frame the decision, widen the options, evaluate against weighted criteria, decide. */
export const decisionMakingWorkflow = defineWorkflow({
  name: "decision_making",
  version: "1.0",
  title: "Decision making",
  description:
    "Make a decision deliberately: frame the objective, constraints and weighted criteria, generate real alternatives, evaluate each against the criteria, then commit with a rationale.",
  inputs: [{ name: "decision", description: "The decision to make, as a question", required: true }],
  steps: [
    {
      id: "frame",
      title: "Frame the decision",
      instruction: [
        "Frame this decision before considering answers:",
        '"{decision}"',
        "",
        "Give:",
        "- The objective: what a good outcome achieves",
        "- Hard constraints (any option violating one is out)",
        "- Criteria to compare options, each with a weight; the weights sum to 1",
      ].join("\n"),
      expecting: "objective, constraints and weighted criteria",
      saveAs: "framing",
    },
    {
      id: "generate_options",
      title: "Generate options",
      instruction: [
        "Decision: {decision}",
        "Framing: {framing}",
        "",
        "List at least three genuinely different options, including doing nothing or keeping the status quo.",
        "Drop any option that violates a hard constraint, and say why.",
      ].join("\n"),
      expecting: "list of options, with any dropped ones explained",
      saveAs: "options",
    },
    {
      id: "evaluate",
      title: "Evaluate",
      instruction: [
        "Criteria and weights: {framing}",
        "Options: {options}",
        "",
        "Score each option against each criterion from 0 to 10, with one line of justification per score.",
        "Compute each option's weighted total, and list each option's main risk and how it could be reduced.",
      ].join("\n"),
      expecting: "score table with weighted totals and risks",
      saveAs: "evaluation",
    },
    {
      id: "decide",
      title: "Decide",
      instruction: [
        "Decision: {decision}",
        "Evaluation: {evaluation}",
        "",
        "Recommend one option. Give the rationale, the trade-offs accepted, what would make you change your mind, and the first concrete step.",
      ].join("\n"),
      expecting: "recommendation with rationale and first step",
      saveAs: "recommendation",
      completes: true,
    },
  ],
});
