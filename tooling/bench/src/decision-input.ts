/**
 * The model-free `reasoning_decision` every write figure sends: given weights and scores, so the call computes
 * TOPSIS/weighted in code and writes a new session and its thought.
 */
export const benchDecisionInput = {
  type: "weighted",
  question: "Which database?",
  options: ["SQLite", "Postgres", "DuckDB"],
  criteria: [
    { name: "cost", weight: 0.5, direction: "cost" },
    { name: "scale", weight: 0.3 },
    { name: "ops", weight: 0.2 },
  ],
  scores: [
    [1, 5, 9],
    [6, 9, 5],
    [2, 6, 7],
  ],
};
