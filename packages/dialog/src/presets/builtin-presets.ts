import type { DialogPresetName } from "@deliberate/contracts";
import { definePreset, type DialogPreset } from "./dialog-preset.ts";
import {
  codeReviewerAgent,
  criticAgent,
  dialogAgent,
  implementerAgent,
  synthesizerAgent,
  thinkAgent,
} from "./personas.ts";

const mergeDefault =
  "Merge the documents into one complete document: keep the strongest content of each, remove repetition, resolve contradictions on the merits (say which view you kept and why) and incorporate every directive.";

/** Refine a vague objective into a production specification (the spec's default Dialog + Think). */
export const objectiveRefinementPreset = definePreset({
  name: "objective_refinement",
  description:
    "Refine a vague objective into a production-ready specification: Think writes the specification, Dialog reviews it and directs the next version.",
  recommended_for: ["objective creation", "turning a rough idea into a buildable spec", "requirements clarification"],
  agents: [thinkAgent, dialogAgent],
  turns: [[{ agent: "think", act: "produce" }], [{ agent: "dialog", act: "review" }]],
  criteria: [
    {
      name: "clarity",
      weight: 0.2,
      description: "The goal and every requirement are stated unambiguously; a reader cannot misread what is wanted",
    },
    {
      name: "completeness",
      weight: 0.25,
      description: "Users, functional and non-functional requirements, constraints and assumptions are all covered",
    },
    {
      name: "actionability",
      weight: 0.2,
      description: "An engineering team could start building from it without coming back with questions",
    },
    { name: "measurability", weight: 0.2, description: "Success criteria are concrete and testable" },
    { name: "scope", weight: 0.15, description: "Boundaries, non-goals, risks and open questions are explicit" },
  ],
  instructions: {
    produce:
      "Write a production-ready objective specification: goal, users and context, functional requirements, non-functional requirements, constraints and assumptions, scope and non-goals, measurable success criteria, risks and open questions.",
    merge: mergeDefault,
    review:
      "Judge whether an engineering team could build from this specification without coming back with questions; direct the changes that would most raise its weakest criteria.",
  },
});

/** Open-ended exploration of a topic (Dialog + Think). */
export const explorationPreset = definePreset({
  name: "exploration",
  description:
    "Open-ended exploration of a topic: Think maps the territory, Dialog pushes for breadth where there are blind spots and depth where it is shallow.",
  recommended_for: ["research", "discovery", "understanding an unfamiliar domain", "finding the right questions"],
  agents: [thinkAgent, dialogAgent],
  turns: [[{ agent: "think", act: "produce" }], [{ agent: "dialog", act: "review" }]],
  criteria: [
    {
      name: "breadth",
      weight: 0.2,
      description: "The main dimensions, viewpoints and stakeholders of the topic are covered",
    },
    {
      name: "depth",
      weight: 0.25,
      description: "The important dimensions are analysed to mechanisms and implications, not just named",
    },
    {
      name: "insight",
      weight: 0.25,
      description: "Non-obvious connections and implications, beyond restating the familiar",
    },
    {
      name: "grounding",
      weight: 0.15,
      description: "Claims are supported; facts are told apart from speculation and uncertainty is stated",
    },
    {
      name: "open_questions",
      weight: 0.15,
      description: "The most valuable questions to pursue next are identified and sharp",
    },
  ],
  instructions: {
    produce:
      "Explore the topic openly: map its main dimensions, competing views and evidence, non-obvious connections and implications, and the most valuable open questions to pursue next. Tell established facts from speculation.",
    merge: mergeDefault,
    review:
      "Push for breadth where the map has blind spots and for depth where it is superficial; reward genuine insight over restatement.",
  },
});

/** Adversarial examination of an idea (Dialog argues, Critic attacks). */
export const debatePreset = definePreset({
  name: "debate",
  description:
    "Adversarial examination of an idea: Dialog takes and argues a position, Critic attacks it with the strongest objections, and each version must answer them.",
  recommended_for: ["decision validation", "stress-testing a proposal", "pre-mortems", "choosing between alternatives"],
  agents: [dialogAgent, criticAgent],
  turns: [[{ agent: "dialog", act: "produce" }], [{ agent: "critic", act: "review" }]],
  criteria: [
    { name: "claim_clarity", weight: 0.15, description: "The position and what it commits to are stated precisely" },
    {
      name: "evidence",
      weight: 0.25,
      description: "Each argument rests on evidence or sound reasoning, not assertion",
    },
    {
      name: "objection_handling",
      weight: 0.35,
      description: "The strongest objections are stated fairly and answered convincingly",
    },
    {
      name: "decision_value",
      weight: 0.25,
      description: "It ends in a usable recommendation, with the conditions under which it would be wrong",
    },
  ],
  instructions: {
    produce:
      "Take a clear position on the topic and argue it: thesis, supporting arguments with evidence, the strongest objections with your rebuttals, the conditions under which your position would be wrong, and a bottom-line recommendation.",
    merge:
      "Merge the positions into one argued document: state where they agree, weigh each disagreement on its evidence, and reach a recommendation that answers the strongest objections on every side. Incorporate every directive.",
    review:
      "Attack the position: find its strongest objections, weakest evidence and unexamined alternatives. Each directive is an objection the author must answer in the next version.",
  },
});

/** Combine perspectives: Think and Dialog write independently, the Synthesizer merges, both review. */
export const synthesisPreset = definePreset({
  name: "synthesis",
  description:
    "Combine multiple perspectives: Think (deep analysis) and Dialog (pragmatic, decision-focused) each write their perspective independently and concurrently, the Synthesizer merges them, and Think and Dialog both review the merged document.",
  recommended_for: ["complex decisions", "reconciling conflicting views", "strategy", "cross-functional trade-offs"],
  agents: [thinkAgent, dialogAgent, synthesizerAgent],
  turns: [
    [
      { agent: "think", act: "produce" },
      { agent: "dialog", act: "produce" },
    ],
    [{ agent: "synthesizer", act: "merge" }],
    [
      { agent: "think", act: "review" },
      { agent: "dialog", act: "review" },
    ],
  ],
  criteria: [
    {
      name: "integration",
      weight: 0.3,
      description: "The perspectives are combined into one coherent view, not placed side by side",
    },
    { name: "coverage", weight: 0.2, description: "The key points of every perspective survive the merge" },
    {
      name: "conflict_resolution",
      weight: 0.25,
      description:
        "Disagreements are named and resolved on the merits, or left explicitly open with what would settle them",
    },
    { name: "recommendation", weight: 0.25, description: "A clear recommendation with its trade-offs" },
  ],
  instructions: {
    produce:
      "Write your own perspective on the topic, from your viewpoint: your analysis, what matters most, the trade-offs, and your recommendation. Another agent writes an independent perspective; a synthesizer will merge them, so be distinct and complete.",
    merge:
      "Merge the perspectives into one coherent document: keep each one's strongest points, make their disagreements explicit and resolve them on the merits (or state what remains open and what would settle it), and end with a recommendation and its trade-offs. Incorporate every directive.",
    review:
      "Judge the merged document as a synthesis: integration, not juxtaposition; check that nothing essential from either perspective was lost.",
  },
});

/** Code review: the Implementer writes findings and fixes, the Reviewer checks them. */
export const codeReviewPreset = definePreset({
  name: "code_review",
  description:
    "Analyse code quality and improvements: the Implementer writes findings with concrete fixes and tests, the Reviewer checks them for missed bugs, wrong fixes and missing tests.",
  recommended_for: ["code review", "refactoring plans", "security review of a change", "pre-merge checks"],
  agents: [implementerAgent, codeReviewerAgent],
  turns: [[{ agent: "implementer", act: "produce" }], [{ agent: "reviewer", act: "review" }]],
  criteria: [
    {
      name: "correctness",
      weight: 0.3,
      description: "Real bugs and edge cases are found, and every proposed fix is correct",
    },
    {
      name: "security",
      weight: 0.2,
      description: "Security issues (input handling, secrets, injection, authorisation) are found and fixed safely",
    },
    {
      name: "maintainability",
      weight: 0.2,
      description: "Readability, structure and naming problems are addressed with concrete changes",
    },
    {
      name: "performance",
      weight: 0.1,
      description: "Real performance problems are found, without premature optimisation",
    },
    { name: "test_coverage", weight: 0.2, description: "Each problem comes with a test that would catch it" },
  ],
  instructions: {
    produce:
      "Review the code given in the topic and context: findings ordered by severity (correctness, security, performance, maintainability), each with its location, the problem and the corrected code; then the tests that would catch each problem.",
    merge: mergeDefault,
    review: "Check the findings and fixes: missed bugs, wrong or unsafe fixes, vague suggestions, missing tests.",
  },
});

/** The five built-in presets, in the order list_reasoning_presets shows them. */
export const builtinPresets: readonly DialogPreset[] = [
  objectiveRefinementPreset,
  explorationPreset,
  debatePreset,
  synthesisPreset,
  codeReviewPreset,
];

/** The preset of a name (every name of the mode enum has one). */
export function presetByName(name: DialogPresetName): DialogPreset {
  const preset = builtinPresets.find((candidate) => candidate.name === name);
  if (!preset) throw new Error(`No built-in preset named ${name}`);
  return preset;
}
