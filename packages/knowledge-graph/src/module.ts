import { endSessionTool, executeTaskTool, knowledgeGraphMethods } from "@deliberate/contracts";
import { defineModule, handlerDefinerFor, type InvocationFields } from "@deliberate/engine";
import { buildReasoningCapability } from "./capabilities.ts";
import { abductionModeDeclaration } from "./modes/abduction.mode.ts";
import { answerModeDeclaration, sampleModeDeclaration } from "./modes/answer.mode.ts";
import { deductionModeDeclaration } from "./modes/deduction.mode.ts";
import { extractionModeDeclaration } from "./modes/extraction.mode.ts";
import { inductionModeDeclaration } from "./modes/induction.mode.ts";
import { planModeDeclaration } from "./modes/plan.mode.ts";
import { resolutionModeDeclaration } from "./modes/resolution.mode.ts";
import { selfAskModeDeclaration } from "./modes/self-ask.mode.ts";
import { thoughtsModeDeclaration } from "./modes/thoughts.mode.ts";

/** The module's modes, each declared with its default settings where it is defined (the engine layers environment and runtime overrides on top). */
export const knowledgeGraphModes = [
  extractionModeDeclaration,
  resolutionModeDeclaration,
  inductionModeDeclaration,
  deductionModeDeclaration,
  abductionModeDeclaration,
  planModeDeclaration,
  answerModeDeclaration,
  sampleModeDeclaration,
  selfAskModeDeclaration,
  thoughtsModeDeclaration,
] as const;
import { endSession } from "./orchestrator/end-session.ts";
import { executeTask } from "./orchestrator/execute-task.ts";
import { defaultKnowledgeGraphOptions, type KnowledgeGraphOptions } from "./orchestrator/options.ts";
import type { KnowledgeGraphRepositories } from "./orchestrator/reasoning-run.ts";
import { knowledgeGraphSection } from "./session-section.ts";
import { knowledgeGraphStore } from "./store/contribution.ts";

const defineHandler = handlerDefinerFor<KnowledgeGraphRepositories>();

/**
 * The knowledge-graph module: `reasoning_execute_task` and
 * `reasoning_end_session` (also served as the protocol methods
 * `reasoning/executeTask` and `reasoning/endSession`), its modes, tables,
 * the `knowledgeGraph` session section, the idle-expiry task and the
 * `reasoning` capability object generated from what is implemented.
 */
/** Invocation rows name the reasoning session and the answer's confidence (camelCase wire fields). */
const knowledgeGraphRecording: InvocationFields = {
  sessionId: (input, output) => {
    const id = output?.["reasoningSessionId"] ?? input["reasoningSessionId"];
    return typeof id === "string" ? id : undefined;
  },
  quality: (output) => {
    const result = output["result"] as { confidenceScore?: unknown } | undefined;
    return typeof result?.confidenceScore === "number" ? result.confidenceScore : undefined;
  },
};

export function createKnowledgeGraphModule(overrides: Partial<KnowledgeGraphOptions> = {}) {
  const options: KnowledgeGraphOptions = {
    ...defaultKnowledgeGraphOptions,
    ...overrides,
    treeOfThoughts: { ...defaultKnowledgeGraphOptions.treeOfThoughts, ...overrides.treeOfThoughts },
  };
  return defineModule<KnowledgeGraphRepositories>({
    name: "knowledge-graph",
    tools: [
      defineHandler(executeTaskTool, (input, context) => executeTask(input, context, options), knowledgeGraphRecording),
      defineHandler(endSessionTool, (input, context) => endSession(input, context, options), knowledgeGraphRecording),
    ],
    modes: knowledgeGraphModes,
    ...knowledgeGraphStore,
    sessionSections: [knowledgeGraphSection],
    methods: [
      { method: knowledgeGraphMethods.executeTask, tool: executeTaskTool.name },
      { method: knowledgeGraphMethods.endSession, tool: endSessionTool.name },
    ],
    tasks: [
      {
        name: "knowledge-graph-idle-expiry",
        intervalMs: 60_000,
        async run({ store, now }) {
          await store.knowledgeGraph.expireIdleSessions({
            idleCutoff: new Date(now.getTime() - options.idleTimeoutMs).toISOString(),
            now: now.toISOString(),
          });
        },
      },
    ],
    capabilities: { reasoning: buildReasoningCapability(options) },
  });
}

/** The module with the default options (a database-kept signing key, 30-minute idle timeout, 100 sessions). */
export const knowledgeGraphModule = createKnowledgeGraphModule();
