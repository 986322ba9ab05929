import { answerFor as scenarioAnswerFor, scenarioAnswer } from "@deliberate/knowledge-graph/testing";
import type { PendingPrompt } from "../../src/index.ts";
import { scriptedHost } from "./host-model.ts";

// The host's model for the knowledge-graph module's prompts (host-executed: the servers have no
// key): the module's scripted world (@deliberate/knowledge-graph/testing: a family Alice -> Bob ->
// Carol -> Dave, parent_of, three of them in Paris, and a picnic in Paris), answered by prompt name
// and text. The goal's wording picks the scenario: "Nothing to see" extracts nothing (status
// failed); "budget" plans two graph steps (so a small maxSteps stops it: max_iterations_reached);
// "unsure" answers with low confidence. A confident answer cites the deduced conclusion first.

const confidentAnswer = {
  ...scenarioAnswer,
  confidence: 0.95,
  supportingFacts: [{ subject: "Alice", predicate: "ancestor_of", object: "Dave" }, ...scenarioAnswer.supportingFacts],
};

const bobAnswer = {
  reasoning: ["Bob is Carol's parent; Carol is Dave's."],
  answer: "Yes: Bob is an ancestor of Dave.",
  answerKey: "yes",
  confidence: 0.9,
  supportingFacts: [{ subject: "Bob", predicate: "parent_of", object: "Carol" }],
};

const unsureAnswer = {
  reasoning: ["Little to go on."],
  answer: "Perhaps, but I am unsure.",
  answerKey: "perhaps",
  confidence: 0.05,
  supportingFacts: [],
};

function answerFor(prompt: PendingPrompt): unknown {
  const text = prompt.user;
  switch (prompt.name) {
    case "knowledge_graph_plan":
      return text.includes("budget")
        ? {
            steps: [
              { kind: "deduce", purpose: "first" },
              { kind: "abduce", purpose: "second" },
            ],
          }
        : scenarioAnswerFor(prompt.name, text);
    case "knowledge_graph_answer":
    case "knowledge_graph_answer_sample":
      if (text.includes("unsure")) return unsureAnswer;
      // A refinement's follow-up is answered as itself: the answer shown must still be the original question's.
      return /^Question: Is Bob an ancestor of Dave/m.test(text) ? bobAnswer : confidentAnswer;
    default:
      return scenarioAnswerFor(prompt.name, text);
  }
}

/** A `complete` for the knowledge-graph prompts (and, by schema, anything else). */
export function knowledgeGraphHost() {
  return scriptedHost(
    Object.fromEntries(
      [
        "knowledge_graph_extraction",
        "knowledge_graph_rules",
        "knowledge_graph_plan",
        "knowledge_graph_hypotheses",
        "knowledge_graph_answer",
        "knowledge_graph_answer_sample",
        "knowledge_graph_resolution",
      ].map((name) => [name, (prompt: PendingPrompt) => answerFor(prompt)]),
    ),
  );
}
