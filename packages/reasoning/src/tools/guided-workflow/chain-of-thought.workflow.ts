import { defineWorkflow } from "./workflow-definition.ts";

/** Decompose, analyse, synthesise: multi-step reasoning with the agent's full capacity per step. */
export const chainOfThoughtWorkflow = defineWorkflow({
  name: "chain_of_thought",
  version: "1.0",
  title: "Chain of thought",
  description:
    "Multi-step reasoning with full model capacity per step: decompose the problem, analyse the first sub-task, synthesise a complete solution.",
  inputs: [{ name: "problem", description: "The problem to reason through", required: true }],
  steps: [
    {
      id: "decompose",
      title: "Decompose",
      instruction: [
        "Break down this problem into smaller, manageable sub-tasks:",
        '"{problem}"',
        "",
        "Consider:",
        "- What are the main components?",
        "- What needs to be solved first?",
        "- What are the dependencies?",
        "",
        "List each sub-task clearly.",
      ].join("\n"),
      expecting: "decomposition into sub-tasks",
      saveAs: "decomposition",
    },
    {
      id: "analyze",
      title: "Analyze",
      instruction: [
        "Now analyze the first sub-task from your decomposition:",
        "{decomposition}",
        "",
        "Provide:",
        "- Detailed approach",
        "- Potential challenges",
        "- Success criteria",
      ].join("\n"),
      expecting: "analysis of the first sub-task",
      saveAs: "analysis",
    },
    {
      id: "synthesize",
      title: "Synthesize",
      instruction: [
        "Synthesize your analysis into a complete solution:",
        "",
        "Problem: {problem}",
        "Decomposition: {decomposition}",
        "Analysis: {analysis}",
        "",
        "Provide an integrated solution that addresses all aspects.",
      ].join("\n"),
      expecting: "integrated solution",
      saveAs: "synthesis",
      completes: true,
    },
  ],
});
