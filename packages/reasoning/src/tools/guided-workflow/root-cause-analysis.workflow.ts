import { defineWorkflow } from "./workflow-definition.ts";

/** From symptom to verified root cause and a fix that prevents recurrence. */
export const rootCauseAnalysisWorkflow = defineWorkflow({
  name: "root_cause_analysis",
  version: "1.0",
  title: "Root cause analysis",
  description:
    "Find the root cause of a problem: state it precisely, gather evidence, form and test hypotheses, ask why until the cause is actionable, then plan the fix and its prevention.",
  inputs: [{ name: "problem", description: "The symptom or failure to explain", required: true }],
  steps: [
    {
      id: "define_problem",
      title: "Define the problem",
      instruction: [
        "State this problem precisely before looking for causes:",
        '"{problem}"',
        "",
        "Give:",
        "- What is observed, and what was expected instead",
        "- When it started and how often it happens",
        "- Where it happens and where it does not (scope)",
        "- Its impact",
      ].join("\n"),
      expecting: "precise problem statement",
      saveAs: "problem_statement",
    },
    {
      id: "gather_evidence",
      title: "Gather evidence",
      instruction: [
        "List the evidence about this problem:",
        "{problem_statement}",
        "",
        "Include the timeline, recent changes, logs or measurements you have, and what differs between where it fails and where it works.",
        "Mark each item as fact (observed) or assumption, and name what evidence is still missing.",
      ].join("\n"),
      expecting: "evidence, each item marked fact or assumption",
      saveAs: "evidence",
    },
    {
      id: "hypothesize",
      title: "Form hypotheses",
      instruction: [
        "Problem: {problem_statement}",
        "Evidence: {evidence}",
        "",
        "List at least three candidate causes. For each: the evidence that supports it, the evidence that contradicts it, and a test that would tell it apart from the others.",
      ].join("\n"),
      expecting: "candidate causes with supporting and contradicting evidence",
      saveAs: "hypotheses",
    },
    {
      id: "identify_root_cause",
      title: "Identify the root cause",
      instruction: [
        "Test these hypotheses against the evidence and eliminate the ones it contradicts:",
        "{hypotheses}",
        "",
        "For the one that survives, ask 'why?' repeatedly until you reach a cause you can act on (usually a process or design gap, not a person).",
        "State the root cause and how confident you are, and what would prove it wrong.",
      ].join("\n"),
      expecting: "root cause with the chain of whys and your confidence",
      saveAs: "root_cause",
    },
    {
      id: "remediate",
      title: "Remediate",
      instruction: [
        "Root cause: {root_cause}",
        "Original problem: {problem}",
        "",
        "Propose:",
        "- The fix for the root cause (not only the symptom)",
        "- How to verify the fix worked",
        "- What prevents this class of problem from recurring",
      ].join("\n"),
      expecting: "fix, verification and prevention plan",
      saveAs: "remediation",
      completes: true,
    },
  ],
});
