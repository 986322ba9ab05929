import type { PendingPrompt } from "../../src/index.ts";
import { scriptedHost } from "./host-model.ts";

// The host's model for the knowledge-graph module's prompts (host-executed: the servers have no
// key), answering by prompt name and text. A small world: a family (Alice -> Bob -> Carol -> Dave,
// parent_of; three live in Paris) and a picnic in Paris. The goal's wording picks the scenario:
// "Nothing to see" extracts nothing (status failed); "budget" plans two graph steps (so a small
// maxSteps stops it: max_iterations_reached); "unsure" answers with low confidence.

/** The host tool the picnic plan calls. */
export const weatherTool = {
  name: "weather",
  description: "Current weather of a city",
  inputSchema: { type: "object", properties: { city: { type: "string", minLength: 2 } }, required: ["city"], additionalProperties: false },
};

export const familyKnowledge =
  "Alice is Bob's parent; Bob is Carol's parent; Carol is Dave's parent. Alice, Bob and Carol live in Paris. A parent is an ancestor; an ancestor of an ancestor is an ancestor.";

const world = {
  entities: [
    { name: "Alice", type: "person", observations: ["the eldest"] },
    { name: "Bob", type: "person", observations: [] },
    { name: "Carol", type: "person", observations: [] },
    { name: "Dave", type: "person", observations: [] },
    { name: "Paris", type: "place", observations: [] },
    { name: "Picnic", type: "event", observations: ["planned for Saturday"] },
  ],
  relations: [
    { subject: "Alice", predicate: "parent_of", object: "Bob", confidence: 1 },
    { subject: "Bob", predicate: "parent_of", object: "Carol", confidence: 1 },
    { subject: "Carol", predicate: "parent_of", object: "Dave", confidence: 1 },
    { subject: "Alice", predicate: "lives_in", object: "Paris", confidence: 1 },
    { subject: "Bob", predicate: "lives_in", object: "Paris", confidence: 1 },
    { subject: "Carol", predicate: "lives_in", object: "Paris", confidence: 1 },
    { subject: "Picnic", predicate: "located_in", object: "Paris", confidence: 1 },
  ],
};

const rules = {
  rules: [
    { name: "parent implies ancestor", statement: "A parent is an ancestor.", conditions: [{ subject: "?x", predicate: "parent_of", object: "?y" }], conclusions: [{ subject: "?x", predicate: "ancestor_of", object: "?y" }] },
    {
      name: "ancestry is transitive",
      statement: "An ancestor of an ancestor is an ancestor.",
      conditions: [
        { subject: "?x", predicate: "ancestor_of", object: "?y" },
        { subject: "?y", predicate: "ancestor_of", object: "?z" },
      ],
      conclusions: [{ subject: "?x", predicate: "ancestor_of", object: "?z" }],
    },
  ],
  query: { kind: "path", from: "Alice", to: "Dave", predicates: ["ancestor_of"] },
};

const confidentAnswer = {
  reasoning: ["Alice is Bob's parent, Bob is Carol's, Carol is Dave's.", "So Alice is an ancestor of Dave."],
  answer: "Yes: Alice is an ancestor of Dave.",
  answerKey: "yes",
  confidence: 0.95,
  supportingFacts: [
    { subject: "Alice", predicate: "ancestor_of", object: "Dave" },
    { subject: "Alice", predicate: "parent_of", object: "Bob" },
  ],
};

const unsureAnswer = { reasoning: ["Little to go on."], answer: "Perhaps, but I am unsure.", answerKey: "perhaps", confidence: 0.05, supportingFacts: [] };

function answerFor(prompt: PendingPrompt): unknown {
  const text = prompt.user;
  switch (prompt.name) {
    case "knowledge_graph_extraction":
      if (text.includes("Source: result of the tool")) return { entities: [{ name: "Rain", type: "weather", observations: ["80% chance"] }], relations: [{ subject: "Paris", predicate: "expects", object: "Rain", confidence: 0.8 }] };
      if (text.includes("Source: user's answer")) return { entities: [{ name: "Umbrella", type: "object", observations: [] }], relations: [{ subject: "Picnic", predicate: "has", object: "Umbrella", confidence: 1 }] };
      if (text.includes("Source: new goal") || text.includes("Nothing to see")) return { entities: [], relations: [] };
      return world;
    case "knowledge_graph_rules":
      return rules;
    case "knowledge_graph_plan":
      if (text.includes("budget")) return { steps: [{ kind: "deduce", purpose: "first" }, { kind: "abduce", purpose: "second" }] };
      return {
        steps: [
          { kind: "toolCall", purpose: "Get Saturday's weather", toolName: "weather", toolArguments: { city: "Paris" } },
          { kind: "askUser", purpose: "Know the group's gear", question: "Does the group have umbrellas?" },
          { kind: "deduce", purpose: "Decide whether the picnic can go ahead" },
        ],
      };
    case "knowledge_graph_hypotheses":
      return {
        observations: [{ description: "Where Dave lives is unknown", entities: ["Dave"] }],
        hypotheses: [
          { name: "Dave lives in Paris too", explanation: "Like his family.", newEntities: [], additions: [{ subject: "Dave", predicate: "lives_in", object: "Paris" }] },
          { name: "Dave moved", explanation: "For work.", newEntities: [{ name: "Lyon", type: "place", observations: [] }], additions: [{ subject: "Dave", predicate: "lives_in", object: "Lyon" }] },
        ],
      };
    case "knowledge_graph_answer":
    case "knowledge_graph_answer_sample":
      return text.includes("unsure") ? unsureAnswer : confidentAnswer;
    case "knowledge_graph_resolution":
      return { decisions: [] };
    default:
      return undefined;
  }
}

/** A `complete` for the knowledge-graph prompts (and, by schema, anything else). */
export function knowledgeGraphHost() {
  return scriptedHost(
    Object.fromEntries(
      ["knowledge_graph_extraction", "knowledge_graph_rules", "knowledge_graph_plan", "knowledge_graph_hypotheses", "knowledge_graph_answer", "knowledge_graph_answer_sample", "knowledge_graph_resolution"].map((name) => [
        name,
        (prompt: PendingPrompt) => answerFor(prompt),
      ]),
    ),
  );
}
