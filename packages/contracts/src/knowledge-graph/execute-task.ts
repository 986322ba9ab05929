import { z } from "zod";
import { publishAs } from "../published-form.ts";
import { pendingPromptSchema } from "../reasoning/needs-completion.ts";
import { derivationSchema, knowledgeSubgraphSchema, tripleSchema } from "./graph-shapes.ts";
import { hostFactsSchema, hostRulesSchema } from "./host-knowledge.ts";
import { availableToolsSchema, toolCallRequestSchema, toolResultSchema } from "./tool-interaction.ts";
import {
  confidenceMethodSchema,
  cotVariationSchema,
  epistemicStatusSchema,
  executeTaskStatusSchema,
  knowledgeGraphRequestLimits as limits,
  outputFormatSchema,
  reasoningTypeSchema,
} from "./vocabulary.ts";
import { lazySchema } from "../lazy-schema.ts";

const sessionIdPattern = /^[A-Za-z0-9][A-Za-z0-9._:-]*$/;

/** 100000 -> "100,000", without toLocaleString (whose first call loads locale data: ~20 ms at every start-up). */
function grouped(value: number): string {
  return String(value).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

/** A reasoning session id: chosen by the host (e.g. its own task id) or returned by the server. */
export const reasoningSessionIdSchema = lazySchema(() =>
  z
    .string()
    .min(1, "reasoningSessionId must not be empty")
    .max(limits.sessionIdLength, `reasoningSessionId is at most ${limits.sessionIdLength} characters`)
    .regex(
      sessionIdPattern,
      "reasoningSessionId is letters, digits, '.', '_', ':' or '-', starting with a letter or digit",
    ),
);

function contextText(what: string) {
  return z
    .string()
    .max(limits.contextTextLength, `${what} is at most ${grouped(limits.contextTextLength)} characters`)
    .nullish();
}

/** What the host knows that bears on the task (spec §1.2.2 `contextData`). */
export const contextDataSchema = lazySchema(() =>
  z.strictObject({
    historicalConversation: contextText("historicalConversation"),
    domainKnowledge: contextText("domainKnowledge").describe("Facts and premises, rules included"),
    availableTools: availableToolsSchema.nullish().describe("Tools the server may ask you to call"),
    currentPlanStep: contextText("currentPlanStep"),
    functionalPredicates: z
      .array(
        z
          .string()
          .min(1, "a functional predicate must not be empty")
          .max(80, "a functional predicate is at most 80 characters"),
      )
      .max(64, "at most 64 functionalPredicates")
      .nullish()
      .describe(
        "Relation types with at most one object per subject (e.g. born_in): a second object for one subject is a contradiction. Kept for the session",
      ),
    hostProvidedPriorReasoningSummary: publishAs(
      z.union([contextText("hostProvidedPriorReasoningSummary"), z.record(z.string(), z.unknown())]),
      contextText("hostProvidedPriorReasoningSummary"),
    )
      .nullish()
      .describe("Your summary of earlier cycles"),
    facts: hostFactsSchema.nullish(),
    rules: hostRulesSchema.nullish(),
  }),
);
export type ContextData = z.infer<typeof contextDataSchema>;

/** How the answer must be delivered. */
export const outputRequirementsSchema = lazySchema(() =>
  z.strictObject({
    format: outputFormatSchema.default("finalAnswerWithTrace"),
    maxSteps: z
      .number()
      .int("maxSteps is a whole number")
      .min(1, "maxSteps is at least 1")
      .max(limits.maxSteps, `maxSteps is at most ${limits.maxSteps}`)
      .nullish()
      .describe("Most reasoning steps in this call"),
    desiredConfidenceLevel: z
      .number()
      .min(0, "desiredConfidenceLevel is between 0 and 1")
      .max(1, "desiredConfidenceLevel is between 0 and 1")
      .nullish()
      .describe("Below it, more answers are sampled (self-consistency)"),
  }),
);
export type OutputRequirements = z.infer<typeof outputRequirementsSchema>;

/** The opaque, signed state of a session as the server returned it. */
export const sessionStateSchema = lazySchema(() =>
  z
    .union([
      z.strictObject({ token: z.string().min(1, "sessionState.token must not be empty") }),
      z.string().min(1, "sessionState must not be empty"),
    ])
    .describe("updatedSessionState of the last response, unchanged"),
);
export type SessionStateInput = z.infer<typeof sessionStateSchema>;

/** The `reasoning/executeTask` request (spec §1.2.2), plus toolResults and userInput for pending sessions. */
export const executeTaskRequestSchema = lazySchema(() =>
  z
    .strictObject({
      taskId: z
        .string()
        .trim()
        .min(1, "taskId must not be empty")
        .max(limits.taskIdLength, `taskId is at most ${limits.taskIdLength} characters`)
        .describe("Your id for this call (echoed)"),
      reasoningSessionId: reasoningSessionIdSchema
        .nullish()
        .describe(
          "Continue this session's graph (by id alone only for the caller it is bound to, else send sessionState); new if unknown or omitted",
        ),
      reasoningType: reasoningTypeSchema,
      goalQuery: z
        .string()
        .trim()
        .min(1, "goalQuery must not be empty")
        .max(limits.goalQueryLength, `goalQuery is at most ${grouped(limits.goalQueryLength)} characters`),
      contextData: contextDataSchema.nullish(),
      outputRequirements: outputRequirementsSchema.nullish(),
      preferredCoTVariation: z
        .string()
        .trim()
        .min(1, "preferredCoTVariation must not be empty")
        .max(100, "preferredCoTVariation is at most 100 characters")
        .nullish()
        .describe(`One of ${cotVariationSchema.options.join(", ")}; others fall back to standardCoT`),
      sessionState: sessionStateSchema.nullish(),
      toolResults: z
        .array(toolResultSchema)
        .min(1, "toolResults must not be empty; omit it instead")
        .max(limits.toolResults, `send at most ${limits.toolResults} tool results`)
        .nullish()
        .describe("Results for the last toolCallRequest"),
      userInput: z
        .string()
        .trim()
        .min(1, "userInput must not be empty")
        .max(limits.userInputLength, `userInput is at most ${grouped(limits.userInputLength)} characters`)
        .nullish()
        .describe("The user's answer to the last userInputRequest"),
    })
    .superRefine((request, context) => {
      const hasSession = request.reasoningSessionId != null || request.sessionState != null;
      if (request.toolResults != null && !hasSession) {
        context.addIssue({
          code: "custom",
          path: ["toolResults"],
          message: "toolResults answer a pending session: send reasoningSessionId or sessionState with them",
        });
      }
      if (request.userInput != null && !hasSession) {
        context.addIssue({
          code: "custom",
          path: ["userInput"],
          message: "userInput answers a pending session: send reasoningSessionId or sessionState with it",
        });
      }
      if (request.toolResults != null && request.userInput != null) {
        context.addIssue({
          code: "custom",
          path: ["userInput"],
          message: "a session waits for either a tool result or user input, not both; send one",
        });
      }
      if (request.toolResults != null) {
        const seen = new Set<string>();
        request.toolResults.forEach((result, index) => {
          if (seen.has(result.toolCallId))
            context.addIssue({
              code: "custom",
              path: ["toolResults", index, "toolCallId"],
              message: `'${result.toolCallId}' is answered twice`,
            });
          seen.add(result.toolCallId);
        });
      }
    }),
);
export type ExecuteTaskRequest = z.infer<typeof executeTaskRequestSchema>;
export type ExecuteTaskRequestInput = z.input<typeof executeTaskRequestSchema>;

/** The opaque, signed handle the host passes back as `sessionState`. */
export const updatedSessionStateSchema = lazySchema(() =>
  z.object({
    token: z.string().describe("Opaque; signed by the server. Send the whole object back as sessionState"),
  }),
);
export type UpdatedSessionState = z.infer<typeof updatedSessionStateSchema>;

/**
 * A failure of the reasoning itself (status `failed`): nothing came of the
 * graph (EXTRACTION_EMPTY) or the model or its provider failed during the task
 * (PROVIDER_UNAVAILABLE, PROVIDER_TIMEOUT, MODEL_OUTPUT_INVALID, ...). Caller
 * mistakes are errors of the call instead.
 */
export const executeTaskErrorSchema = lazySchema(() =>
  z.object({
    code: z.number().int().describe("Stable numeric code"),
    reason: z.string().describe("Stable name of the code, e.g. EXTRACTION_EMPTY or PROVIDER_UNAVAILABLE"),
    message: z.string(),
    details: z.string().nullable(),
    retryable: z
      .boolean()
      .default(false)
      .describe("True when the same call may succeed if sent again (a transient provider failure)"),
  }),
);
export type ExecuteTaskError = z.infer<typeof executeTaskErrorSchema>;

/** Something the server did differently from what was asked, and why. */
export const noticeSchema = lazySchema(() =>
  z.object({
    field: z.string().nullable().describe("The request field concerned, when there is one"),
    message: z.string(),
  }),
);
export type Notice = z.infer<typeof noticeSchema>;

export const planStepKindSchema = lazySchema(() => z.enum(["induce", "deduce", "abduce", "toolCall", "askUser"]));
export type PlanStepKind = z.infer<typeof planStepKindSchema>;

/** One step of a plan (planAndExecuteCoT). */
export const planStepSchema = lazySchema(() =>
  z.object({
    index: z.number().int(),
    kind: planStepKindSchema,
    purpose: z.string(),
    status: z.enum(["pending", "done", "waiting", "not_reached"]),
    toolName: z.string().nullable(),
    toolArguments: z.record(z.string(), z.unknown()).nullable(),
    question: z.string().nullable(),
  }),
);
export type PlanStep = z.infer<typeof planStepSchema>;

export const planSchema = lazySchema(() =>
  z.object({
    goal: z.string(),
    maxPlanDepth: z.number().int(),
    steps: z.array(planStepSchema),
  }),
);
export type Plan = z.infer<typeof planSchema>;

/** One step of the reasoning trace. */
export const traceStepSchema = lazySchema(() =>
  z.object({
    index: z.number().int(),
    kind: z
      .string()
      .describe(
        "seed, hostData, extract, resolve, induce, deduce, abduce, plan, toolCall, toolResult, askUser, userInput, selfAsk, thoughts, answer",
      ),
    summary: z.string(),
    addedEntities: z.array(z.string()),
    addedRelations: z.array(tripleSchema),
  }),
);
export type TraceStep = z.infer<typeof traceStepSchema>;

export const scoredHypothesisSchema = lazySchema(() =>
  z.object({
    name: z.string(),
    explanation: z.string(),
    additions: z.array(tripleSchema),
    newElements: z.number().int(),
    coverage: z.number(),
    simplicity: z.number(),
    consistency: z.number(),
    score: z.number(),
    contradictions: z.array(tripleSchema),
    refusedBy: z
      .array(tripleSchema)
      .describe("Asserted or derived facts the hypothesis contradicts: such a hypothesis is refused (score 0)"),
    selected: z.boolean(),
  }),
);

export const confidenceReportSchema = lazySchema(() =>
  z.object({
    method: confidenceMethodSchema,
    score: z.number().min(0).max(1),
    formula: z.string(),
    components: z.object({
      verbalizedConfidence: z.number().nullable(),
      consistency: z.number().nullable(),
      graphSupport: z.number().nullable(),
      basis: z
        .number()
        .nullable()
        .describe(
          "How strongly the reasoning steps established the answer, checked in code (1 for a proof from asserted facts)",
        ),
    }),
    basis: z
      .object({
        kind: z.enum(["proof", "derived_from_hypothesis", "abduction", "induction", "not_derivable"]),
        score: z.number(),
        description: z.string(),
      })
      .nullable()
      .describe("What the reasoning steps established in code, when they established anything"),
    restsOn: epistemicStatusSchema
      .nullable()
      .describe(
        "The weakest status among the cited facts the graph supports and the basis: asserted, derived (a proof), hypothetical or derived_from_hypothesis",
      ),
    supportingFacts: z.array(tripleSchema),
    contradictedFacts: z.array(tripleSchema),
    unsupportedFacts: z.array(tripleSchema),
    desiredConfidenceLevel: z.number().nullable(),
    targetMet: z.boolean().nullable(),
  }),
);
export type ConfidenceReport = z.infer<typeof confidenceReportSchema>;

/** How the server reasoned: steps, derivations, hypotheses and the relevant subgraph. */
export const reasoningTraceSchema = lazySchema(() =>
  z.object({
    reasoningType: reasoningTypeSchema,
    cotVariation: z.object({ requested: z.string().nullable(), used: cotVariationSchema }),
    steps: z.array(traceStepSchema),
    derivations: z.array(z.object({ triple: tripleSchema, derivation: derivationSchema })),
    pathValidation: z
      .object({
        from: z.string(),
        to: z.string(),
        predicates: z.array(z.string()).nullable(),
        valid: z.boolean(),
        path: z.array(tripleSchema),
        reason: z.string(),
      })
      .nullable(),
    hypotheses: z.array(scoredHypothesisSchema),
    selfConsistency: z
      .object({
        samples: z.number().int(),
        agreement: z.number(),
        clusters: z.array(z.object({ answer: z.string(), size: z.number().int() })),
      })
      .nullable(),
    subQuestions: z.array(z.object({ question: z.string(), source: z.string(), answer: z.string().nullable() })),
    thoughts: z.array(z.object({ depth: z.number().int(), thought: z.string(), score: z.number(), kept: z.boolean() })),
    confidence: confidenceReportSchema.nullable(),
    subgraph: knowledgeSubgraphSchema,
    budget: z.object({
      iterations: z.number().int(),
      maxIterations: z.number().int(),
      modelCalls: z.number().int(),
      maxModelCalls: z.number().int(),
      graphGrowth: z.number().int(),
      maxGraphGrowth: z.number().int(),
      chaining: z
        .object({
          factsExamined: z.number().int().describe("Candidate facts tried against rule conditions"),
          ruleFirings: z.number().int().describe("Complete matches of a rule's conditions"),
          factsDerived: z.number().int(),
          incremental: z
            .boolean()
            .describe(
              "True when chaining started from what changed since the graph was last closed under the same rules",
            ),
        })
        .nullable()
        .describe("The work forward chaining did in this call: it follows what changed, not the size of the graph"),
    }),
  }),
);
export type ReasoningTrace = z.infer<typeof reasoningTraceSchema>;

/** The `result` of a response: the answer and trace, or the plan and prompts. */
export const executeTaskResultSchema = lazySchema(() =>
  z.object({
    reasonedAnswer: z.string().nullable(),
    reasoningTrace: reasoningTraceSchema.nullable(),
    confidenceScore: z.number().min(0).max(1).nullable(),
    confidenceMethod: confidenceMethodSchema.nullable(),
    plan: planSchema.nullable(),
    promptsToExecute: z
      .array(z.string())
      .nullable()
      .describe("detailedPlanWithPrompts: one self-contained prompt per remaining step, for the host's model"),
    promptDetails: z
      .array(pendingPromptSchema.extend({ step: z.number().int() }))
      .nullable()
      .describe("The same prompts split into system, user and the JSON Schema of the answer, as in needs_completion"),
  }),
);
export type ExecuteTaskResult = z.infer<typeof executeTaskResultSchema>;

/** The `reasoning/executeTask` response (spec §1.2.2), camelCase. */
export const executeTaskResponseSchema = lazySchema(() =>
  z.object({
    taskId: z.string(),
    reasoningSessionId: z.string().nullable(),
    status: executeTaskStatusSchema,
    result: executeTaskResultSchema.nullable(),
    toolCallRequest: toolCallRequestSchema.nullable(),
    userInputRequest: z.string().nullable(),
    error: executeTaskErrorSchema.nullable(),
    updatedSessionState: updatedSessionStateSchema.nullable(),
    sessionExpiresAt: z
      .string()
      .nullable()
      .default(null)
      .describe("When the session expires unless called again (idle timeout); null when no session was kept"),
    notices: z.array(noticeSchema),
  }),
);
export type ExecuteTaskResponse = z.infer<typeof executeTaskResponseSchema>;
