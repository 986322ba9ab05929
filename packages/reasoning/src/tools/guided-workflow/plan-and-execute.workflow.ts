import { defineWorkflow } from "./workflow-definition.ts";

/** Define done, plan verifiable steps, execute them, review against the definition of done. */
export const planAndExecuteWorkflow = defineWorkflow({
  name: "plan_and_execute",
  version: "1.0",
  title: "Plan and execute",
  description:
    "Reach a goal methodically: define what done means, plan ordered and verifiable steps, execute them recording results and deviations, then review the outcome against the definition of done.",
  inputs: [{ name: "goal", description: "The goal to reach", required: true }],
  steps: [
    {
      id: "define_goal",
      title: "Define done",
      instruction: [
        "Make this goal concrete before planning:",
        '"{goal}"',
        "",
        "Give:",
        "- Success criteria you can check",
        "- Constraints (time, tools, what must not change)",
        "- What is explicitly out of scope",
      ].join("\n"),
      expecting: "success criteria, constraints and scope",
      saveAs: "definition_of_done",
    },
    {
      id: "plan",
      title: "Plan",
      instruction: [
        "Goal: {goal}",
        "Definition of done: {definition_of_done}",
        "",
        "Write an ordered plan. For each step: the action, what it depends on, and how you will know it succeeded.",
        "Put the riskiest or most uncertain step as early as its dependencies allow.",
      ].join("\n"),
      expecting: "ordered plan with dependencies and checks",
      saveAs: "plan",
    },
    {
      id: "execute",
      title: "Execute",
      instruction: [
        "Carry out this plan step by step:",
        "{plan}",
        "",
        "For each step record what you did, the result, and whether its check passed. When reality differs from the plan, note the deviation and how you adapted.",
      ].join("\n"),
      expecting: "execution log with results and deviations",
      saveAs: "execution_log",
    },
    {
      id: "review",
      title: "Review",
      instruction: [
        "Definition of done: {definition_of_done}",
        "Execution log: {execution_log}",
        "",
        "Check each success criterion: met or not, with the evidence. List what remains, what you would do differently, and the final outcome.",
      ].join("\n"),
      expecting: "review against the success criteria and the final outcome",
      saveAs: "review",
      completes: true,
    },
  ],
});
