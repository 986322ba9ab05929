import {
  type ExecuteTaskRequestInput,
  type ExecuteTaskResponse,
  endSessionTool,
  executeTaskTool,
  knowledgeGraphMethods,
  type ReasoningType,
} from "@deliberate/contracts";
import { DeliberateClientError, isClientError } from "../errors.ts";
import { reasoningVia } from "../reasoning-operations.ts";
import { anySignal, timeoutSignal } from "../signals.ts";
import { type CoordinatorContext, sessionKey } from "./coordinator-context.ts";
import type {
  CoordinatorOutcome,
  CoordinatorRequest,
  InvocationDecision,
  ReasoningSessionRecord,
} from "./coordinator-types.ts";
import { fallbackAction, failureOf, type ReasoningFailure } from "./fallback.ts";
import { Fallback, failureFrom } from "./fallback-error.ts";
import { endSession } from "./end-session.ts";
import { checkGates, routeOf } from "./gates.ts";
import { continueKept, continueOrRestart, endOrKeep } from "./kept-sessions.ts";
import { watchLiveness } from "./liveness.ts";
import { finalize, finish, runStandard, save, standardOutcome } from "./outcomes.ts";
import { serverConfidence, userInputPrompt } from "./presentation.ts";
import { refinementSummary } from "./refinement.ts";
import { type GateResult, type StandardAnswer, shouldEscalate } from "./routing.ts";

// One reasoning interaction (§1.3.3-1.3.4): the requests (each bounded, with a liveness watch on the server), the
// statuses, the refinement loop that keeps the original question, host tools, the user's answers, the fallback
// matrix and endSession.

/** One step of the interaction: a response, or the failure of a call made with an answer already in hand. */
type Step = (call: () => Promise<ExecuteTaskResponse>) => Promise<ExecuteTaskResponse | { failed: ReasoningFailure }>;

/** One reasoning request: bounded by `callTimeoutMs`, and given up within the liveness bound if the server goes silent. */
export async function execute(
  c: CoordinatorContext,
  record: ReasoningSessionRecord,
  call: Partial<ExecuteTaskRequestInput>,
  signal: AbortSignal,
): Promise<ExecuteTaskResponse> {
  const capability = record.decision.capability?.capability ?? null;
  const contextData: NonNullable<ExecuteTaskRequestInput["contextData"]> = {
    ...(record.request.history !== undefined ? { historicalConversation: record.request.history } : {}),
    ...(record.request.domainKnowledge !== undefined ? { domainKnowledge: record.request.domainKnowledge } : {}),
    ...(c.offeredTools.length > 0 ? { availableTools: c.offeredTools } : {}),
    ...(call.contextData ?? {}),
  };
  const taskId =
    record.status === "INITIAL_CALL_AWAITING_MCP" && record.latestSessionState === null
      ? record.reasoningSessionId
      : c.newId();
  const request: ExecuteTaskRequestInput = {
    taskId,
    reasoningSessionId: record.reasoningSessionId,
    reasoningType: record.reasoningType,
    goalQuery: record.currentGoal,
    ...(Object.keys(contextData).length > 0 ? { contextData } : {}),
    outputRequirements: {
      format: "finalAnswerWithTrace",
      ...(c.options.maxSteps !== undefined ? { maxSteps: c.options.maxSteps } : {}),
      ...(c.options.desiredConfidenceLevel !== undefined
        ? { desiredConfidenceLevel: c.options.desiredConfidenceLevel }
        : {}),
    },
    ...(record.cotVariation !== null && capability?.supportedCoTVariations.includes(record.cotVariation)
      ? { preferredCoTVariation: record.cotVariation }
      : {}),
    ...(record.latestSessionState !== null ? { sessionState: record.latestSessionState } : {}),
    ...(call.toolResults ? { toolResults: call.toolResults } : {}),
    ...(call.userInput ? { userInput: call.userInput } : {}),
  };
  // The request's own deadline is kept here too, not only by the transport (a host's transport may not keep it).
  const callDeadline = timeoutSignal(c.bounds.callMs);
  const callSignal = anySignal([signal, callDeadline.signal]);
  const watch = watchLiveness({
    ping: (pingOptions) => c.client.transport.ping(pingOptions),
    intervalMs: c.bounds.livenessIntervalMs,
    pingTimeoutMs: c.bounds.healthCheckMs,
    parent: callSignal.signal,
  });
  c.emit({ type: "phase", phase: "request", status: "started", deadlineMs: c.bounds.callMs });
  let response: ExecuteTaskResponse;
  try {
    response = await c.client.reasoning.executeTask(request, {
      via: record.via.executeTask,
      signal: watch.signal,
      timeoutMs: c.bounds.callMs,
    });
  } catch (error) {
    const stall = watch.stalled();
    if (stall) {
      c.emit({
        type: "phase",
        phase: "liveness",
        status: "timed_out",
        deadlineMs: c.bounds.livenessIntervalMs + c.bounds.healthCheckMs,
        detail: stall.detail,
      });
      throw new Fallback(stall.kind, stall.detail, stall.kind === "timeout" ? "TIMEOUT" : "CONNECTION_FAILED", {
        phase: "liveness",
        deadlineMs: c.bounds.livenessIntervalMs + c.bounds.healthCheckMs,
      });
    }
    if ((callDeadline.timedOut() || isClientError(error, "TIMEOUT")) && !signal.aborted) {
      c.emit({
        type: "phase",
        phase: "request",
        status: "timed_out",
        deadlineMs: c.bounds.callMs,
        detail: error instanceof Error ? error.message : String(error),
      });
      throw new Fallback("timeout", `no answer to reasoning/executeTask within ${c.bounds.callMs} ms`, "TIMEOUT", {
        phase: "request",
        deadlineMs: c.bounds.callMs,
      });
    }
    c.emit({
      type: "phase",
      phase: "request",
      status: "failed",
      deadlineMs: c.bounds.callMs,
      detail: error instanceof Error ? error.message : String(error),
    });
    throw error;
  } finally {
    watch.stop();
    callDeadline.clear();
    callSignal.dispose();
  }
  c.emit({ type: "phase", phase: "request", status: "ok", deadlineMs: c.bounds.callMs });
  if (response.taskId !== taskId)
    throw new Fallback("malformed", `the response is for task ${response.taskId}, not ${taskId}`, "MALFORMED_RESPONSE");
  if (response.reasoningSessionId !== null) record.reasoningSessionId = response.reasoningSessionId;
  if (response.updatedSessionState !== null) record.latestSessionState = response.updatedSessionState;
  return response;
}

/** After a completed answer: refine it (a follow-up question), or conclude (synthesising from the follow-ups, if any). */
export async function afterCompleted(
  c: CoordinatorContext,
  record: ReasoningSessionRecord,
  response: ExecuteTaskResponse,
  signal: AbortSignal,
  step: Step,
): Promise<ExecuteTaskResponse | { failed: ReasoningFailure } | CoordinatorOutcome> {
  const answer = response.result?.reasonedAnswer as string;
  const answersTheQuery = record.currentGoal === record.request.query;
  if (record.synthesizing) return finalize(c, record, response, signal);
  if (answersTheQuery) record.lastCompleted = response;
  else record.findings.push({ question: record.currentGoal, answer, confidence: serverConfidence(response) });
  const inHand = record.lastCompleted as ExecuteTaskResponse;
  let followUp: string | null = null;
  if (c.options.critique && record.refinementCycleCount < c.maxRefinementCycles) {
    record.status = "PERFORMING_QA_REFINEMENT_CYCLE";
    await save(c, record);
    const verdict = await c.options.critique({
      query: record.request.query,
      answer: inHand.result?.reasonedAnswer as string,
      confidence: serverConfidence(inHand),
      trace: inHand.result?.reasoningTrace ?? null,
      cycle: record.refinementCycleCount,
      findings: [...record.findings],
      signal,
    });
    if (verdict && "followUp" in verdict && verdict.followUp.trim() !== "") followUp = verdict.followUp.trim();
  }
  const history = [record.request.history, `User: ${record.request.query}`].filter(Boolean).join("\n");
  const summaryOf = (synthesis: boolean) =>
    refinementSummary({
      query: record.request.query,
      answer: inHand.result?.reasonedAnswer as string,
      findings: record.findings,
      synthesis,
    });
  if (followUp !== null) {
    record.refinementCycleCount += 1;
    record.refinements.push(followUp);
    record.currentGoal = followUp;
    record.status = "AWAITING_MCP_DURING_REFINEMENT";
    await save(c, record);
    c.emit({
      type: "progress",
      reasoningSessionId: record.reasoningSessionId,
      stage: "refinement",
      detail: followUp,
      cycle: record.refinementCycleCount,
    });
    return step(() =>
      execute(
        c,
        record,
        { contextData: { historicalConversation: history, hostProvidedPriorReasoningSummary: summaryOf(false) } },
        signal,
      ),
    );
  }
  if (record.findings.length === 0) return finalize(c, record, inHand, signal);
  // The follow-ups answered other questions: the final answer is the original question's, synthesised from them.
  record.synthesizing = true;
  record.currentGoal = record.request.query;
  record.status = "AWAITING_MCP_DURING_REFINEMENT";
  await save(c, record);
  c.emit({
    type: "progress",
    reasoningSessionId: record.reasoningSessionId,
    stage: "synthesis",
    detail: `answering the original question from ${record.findings.length} follow-up finding(s)`,
  });
  return step(() =>
    execute(
      c,
      record,
      { contextData: { historicalConversation: history, hostProvidedPriorReasoningSummary: summaryOf(true) } },
      signal,
    ),
  );
}

/** Runs the tool the server asked for (or refuses it back to the server) and continues the task with the result. */
export async function runTool(
  c: CoordinatorContext,
  record: ReasoningSessionRecord,
  response: ExecuteTaskResponse,
  signal: AbortSignal,
  step: Step,
) {
  const request = response.toolCallRequest;
  if (!request) throw new Fallback("malformed", "pending_tool_call without a toolCallRequest", "MALFORMED_RESPONSE");
  if (!c.options.executeTool)
    throw new Fallback("failed", `the server asked for the tool ${request.toolName}, but the host runs no tools`);
  if (record.toolCalls >= c.maxToolCalls)
    throw new Fallback("max_iterations", `more than ${c.maxToolCalls} tool calls`);
  record.toolCalls += 1;
  record.status = "AWAITING_TOOL_RESULT";
  record.pendingToolCall = request;
  await save(c, record);
  c.emit({
    type: "progress",
    reasoningSessionId: record.reasoningSessionId,
    stage: "tool_call",
    detail: `running ${request.toolName}`,
  });
  let result: unknown;
  let isError = false;
  if (!c.offeredTools.some((tool) => tool.name === request.toolName)) {
    result = `The tool '${request.toolName}' was not offered; available: ${c.offeredTools.map((tool) => tool.name).join(", ") || "none"}.`;
    isError = true;
  } else {
    try {
      result = await c.options.executeTool(request, { reasoningSessionId: record.reasoningSessionId, signal });
    } catch (error) {
      if (signal.aborted) throw error;
      result = error instanceof Error ? error.message : String(error);
      isError = true;
    }
  }
  c.emit({
    type: "progress",
    reasoningSessionId: record.reasoningSessionId,
    stage: "tool_result",
    detail: `${request.toolName} ${isError ? "failed" : "answered"}`,
  });
  record.pendingToolCall = null;
  record.status = record.lastCompleted ? "AWAITING_MCP_DURING_REFINEMENT" : "INITIAL_CALL_AWAITING_MCP";
  return step(() =>
    execute(
      c,
      record,
      {
        toolResults: [
          { toolCallId: request.toolCallId, result: result ?? null, ...(isError ? { isError: true } : {}) },
        ],
      },
      signal,
    ),
  );
}

/**
 * Follows responses until an outcome: tool calls run and continue, completed
 * answers are refined, a question for the user suspends. A failure after an
 * answer to the original question is in hand finalizes with that answer.
 */
export async function follow(
  c: CoordinatorContext,
  record: ReasoningSessionRecord,
  first: () => Promise<ExecuteTaskResponse>,
  signal: AbortSignal,
  hostSignal: AbortSignal | undefined,
): Promise<CoordinatorOutcome> {
  const step: Step = async (call) => {
    try {
      return await call();
    } catch (error) {
      // No answer in hand yet (or the host gave up): the fallback matrix decides, above.
      if (record.lastCompleted === null || hostSignal?.aborted) throw error;
      return {
        failed:
          signal.aborted && !(error instanceof Fallback)
            ? failureOf("timeout", `no outcome within ${c.bounds.turnMs} ms`, "TIMEOUT", {
                phase: "turn",
                deadlineMs: c.bounds.turnMs,
              })
            : failureFrom(error),
      };
    }
  };
  let next = await step(first);
  for (;;) {
    if ("failed" in next)
      return finalize(c, record, record.lastCompleted as ExecuteTaskResponse, signal, {
        refinementFailure: next.failed,
      });
    const response = next;
    switch (response.status) {
      case "pending_tool_call":
        next = await runTool(c, record, response, signal, step);
        continue;
      case "pending_user_input": {
        const question = response.userInputRequest;
        if (!question)
          throw new Fallback("malformed", "pending_user_input without a userInputRequest", "MALFORMED_RESPONSE");
        record.status = "AWAITING_USER_INPUT";
        record.pendingUserInput = question;
        await save(c, record);
        c.emit({
          type: "progress",
          reasoningSessionId: record.reasoningSessionId,
          stage: "user_input",
          detail: question,
        });
        return {
          kind: "needs_user_input",
          question,
          text: userInputPrompt(question),
          reasoningSessionId: record.reasoningSessionId,
          decision: record.decision,
        };
      }
      case "failed": {
        const detail = response.error
          ? `${response.error.reason} (${response.error.code}): ${response.error.message}`
          : "the task failed";
        if (record.lastCompleted)
          return finalize(c, record, record.lastCompleted, signal, { refinementFailure: failureOf("failed", detail) });
        throw new Fallback("failed", detail, response.error?.reason);
      }
      case "max_iterations_reached": {
        const failure = failureOf("max_iterations", "the server reached its iteration limit");
        // A partial answer to a follow-up answers another question: the answer in hand is the original question's.
        const answersTheQuery = record.currentGoal === record.request.query;
        const partial = answersTheQuery && response.result?.reasonedAnswer ? response : record.lastCompleted;
        if (partial)
          return finalize(c, record, partial, signal, answersTheQuery ? { failure } : { refinementFailure: failure });
        throw new Fallback("max_iterations", "the server reached its iteration limit with no answer");
      }
      case "completed": {
        if (!response.result?.reasonedAnswer)
          throw new Fallback("malformed", "the completed response has no reasonedAnswer", "MALFORMED_RESPONSE");
        const after = await afterCompleted(c, record, response, signal, step);
        if ("kind" in after) return after;
        next = after;
        continue;
      }
    }
  }
}

/** Runs the reasoning part of a query (first call, or a resumption) with the turn's deadline, the fallback matrix and endSession. */
export async function reason(
  c: CoordinatorContext,
  record: ReasoningSessionRecord,
  first: (signal: AbortSignal) => Promise<ExecuteTaskResponse>,
  hostSignal: AbortSignal | undefined,
  standardInHand: StandardAnswer | null,
  started: number,
): Promise<CoordinatorOutcome> {
  const deadline = timeoutSignal(c.bounds.turnMs);
  const combined = anySignal([hostSignal, deadline.signal]);
  let outcome: CoordinatorOutcome;
  let serverSilent = false;
  try {
    outcome = await follow(c, record, () => first(combined.signal), combined.signal, hostSignal);
  } catch (error) {
    if (hostSignal?.aborted) {
      deadline.clear();
      combined.dispose();
      await endSession(c, record, true);
      throw isClientError(error)
        ? error
        : new DeliberateClientError({
            code: "ABORTED",
            message: "The reasoning interaction was aborted.",
            cause: error,
          });
    }
    if (deadline.timedOut()) c.emit({ type: "phase", phase: "turn", status: "timed_out", deadlineMs: c.bounds.turnMs });
    const failure = deadline.timedOut()
      ? failureOf("timeout", `no outcome within ${c.bounds.turnMs} ms`, "TIMEOUT", {
          phase: "turn",
          deadlineMs: c.bounds.turnMs,
        })
      : failureFrom(error);
    serverSilent = failure.kind === "timeout" || failure.kind === "connection";
    outcome = await fallback(c, record, failure, combined.signal, hostSignal, standardInHand);
  } finally {
    deadline.clear();
    combined.dispose();
  }
  // endSession is always attempted at the end (a session waiting for the user is not at its end, and a conversation
  // may keep its session for its next turn); after a timeout or a lost connection it is not waited for, so a silent
  // server does not delay the answer.
  if (outcome.kind !== "needs_user_input") await endOrKeep(c, record, outcome, serverSilent);
  return finish(c, outcome, started);
}

/** The matrix's row for a failure with no outcome yet: the answer in hand if there is one, else the standard approach. */
export async function fallback(
  c: CoordinatorContext,
  record: ReasoningSessionRecord,
  failure: ReasoningFailure,
  signal: AbortSignal,
  hostSignal: AbortSignal | undefined,
  standardInHand: StandardAnswer | null,
): Promise<CoordinatorOutcome> {
  if (record.lastCompleted) {
    // An answer in hand beats the standard approach: present it, noting what went wrong after it.
    const present =
      fallbackAction(failure.kind, true) === "present_answer_in_hand" ? { failure } : { refinementFailure: failure };
    try {
      return await finalize(c, record, record.lastCompleted, signal, present);
    } catch {
      // The answer in hand is unusable after all: the standard approach.
    }
  }
  return standardOutcome(c, record.request, record.decision, hostSignal, failure, standardInHand);
}

export function newRecord(
  c: CoordinatorContext,
  request: CoordinatorRequest,
  decision: InvocationDecision,
  reasoningType: ReasoningType,
): ReasoningSessionRecord {
  const { signal: _signal, ...stored } = request;
  const capability = decision.capability?.capability ?? null;
  const id = c.newId();
  return {
    reasoningSessionId: id,
    request: stored,
    reasoningType,
    via: {
      executeTask: reasoningVia(capability, knowledgeGraphMethods.executeTask, executeTaskTool.name),
      endSession: reasoningVia(capability, knowledgeGraphMethods.endSession, endSessionTool.name),
    },
    cotVariation: c.options.preferredCoTVariation ?? null,
    status: "INITIAL_CALL_AWAITING_MCP",
    currentGoal: request.query,
    synthesizing: false,
    latestSessionState: null,
    refinementCycleCount: 0,
    refinements: [],
    findings: [],
    toolCalls: 0,
    lastCompleted: null,
    pendingToolCall: null,
    pendingUserInput: null,
    decision,
    createdAt: c.now(),
    updatedAt: c.now(),
  };
}

export async function handle(c: CoordinatorContext, request: CoordinatorRequest): Promise<CoordinatorOutcome> {
  const started = c.now();
  const { analysis, routed, previous } = await routeOf(c, request);
  const announce = (decision: InvocationDecision) =>
    c.emit({
      type: "decided",
      route: decision.route,
      score: decision.analysis.score,
      reasoningType: decision.selection?.type ?? null,
      reasons: [decision.routeReason, ...(decision.selection?.reasons ?? [])],
    });
  const plain = (gate: GateResult, routeReason: string): InvocationDecision => ({
    route: "standard",
    routeReason,
    gate,
    analysis,
    selection: null,
    capability: null,
  });
  if (c.options.enabled === false || routed.route === "standard") {
    const decision =
      c.options.enabled === false
        ? plain(
            { passed: false, gate: "disabled", detail: "advanced reasoning is disabled for this agent" },
            "gate: disabled",
          )
        : plain({ passed: true }, routed.reason);
    announce(decision);
    return finish(c, await standardOutcome(c, request, decision, request.signal), started);
  }
  // Tiered: the standard answer first; the server is asked nothing unless that answer is weak (§1.3.1 step 3).
  let standardInHand: StandardAnswer | null = null;
  if (routed.route === "tiered") {
    standardInHand = await runStandard(c, request, request.signal);
    const escalation = standardInHand
      ? shouldEscalate(standardInHand, c.policy)
      : { escalate: true, reason: null, detail: "the standard attempt failed" };
    if (!escalation.escalate && standardInHand) {
      const decision = {
        ...plain(
          { passed: "not_checked", detail: "the standard answer stood" },
          `${routed.reason}; ${escalation.detail}`,
        ),
        route: "tiered" as const,
      };
      announce(decision);
      return finish(c, await standardOutcome(c, request, decision, request.signal, undefined, standardInHand), started);
    }
  }
  const decision = await checkGates(c, request, analysis, routed);
  announce(decision);
  if (decision.route === "standard" || !decision.selection?.type)
    return finish(c, await standardOutcome(c, request, decision, request.signal, undefined, standardInHand), started);
  const record = newRecord(c, request, decision, decision.selection.type);
  const kept = await continueKept(c, record);
  await save(c, record);
  c.emit({
    type: "invoked",
    reasoningSessionId: record.reasoningSessionId,
    reasoningType: record.reasoningType,
    route: decision.route,
    serverName: decision.capability?.capability?.serverName ?? null,
  });
  const followUp =
    decision.analysis.reasons.some((reason) => reason.signal === "follow_up") && previous.lastAnswer !== null;
  const call: Partial<ExecuteTaskRequestInput> = followUp
    ? { contextData: { hostProvidedPriorReasoningSummary: previous.lastAnswer } }
    : {};
  const first = (signal: AbortSignal) =>
    kept ? continueOrRestart(c, record, () => execute(c, record, call, signal)) : execute(c, record, call, signal);
  return reason(c, record, first, request.signal, standardInHand, started);
}

/** Continues a session that asked the user a question with the user's answer. */
export async function resumeSession(
  c: CoordinatorContext,
  input: { reasoningSessionId: string; userInput: string; signal?: AbortSignal },
): Promise<CoordinatorOutcome> {
  const started = c.now();
  const record = (await c.store.get(sessionKey(input.reasoningSessionId))) as ReasoningSessionRecord | undefined;
  if (record?.status !== "AWAITING_USER_INPUT") {
    throw new DeliberateClientError({
      code: "NOT_FOUND",
      message: `No reasoning session ${input.reasoningSessionId} is waiting for the user's answer.`,
      issues: [{ field: "reasoningSessionId", message: "not waiting for user input (finished, abandoned or unknown)" }],
    });
  }
  // A record a host's store kept from an earlier version of this client lacks the refinement fields.
  record.findings ??= [];
  record.synthesizing ??= false;
  record.pendingUserInput = null;
  record.status = record.lastCompleted ? "AWAITING_MCP_DURING_REFINEMENT" : "INITIAL_CALL_AWAITING_MCP";
  await save(c, record);
  c.emit({
    type: "progress",
    reasoningSessionId: record.reasoningSessionId,
    stage: "resumed",
    detail: "the user answered",
  });
  return reason(
    c,
    record,
    (signal) => execute(c, record, { userInput: input.userInput }, signal),
    input.signal,
    null,
    started,
  );
}

/** Gives up on a session waiting for the user: ends it on the server and forgets it. */
export async function abandonSession(c: CoordinatorContext, reasoningSessionId: string): Promise<void> {
  const record = (await c.store.get(sessionKey(reasoningSessionId))) as ReasoningSessionRecord | undefined;
  if (!record) return;
  await endSession(c, record);
}
