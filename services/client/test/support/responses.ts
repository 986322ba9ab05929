import type { ExecuteTaskResponse, ReasoningCapability, ReasoningTrace } from "@deliberate/contracts";

// Builders of contract-valid knowledge-graph responses, for tests that script a server.

export function trace(overrides: Partial<ReasoningTrace> = {}): ReasoningTrace {
  return {
    reasoningType: "deductive",
    cotVariation: { requested: null, used: "standardCoT" },
    steps: [
      { index: 0, kind: "seed", summary: "Seeded the graph with 4 entities", addedEntities: [], addedRelations: [] },
      { index: 1, kind: "deduce", summary: "Applied 3 rules: 12 new facts", addedEntities: [], addedRelations: [] },
      { index: 2, kind: "answer", summary: "Answered from the graph", addedEntities: [], addedRelations: [] },
    ],
    derivations: [],
    pathValidation: null,
    hypotheses: [],
    selfConsistency: null,
    subQuestions: [],
    thoughts: [],
    confidence: {
      method: "combined",
      score: 0.86,
      formula: "0.4 v + 0.3 g",
      components: { verbalizedConfidence: 0.9, consistency: null, graphSupport: 0.75, basis: 1 },
      basis: { kind: "proof", score: 1, description: "Path check: Alice reaches Dave" },
      restsOn: "derived",
      supportingFacts: [{ subject: "Alice", predicate: "ancestor_of", object: "Dave" }],
      contradictedFacts: [],
      unsupportedFacts: [],
      desiredConfidenceLevel: null,
      targetMet: null,
    },
    subgraph: { entities: [], relations: [] },
    budget: {
      iterations: 1,
      maxIterations: 10,
      modelCalls: 3,
      maxModelCalls: 40,
      graphGrowth: 12,
      maxGraphGrowth: 200,
      chaining: null,
    },
    ...overrides,
  };
}

const base = {
  reasoningSessionId: "s-1",
  result: null,
  toolCallRequest: null,
  userInputRequest: null,
  error: null,
  updatedSessionState: { token: "state-1" },
  sessionExpiresAt: null,
  notices: [],
};

function result(answer: string | null, confidence: number | null, withTrace: ReasoningTrace | null) {
  return {
    reasonedAnswer: answer,
    reasoningTrace: withTrace,
    confidenceScore: confidence,
    confidenceMethod: confidence === null ? null : ("combined" as const),
    plan: null,
    promptsToExecute: null,
    promptDetails: null,
  };
}

export const responses = {
  completed: (
    taskId: string,
    answer: string,
    confidence: number | null = 0.9,
    withTrace: ReasoningTrace | null = null,
  ): ExecuteTaskResponse => ({
    ...base,
    taskId,
    status: "completed",
    result: result(answer, confidence, withTrace),
  }),
  toolCall: (
    taskId: string,
    toolName: string,
    toolArguments: Record<string, unknown>,
    toolCallId = "call-1",
  ): ExecuteTaskResponse => ({
    ...base,
    taskId,
    status: "pending_tool_call",
    toolCallRequest: { toolName, toolArguments, toolCallId },
  }),
  userInput: (taskId: string, question: string): ExecuteTaskResponse => ({
    ...base,
    taskId,
    status: "pending_user_input",
    userInputRequest: question,
  }),
  failed: (taskId: string): ExecuteTaskResponse => ({
    ...base,
    taskId,
    reasoningSessionId: null,
    updatedSessionState: null,
    status: "failed",
    error: {
      code: 4220,
      reason: "EXTRACTION_EMPTY",
      message: "Nothing to reason about was found.",
      details: null,
      retryable: false,
    },
  }),
  maxIterations: (taskId: string, partial: string | null): ExecuteTaskResponse => ({
    ...base,
    taskId,
    status: "max_iterations_reached",
    result: result(partial, partial === null ? null : 0.6, null),
  }),
};

export function capability(overrides: Partial<ReasoningCapability> = {}): ReasoningCapability {
  return {
    version: "0.2.0",
    serverName: "deliberate-test",
    supportedReasoningTypes: ["inductive", "deductive", "abductive", "planAndExecuteCoT"],
    supportedCoTVariations: ["standardCoT", "selfConsistency", "selfAsk", "treeOfThoughts_basic"],
    supportedPlanExecutionFeatures: {
      maxPlanDepth: 5,
      allowsToolIntegrationViaHost: true,
      allowsUserInputViaHost: true,
    },
    confidenceScoring: { supportedMethods: ["combined"], defaultMethod: "combined", returnsScore: true, formula: "f" },
    outputFormatsSupported: ["finalAnswerWithTrace", "detailedPlanWithPrompts"],
    methods: ["reasoning/executeTask", "reasoning/endSession"],
    tools: ["reasoning_execute_task", "reasoning_end_session"],
    limits: {
      maxIterations: 10,
      maxModelCalls: 40,
      maxGraphGrowth: 200,
      maxActiveSessions: 100,
      idleTimeoutMs: 1_800_000,
      selfConsistencySamples: 3,
      treeOfThoughts: { breadth: 2, depth: 2 },
    },
    ...overrides,
  };
}
