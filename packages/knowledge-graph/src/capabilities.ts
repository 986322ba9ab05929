import {
  type CoTVariation,
  type ConfidenceMethod,
  endSessionTool,
  executeTaskTool,
  knowledgeGraphMethods,
  type OutputFormat,
  type ReasoningCapability,
  type ReasoningType,
} from "@deliberate/contracts";
import { confidenceFormula } from "./algorithms/confidence.ts";
import { type KnowledgeGraphOptions, reasoningCapabilityVersion } from "./orchestrator/options.ts";

/**
 * What is implemented, one entry per implementation: the capability object is
 * generated from these, so it cannot list what the code does not do. (The
 * `satisfies` clauses make the compiler check every listed value is a real one.)
 */
export const implemented = {
  reasoningTypes: {
    inductive: "patterns across entities become abstract nodes (induce)",
    deductive: "explicit rules applied by forward chaining; paths validated by graph search (deduce)",
    abductive: "2-3 hypotheses scored in code on coverage, simplicity, consistency (abduce)",
    planAndExecuteCoT: "a plan of graph operations, host tool calls and user questions",
  } satisfies Record<ReasoningType, string>,
  cotVariations: {
    standardCoT: "one answer with its steps",
    selfConsistency: "n samples concurrently; agreement in code",
    selfAsk: "sub-questions answered from the graph, by host tools or by the user",
    treeOfThoughts_basic: "bounded breadth and depth; thoughts scored in code",
  } satisfies Record<CoTVariation, string>,
  confidenceMethods: [
    "verbalizedConfidence",
    "selfConsistency",
    "graphSupport",
    "combined",
  ] satisfies ConfidenceMethod[],
  outputFormats: {
    finalAnswerWithTrace: "the answer with a trace that includes the relevant subgraph",
    detailedPlanWithPrompts: "the plan with the prompts of its steps for the host's model",
  } satisfies Record<OutputFormat, string>,
} as const;

/** The `reasoning` capability object (spec §1.2.1) for these options. */
export function buildReasoningCapability(options: KnowledgeGraphOptions): ReasoningCapability {
  return {
    version: reasoningCapabilityVersion,
    serverName: options.serverName,
    supportedReasoningTypes: Object.keys(implemented.reasoningTypes) as ReasoningType[],
    supportedCoTVariations: Object.keys(implemented.cotVariations) as CoTVariation[],
    supportedPlanExecutionFeatures: {
      maxPlanDepth: options.maxPlanDepth,
      allowsToolIntegrationViaHost: true,
      allowsUserInputViaHost: true,
    },
    confidenceScoring: {
      supportedMethods: [...implemented.confidenceMethods],
      defaultMethod: "combined",
      returnsScore: true,
      formula: confidenceFormula,
    },
    outputFormatsSupported: Object.keys(implemented.outputFormats) as OutputFormat[],
    methods: [knowledgeGraphMethods.executeTask, knowledgeGraphMethods.endSession],
    tools: [executeTaskTool.name, endSessionTool.name],
    limits: {
      maxIterations: options.maxIterations,
      maxModelCalls: options.maxModelCalls,
      maxGraphGrowth: options.maxGraphGrowth,
      maxActiveSessions: options.maxActiveSessions,
      idleTimeoutMs: options.idleTimeoutMs,
      selfConsistencySamples: options.selfConsistencySamples,
      treeOfThoughts: { ...options.treeOfThoughts },
    },
    ...(options.documentationUrl ? { documentationUrl: options.documentationUrl } : {}),
  };
}
