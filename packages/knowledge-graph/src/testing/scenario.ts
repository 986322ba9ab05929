/**
 * A small scripted world for end-to-end tests of the knowledge-graph module
 * (the services' tests, the client's coordinator tests, the bench): a family
 * (Alice, Bob, Carol, Dave: a parent_of chain; the first three live in Paris)
 * and a picnic in Paris. `answerFor` answers every structured prompt of the
 * module's modes by its schema name and prompt text, as a server-side fake
 * model or as the calling agent of a host-executed call. Data only: it
 * imports nothing (the client's tests may read it; dependency-cruiser checks).
 */

/** The host tool the scenario's plans call. */
export const scenarioWeatherTool = {
  name: "weather",
  description: "Current weather of a city",
  inputSchema: {
    type: "object",
    properties: { city: { type: "string", minLength: 2 } },
    required: ["city"],
    additionalProperties: false,
  },
} as const;

/** Premises for deductive requests. */
export const scenarioDomainKnowledge =
  "Alice is Bob's parent; Bob is Carol's parent; Carol is Dave's parent. Alice, Bob and Carol live in Paris. A parent is an ancestor; an ancestor of an ancestor is an ancestor; whoever has an ancestor descends from them.";

/** The three rules of the deductive chain, as the rules prompt's answer. */
export const scenarioRules = {
  rules: [
    {
      name: "parent implies ancestor",
      statement: "A parent is an ancestor.",
      conditions: [{ subject: "?x", predicate: "parent_of", object: "?y" }],
      different: [],
      conclusions: [{ subject: "?x", predicate: "ancestor_of", object: "?y" }],
    },
    {
      name: "ancestry is transitive",
      statement: "An ancestor of an ancestor is an ancestor.",
      conditions: [
        { subject: "?x", predicate: "ancestor_of", object: "?y" },
        { subject: "?y", predicate: "ancestor_of", object: "?z" },
      ],
      different: [],
      conclusions: [{ subject: "?x", predicate: "ancestor_of", object: "?z" }],
    },
    {
      name: "ancestors have descendants",
      statement: "Whoever has an ancestor descends from them.",
      conditions: [{ subject: "?x", predicate: "ancestor_of", object: "?y" }],
      different: [],
      conclusions: [{ subject: "?y", predicate: "descendant_of", object: "?x" }],
    },
  ],
  query: { kind: "path", from: "Alice", to: "Dave", predicates: ["ancestor_of"] },
};

/** The triples the three rules must deduce (subject predicate object). */
export const scenarioDeducedTriples: readonly string[] = [
  ["Alice", "Bob"],
  ["Bob", "Carol"],
  ["Carol", "Dave"],
  ["Alice", "Carol"],
  ["Bob", "Dave"],
  ["Alice", "Dave"],
].flatMap(([a, b]) => [`${a} ancestor_of ${b}`, `${b} descendant_of ${a}`]);

/** The family and the picnic, as the extraction prompt's answer for the scenario's goals and premises. */
export const scenarioWorld = {
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

/** The answer to the scenario's question (is Alice an ancestor of Dave?), with its reasoning and citation. */
export const scenarioAnswer = {
  reasoning: ["Alice is Bob's parent, Bob is Carol's, Carol is Dave's.", "So Alice is an ancestor of Dave."],
  answer: "Yes: Alice is an ancestor of Dave.",
  answerKey: "yes",
  confidence: 0.9,
  supportingFacts: [{ subject: "Alice", predicate: "parent_of", object: "Bob" }],
};

/** The scenario's answer to one structured prompt, by schema name and prompt text. */
export function answerFor(schemaName: string, prompt: string): unknown {
  switch (schemaName) {
    case "knowledge_graph_extraction":
      if (prompt.includes("Source: result of the tool")) {
        return {
          entities: [{ name: "Rain", type: "weather", observations: ["80% chance on Saturday"] }],
          relations: [{ subject: "Paris", predicate: "expects", object: "Rain", confidence: 0.8 }],
        };
      }
      if (prompt.includes("Source: user's answer")) {
        return {
          entities: [{ name: "Umbrella", type: "object", observations: [] }],
          relations: [{ subject: "Picnic", predicate: "has", object: "Umbrella", confidence: 1 }],
        };
      }
      if (prompt.includes("Source: new goal")) return { entities: [], relations: [] };
      if (prompt.includes("Nothing to see")) return { entities: [], relations: [] };
      return scenarioWorld;
    case "knowledge_graph_rules":
      return scenarioRules;
    case "knowledge_graph_induction":
      return {
        patterns: [
          {
            description: "Alice, Bob and Carol all live in Paris",
            members: ["Alice", "Bob", "Carol"],
            sharedRelation: { predicate: "lives_in", object: "Paris" },
            abstraction: {
              name: "Parisian family members",
              type: "group",
              definition: "Family members who live in Paris",
            },
            memberRelation: "member_of",
            confidence: 0.8,
            reasoning: "Three of the four share lives_in Paris.",
          },
        ],
      };
    case "knowledge_graph_hypotheses":
      return {
        observations: [{ description: "Where Dave lives is unknown, unlike his family", entities: ["Dave"] }],
        hypotheses: [
          {
            name: "Dave lives in Paris too",
            explanation: "Like his parent and grandparents.",
            additions: [
              { subject: "Dave", subjectType: "person", predicate: "lives_in", object: "Paris", objectType: "place" },
            ],
          },
          {
            name: "Dave moved to Lyon",
            explanation: "He left for work.",
            additions: [
              { subject: "Dave", subjectType: "person", predicate: "lives_in", object: "Lyon", objectType: "place" },
            ],
          },
        ],
      };
    case "knowledge_graph_plan":
      return {
        steps: [
          {
            kind: "toolCall",
            purpose: "Get Saturday's weather",
            toolName: "weather",
            toolArguments: { city: "Paris" },
          },
          { kind: "askUser", purpose: "Know the group's gear", question: "Does the group have umbrellas?" },
          { kind: "deduce", purpose: "Decide whether the picnic can go ahead" },
        ],
      };
    case "knowledge_graph_self_ask":
      return { subQuestions: [{ source: "graph", question: "Who is Bob's parent?" }] };
    case "knowledge_graph_thoughts": {
      const breadth = Number(/Propose exactly (\d+) next thoughts/.exec(prompt)?.[1] ?? 2);
      return {
        thoughts: Array.from({ length: breadth }, (_, index) => ({
          thought: index === 0 ? "Follow the parent chain from Alice" : `Alternative ${index}`,
          supportingFacts: index === 0 ? [{ subject: "Alice", predicate: "parent_of", object: "Bob" }] : [],
          promise: 0.6,
        })),
      };
    }
    case "knowledge_graph_answer":
    case "knowledge_graph_answer_sample":
      return scenarioAnswer;
    case "knowledge_graph_resolution":
      return { decisions: {} };
    default:
      throw new Error(`The knowledge-graph scenario has no answer for ${schemaName}`);
  }
}
