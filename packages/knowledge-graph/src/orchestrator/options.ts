/** How the module runs: lifecycle, per-call safeguards and CoT breadth. */
export interface KnowledgeGraphOptions {
  /** Signs session states; default: a random key made once and kept in the database (shared by replicas). */
  stateSecret?: string | undefined;
  /** A session with no call for this long expires (default 30 minutes). */
  idleTimeoutMs: number;
  /** Live sessions at most; a new session past it is refused with LIMIT_EXCEEDED (default 100). */
  maxActiveSessions: number;
  /** Reasoning steps per call at most (graph operations, plan steps, thought levels, self-ask rounds); default 8. */
  maxIterations: number;
  /** Model calls per call at most (default 24). */
  maxModelCalls: number;
  /** New graph elements (entities plus relations) the model proposes per call at most (default 300); deduced relations count toward `maxDerivedFacts` instead. */
  maxGraphGrowth: number;
  /** Relations deduced by forward chaining per call at most (default 100,000: the closure of a 400-link transitive chain). */
  maxDerivedFacts: number;
  /** Steps of a plan at most (default 5). */
  maxPlanDepth: number;
  /** Samples of selfConsistency (default 3). */
  selfConsistencySamples: number;
  /** Breadth and depth of treeOfThoughts_basic (default 3 x 2). */
  treeOfThoughts: { breadth: number; depth: number };
  /** Ambiguous entity pairs put to the model per extraction at most (default 8). */
  ambiguousPairLimit: number;
  /** Named in the capability object. */
  serverName: string;
  documentationUrl?: string | undefined;
}

export const defaultKnowledgeGraphOptions: KnowledgeGraphOptions = {
  idleTimeoutMs: 30 * 60 * 1000,
  maxActiveSessions: 100,
  maxIterations: 8,
  maxModelCalls: 24,
  maxGraphGrowth: 300,
  maxDerivedFacts: 100_000,
  maxPlanDepth: 5,
  selfConsistencySamples: 3,
  treeOfThoughts: { breadth: 3, depth: 2 },
  ambiguousPairLimit: 8,
  serverName: "deliberate",
};

/** The version of the reasoning capability this module implements. */
export const reasoningCapabilityVersion = "0.1.0";
