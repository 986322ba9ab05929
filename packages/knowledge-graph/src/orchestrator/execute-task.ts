import { randomBytes } from "node:crypto";
import {
  type ConfidenceReport,
  type CoTVariation,
  cotVariationSchema,
  DeliberateError,
  type ExecuteTaskError,
  type ExecuteTaskRequest,
  type ExecuteTaskResponse,
  type OutputFormat,
  type PendingPrompt,
  type Plan,
  type ReasoningTrace,
  type ReasoningType,
} from "@deliberate/contracts";
import { z } from "zod";
import type { GraphEntity } from "../graph/working-graph.ts";
import { toWireSubgraph } from "../graph/subgraph.ts";
import { createAbductionMode } from "../modes/abduction.mode.ts";
import { createAnswerMode } from "../modes/answer.mode.ts";
import { createDeductionMode } from "../modes/deduction.mode.ts";
import { createInductionMode } from "../modes/induction.mode.ts";
import { createPlanMode } from "../modes/plan.mode.ts";
import { hostToolsOf } from "../modes/schema-parts.ts";
import { signSessionState } from "../session-state.ts";
import { answerGoal } from "./answer.ts";
import { extractInto } from "./extract.ts";
import { loadWorkingGraph, saveGraphState } from "./graph-state.ts";
import { absorbHostKnowledge, needsExtraction, rulesInForce } from "./host-knowledge.ts";
import { abduce, deduce, induce } from "./operations.ts";
import type { KnowledgeGraphOptions } from "./options.ts";
import type { PendingWork, ResumePoint, StoredPlanStep, StoredSubQuestion } from "./pending.ts";
import { BudgetExhausted, type KnowledgeGraphContext, ReasoningRun } from "./reasoning-run.ts";
import { accessSession, expiresAt, stateSecretFor, stateSecretName } from "./session-access.ts";
import { bindToCaller } from "./session-binding.ts";
import { executeTaskFailures, modelFailureOf } from "./task-failure.ts";

/** How much of the graph a trace's subgraph shows at most. */
const traceSubgraphLimits = { entities: 60, relations: 120, derivations: 200 } as const;

type Outcome =
  | { kind: "answered"; answer: string; report: ConfidenceReport }
  | { kind: "planned"; prompts: Array<PendingPrompt & { step: number }> }
  | { kind: "waitTool"; toolName: string; toolArguments: Record<string, unknown>; resume: ResumePoint }
  | { kind: "waitUser"; question: string; resume: ResumePoint }
  | { kind: "exhausted" }
  | { kind: "failed"; error: ExecuteTaskError };

function clip(text: string, length: number): string {
  return text.length <= length ? text : `${text.slice(0, length - 1)}…`;
}

function textOf(value: unknown): string {
  if (typeof value === "string") return value;
  return JSON.stringify(value, null, 1) ?? String(value);
}

/** The goal and the host's context, as the text a new session is seeded from. */
function seedText(request: ExecuteTaskRequest): string {
  const context = request.contextData;
  const summary = context?.hostProvidedPriorReasoningSummary;
  const parts = [`Goal: ${request.goalQuery}`];
  if (context?.domainKnowledge) parts.push(`Domain knowledge:\n${context.domainKnowledge}`);
  if (context?.currentPlanStep) parts.push(`Current plan step: ${context.currentPlanStep}`);
  if (summary != null) parts.push(`Prior reasoning summary:\n${textOf(summary)}`);
  if (context?.historicalConversation) parts.push(`Conversation (most recent part):\n${context.historicalConversation.slice(-6000)}`);
  return parts.join("\n\n");
}

const planKinds = { inductive: "induce", deductive: "deduce", abductive: "abduce" } as const;

async function runOperation(run: ReasoningRun, kind: "induce" | "deduce" | "abduce", purpose: string, step: string): Promise<void> {
  if (kind === "induce") await induce(run, purpose, step);
  else if (kind === "deduce") await deduce(run, purpose, step);
  else await abduce(run, purpose, step);
}

async function makePlan(run: ReasoningRun, currentPlanStep: string | null): Promise<StoredPlanStep[]> {
  run.step("plan");
  const focus = run.focus(run.input.goal);
  const maxPlanDepth = run.options.maxPlanDepth;
  const answer = await run.ask(createPlanMode(run.input.tools, maxPlanDepth, true), {
    goal: run.input.goal,
    graph: focus.text,
    tools: run.input.tools,
    maxPlanDepth,
    allowUserInput: true,
    currentPlanStep,
  });
  const steps: StoredPlanStep[] = answer.steps.map((step) => ({
    kind: step.kind,
    purpose: step.purpose,
    toolName: step.kind === "toolCall" ? step.toolName : null,
    toolArguments: step.kind === "toolCall" ? step.toolArguments : null,
    question: step.kind === "askUser" ? step.question : null,
    status: "pending",
  }));
  run.record("plan", `Plan of ${steps.length} step(s): ${steps.map((step, index) => `${index + 1}. ${step.kind}: ${step.purpose}`).join(" ")}`, run.graph.mark());
  return steps;
}

function resumePoint(run: ReasoningRun, base: Omit<ResumePoint, "findings" | "trace" | "stage" | "relevant">, stage: ResumePoint["stage"]): ResumePoint {
  const relevant = new Set(run.found.relevantEntities);
  for (const entity of run.graph.entities()) if (entity.fresh) relevant.add(entity.key);
  return { ...base, stage, findings: run.findings.slice(-40), trace: run.trace.slice(-50), relevant: [...relevant].slice(0, 200) };
}

/** A step's prompt exactly as the server would send it (and as needs_completion shows it). */
function promptOf<Input, Output>(mode: { name: string; system: string; prompt: (input: Input) => string; output: z.ZodType<Output> }, input: Input, step: number): PendingPrompt & { step: number } {
  return {
    id: `plan-step-${step}`,
    name: mode.name,
    system: mode.system,
    user: mode.prompt(input),
    schema: z.toJSONSchema(mode.output, { unrepresentable: "any" }) as Record<string, unknown>,
    step,
  };
}

function planPrompts(run: ReasoningRun, steps: readonly StoredPlanStep[]): Array<PendingPrompt & { step: number }> {
  const prompts: Array<PendingPrompt & { step: number }> = [];
  steps.forEach((step, index) => {
    const focus = run.focus(`${run.input.goal} ${step.purpose}`);
    const base = { goal: run.input.goal, purpose: step.purpose, graph: focus.text, names: focus.names };
    if (step.kind === "induce") prompts.push(promptOf(createInductionMode(focus.names), base, index));
    if (step.kind === "deduce") prompts.push(promptOf(createDeductionMode(focus.names), { ...base, premises: run.input.premises }, index));
    if (step.kind === "abduce") prompts.push(promptOf(createAbductionMode(focus.names), base, index));
  });
  const focus = run.focus(run.input.goal);
  prompts.push(promptOf(createAnswerMode(focus.names), { goal: run.input.goal, graph: focus.text, findings: run.findingsText(), sample: null }, steps.length));
  return prompts;
}

function wirePlan(goal: string, maxPlanDepth: number, steps: readonly StoredPlanStep[]): Plan {
  return {
    goal,
    maxPlanDepth,
    steps: steps.map((step, index) => ({ index, kind: step.kind, purpose: step.purpose, status: step.status, toolName: step.toolName, toolArguments: step.toolArguments, question: step.question })),
  };
}

/**
 * reasoning/executeTask: resolves (or creates) the session, makes every model
 * call on an in-memory copy of its graph (seeding, the reasoning operations,
 * the answer under the chosen CoT variation), then writes the graph's changes
 * and the session's next state in one transaction and returns the response
 * with a freshly signed session state. Refused requests write nothing.
 */
export async function executeTask(request: ExecuteTaskRequest, context: KnowledgeGraphContext, options: KnowledgeGraphOptions): Promise<ExecuteTaskResponse> {
  const now = context.clock.now();
  const repository = context.store.knowledgeGraph;
  const access = await accessSession(request, context, options, now);
  const idleCutoff = new Date(now.getTime() - options.idleTimeoutMs).toISOString();
  if (access.kind === "new") await refuseOverCap(context, options, idleCutoff);

  const pending: PendingWork | null = access.kind === "existing" ? access.pending : null;
  const resume = pending?.resume ?? null;
  const notices: Array<{ field: string | null; message: string }> = [];
  const requested = request.preferredCoTVariation ?? null;
  let variation: CoTVariation = "standardCoT";
  if (requested !== null) {
    const parsed = cotVariationSchema.safeParse(requested);
    if (parsed.success) variation = parsed.data;
    else notices.push({ field: "preferredCoTVariation", message: `'${requested}' is not supported (supported: ${cotVariationSchema.options.join(", ")}); standardCoT was used.` });
  }
  const cot = resume?.cotVariation ?? { requested, used: variation };
  const reasoningType: ReasoningType = resume?.reasoningType ?? request.reasoningType;
  const format: OutputFormat = resume?.format ?? request.outputRequirements?.format ?? "finalAnswerWithTrace";
  const goal = resume?.goal ?? request.goalQuery;
  if (resume && (request.reasoningType !== resume.reasoningType || request.goalQuery !== resume.goal)) {
    notices.push({ field: "goalQuery", message: `The session was waiting on task ${resume.taskId}; it continued with that task's goal and reasoning type.` });
  }
  const taskId = request.taskId;

  const hostRules = rulesInForce(access.kind === "existing" ? await context.store.knowledgeGraphRules.list(access.session.sessionId) : [], request.contextData?.rules);
  const absorbHost = () => absorbHostKnowledge(run, { facts: request.contextData?.facts ?? [], rules: hostRules });
  const graph = await loadWorkingGraph(repository, access.kind === "existing" ? access.session.sessionId : null, request);
  const run = new ReasoningRun(context, graph, {
    taskId,
    goal,
    tools: hostToolsOf(request.contextData?.availableTools),
    premises: [request.contextData?.domainKnowledge ?? "", request.goalQuery].filter((text) => text.length > 0).join("\n"),
    maxSteps: request.outputRequirements?.maxSteps ?? null,
    options,
    priorTrace: resume?.trace ?? [],
    priorFindings: resume?.findings ?? [],
  });
  run.notices.push(...notices);
  for (const key of resume?.relevant ?? []) run.found.relevantEntities.add(key);
  const desired = request.outputRequirements?.desiredConfidenceLevel ?? null;
  const base = { taskId: resume?.taskId ?? taskId, goal, reasoningType, cotVariation: cot, format };
  let planSteps: StoredPlanStep[] | null = resume?.stage.stage === "plan" ? resume.stage.steps : null;

  let outcome: Outcome;
  try {
    // 1. Seed a new graph, take in the host's answer, or enrich with this call's goal.
    if (access.kind === "new") {
      const extracted = needsExtraction(request.contextData)
        ? await extractInto(run, { source: "goal and context", text: seedText(request), kind: "seed", step: "seed", reference: null })
        : { entities: 0, relations: 0 };
      absorbHost();
      if (graph.entityCount === 0) {
        outcome = {
          kind: "failed",
          error: {
            code: executeTaskFailures.EXTRACTION_EMPTY,
            reason: "EXTRACTION_EMPTY",
            message: "No entities or relations could be extracted from goalQuery and contextData, so there is no graph to reason over",
            details: `The extraction returned ${extracted.entities} entities and ${extracted.relations} relations. Give the goal concrete subjects, or add facts in contextData.domainKnowledge or contextData.facts.`,
            retryable: false,
          },
        };
      } else outcome = await reason();
    } else if (pending) {
      await absorbAnswer(pending);
      absorbHost();
      outcome = await reason();
    } else {
      const summary = request.contextData?.hostProvidedPriorReasoningSummary;
      if (needsExtraction(request.contextData)) await extractInto(run, {
        source: "new goal",
        text: [`Goal: ${request.goalQuery}`, request.contextData?.domainKnowledge ? `Domain knowledge:\n${request.contextData.domainKnowledge}` : "", summary != null ? `Prior reasoning summary:\n${textOf(summary)}` : ""].filter(Boolean).join("\n\n"),
        kind: "extraction",
        step: "enrich",
        reference: null,
      });
      absorbHost();
      outcome = await reason();
    }
  } catch (error) {
    // A cancelled call stays cancelled, whatever the provider made of the abort.
    const modelFailure = context.signal.aborted ? null : modelFailureOf(error);
    if (modelFailure) return failedResponse(request, access, { kind: "failed", error: modelFailure }, run.notices, context, options);
    if (!(error instanceof BudgetExhausted)) throw error;
    outcome = { kind: "exhausted" };
    run.notices.push({ field: request.outputRequirements?.maxSteps != null ? "outputRequirements.maxSteps" : null, message: `Stopped: ${error.reason}. The graph keeps what was found so far; call again to continue.` });
    if (planSteps) for (const step of planSteps) if (step.status === "pending") step.status = "not_reached";
  }

  async function absorbAnswer(work: PendingWork): Promise<void> {
    if (work.kind === "tool") {
      const result = request.toolResults?.find((item) => item.toolCallId === work.toolCallId);
      const text = textOf(result?.result);
      if (result?.isError) {
        run.findings.push(`Tool ${work.toolName} failed: ${clip(text, 500)}`);
        run.record("toolResult", `The host reports that ${work.toolName} failed: ${clip(text, 300)}`, graph.mark());
      } else {
        run.findings.push(`Tool ${work.toolName}(${clip(JSON.stringify(work.toolArguments), 200)}) returned: ${clip(text, 500)}`);
        await extractInto(run, { source: `result of the tool ${work.toolName}`, text, kind: "tool_result", step: `tool ${work.toolName}`, reference: work.toolCallId });
      }
      settle(work.resume, result?.isError ? `(the tool failed: ${clip(text, 300)})` : clip(text, 500));
    } else {
      const answer = request.userInput ?? "";
      run.findings.push(`The user answered "${work.question}": ${clip(answer, 500)}`);
      await extractInto(run, { source: "user's answer", text: `Question: ${work.question}\nAnswer: ${answer}`, kind: "user_input", step: "user input", reference: null });
      settle(work.resume, clip(answer, 500));
    }
  }

  function settle(point: ResumePoint, answer: string): void {
    if (point.stage.stage === "plan") {
      const step = point.stage.steps[point.stage.next - 1];
      if (step) step.status = "done";
    } else {
      const question = point.stage.subQuestions[point.stage.waiting];
      if (question) question.answer = answer;
    }
  }

  async function reason(): Promise<Outcome> {
    if (format === "detailedPlanWithPrompts") {
      const steps = reasoningType === "planAndExecuteCoT" ? await makePlan(run, request.contextData?.currentPlanStep ?? null) : [{ kind: planKinds[reasoningType], purpose: goal, toolName: null, toolArguments: null, question: null, status: "pending" as const }];
      planSteps = steps;
      return { kind: "planned", prompts: planPrompts(run, steps) };
    }
    // 2. The reasoning type's graph operations.
    if (resume?.stage.stage !== "selfAsk") {
      if (reasoningType === "planAndExecuteCoT") {
        const steps = planSteps ?? (await makePlan(run, request.contextData?.currentPlanStep ?? null));
        planSteps = steps;
        const start = resume?.stage.stage === "plan" ? resume.stage.next : 0;
        for (let index = start; index < steps.length; index += 1) {
          const step = steps[index] as StoredPlanStep;
          if (step.kind === "toolCall" || step.kind === "askUser") {
            run.step(`plan step ${index + 1}: ${step.kind}`);
            step.status = "waiting";
            const point = resumePoint(run, base, { stage: "plan", steps, next: index + 1 });
            if (step.kind === "toolCall") {
              run.record("toolCall", `Plan step ${index + 1}: asked the host to call ${step.toolName} (${step.purpose}).`, graph.mark());
              return { kind: "waitTool", toolName: step.toolName as string, toolArguments: step.toolArguments ?? {}, resume: resumePoint(run, base, point.stage) };
            }
            run.record("askUser", `Plan step ${index + 1}: asked the user: ${step.question}`, graph.mark());
            return { kind: "waitUser", question: step.question as string, resume: resumePoint(run, base, point.stage) };
          }
          run.step(`plan step ${index + 1}: ${step.kind}`);
          await runOperation(run, step.kind, step.purpose, `plan step ${index + 1}: ${step.kind}`);
          step.status = "done";
        }
      } else if (!resume) {
        run.step(planKinds[reasoningType]);
        await runOperation(run, planKinds[reasoningType], goal, planKinds[reasoningType]);
      }
    }
    // 3. The answer, under the CoT variation.
    const resumeQuestions: StoredSubQuestion[] | null = resume?.stage.stage === "selfAsk" ? resume.stage.subQuestions : null;
    const answered = await answerGoal(run, cot.used, desired, resumeQuestions);
    if (answered.kind === "answered") return answered;
    const question = answered.subQuestions[answered.waiting] as StoredSubQuestion;
    const point = resumePoint(run, base, { stage: "selfAsk", subQuestions: answered.subQuestions, waiting: answered.waiting });
    if (question.source === "tool") {
      run.record("toolCall", `Self-ask: asked the host to call ${question.toolName} for "${question.question}".`, graph.mark());
      return { kind: "waitTool", toolName: question.toolName as string, toolArguments: question.toolArguments ?? {}, resume: resumePoint(run, base, point.stage) };
    }
    run.record("askUser", `Self-ask: asked the user: ${question.question}`, graph.mark());
    return { kind: "waitUser", question: question.question, resume: resumePoint(run, base, point.stage) };
  }

  if (outcome.kind === "failed") return failedResponse(request, access, outcome, run.notices, context, options);

  // 4. One transaction: the session, the graph's changes, the next state. Stamped when the work is done:
  // a session is idle from the end of its last call, however long that call's model answers took.
  const committedAt = context.clock.now();
  const nowText = committedAt.toISOString();
  const commitCutoff = new Date(committedAt.getTime() - options.idleTimeoutMs).toISOString();
  const toolCallId = outcome.kind === "waitTool" ? context.ids.next("call") : null;
  const nextPending: PendingWork | null =
    outcome.kind === "waitTool"
      ? { kind: "tool", toolCallId: toolCallId as string, toolName: outcome.toolName, toolArguments: outcome.toolArguments, resume: outcome.resume }
      : outcome.kind === "waitUser"
        ? { kind: "user", question: outcome.question, resume: outcome.resume }
        : null;
  const state = outcome.kind === "waitTool" ? "pending_tool_call" : outcome.kind === "waitUser" ? "pending_user_input" : "active";
  const sessionId = access.kind === "existing" ? access.session.sessionId : (access.sessionId ?? context.ids.next("kg"));
  const expectedRevision = access.kind === "existing" ? access.session.revision : 0;
  const changes = graph.diff();
  for (const entity of changes.newEntities) entity.id = context.ids.next("ent");
  for (const relation of changes.newRelations) relation.id = context.ids.next("rel");
  const idOf = (key: string) => (graph.entity(key) as GraphEntity).id as string;
  const secret = await context.store.transaction(async (repositories) => {
    const kg = repositories.knowledgeGraph;
    await kg.expireIdleSessions({ idleCutoff: commitCutoff, now: nowText });
    if (access.kind === "new") {
      if ((await kg.countLiveSessions({ idleCutoff: commitCutoff })) >= options.maxActiveSessions) {
        throw overCapError(options, await kg.leastRecentlyActiveSession({ idleCutoff: commitCutoff }));
      }
      if (await kg.sessionIdTaken(sessionId)) {
        throw new DeliberateError({ code: "CONFLICT", message: `reasoningSessionId ${sessionId} was taken meanwhile`, issues: [{ field: "reasoningSessionId", message: "already used" }], hint: "Choose another reasoningSessionId, or omit it." });
      }
      await kg.createSession({ sessionId, taskId, goalQuery: request.goalQuery, now: nowText });
      await bindToCaller(context, repositories, sessionId, nowText);
    }
    if (request.contextData?.rules?.length) await repositories.knowledgeGraphRules.save({ sessionId, rules: request.contextData.rules, now: nowText });
    const secretInForce = options.stateSecret ?? (await kg.ensureSecret({ name: stateSecretName, value: randomBytes(32).toString("base64url"), now: nowText }));
    await kg.insertEntities(
      sessionId,
      changes.newEntities.map((entity) => ({ id: entity.id as string, sessionId, name: entity.name, key: entity.key, type: entity.type, observations: entity.observations, confidence: entity.confidence, validity: entity.validity, provenance: entity.provenance })),
      nowText,
    );
    for (const entity of changes.changedEntities) await kg.updateEntity({ ...entity, id: entity.id as string }, nowText);
    await kg.insertRelations(
      sessionId,
      changes.newRelations.map((relation) => ({
        id: relation.id as string,
        sessionId,
        subjectId: idOf(relation.subject),
        predicate: relation.predicate,
        objectId: idOf(relation.object),
        confidence: relation.confidence,
        validity: relation.validity,
        status: relation.status,
        conflictsWith: relation.conflicts.map((fact) => graph.tripleOf(fact)),
        provenance: relation.provenance,
        derivation: relation.derivation,
      })),
      nowText,
    );
    for (const relation of changes.changedRelations) {
      await kg.updateRelation({ ...relation, id: relation.id as string, conflictsWith: relation.conflicts.map((fact) => graph.tripleOf(fact)) }, nowText);
    }
    await saveGraphState(kg, sessionId, graph);
    const advanced = await kg.advanceSession({ sessionId, expectedRevision, state, pending: nextPending, now: nowText });
    if (!advanced) {
      throw new DeliberateError({
        code: "CONFLICT",
        message: `Session ${sessionId} was changed by another call while this one ran; nothing of this call was kept`,
        issues: [{ field: "reasoningSessionId", message: "changed concurrently" }],
        hint: "Call again; calls on one session are applied one at a time.",
        retryable: true,
      });
    }
    return secretInForce;
  });

  // 5. The response.
  const report = outcome.kind === "answered" ? outcome.report : null;
  const trace: ReasoningTrace = {
    reasoningType,
    cotVariation: cot,
    steps: run.trace.map((step, index) => ({ ...step, index })),
    derivations: run.found.derivations.slice(0, traceSubgraphLimits.derivations),
    pathValidation: run.found.pathValidation,
    hypotheses: run.found.hypotheses,
    selfConsistency: run.found.selfConsistency,
    subQuestions: run.found.subQuestions,
    thoughts: run.found.thoughts,
    confidence: report,
    subgraph: relevantSubgraph(run),
    budget: {
      iterations: run.iterations,
      maxIterations: run.maxIterations,
      modelCalls: run.modelCalls,
      maxModelCalls: options.maxModelCalls,
      graphGrowth: graph.growth,
      maxGraphGrowth: options.maxGraphGrowth,
      chaining: run.found.chaining,
    },
  };
  const plan = planSteps ? wirePlan(goal, options.maxPlanDepth, planSteps) : null;
  const prompts = outcome.kind === "planned" ? outcome.prompts : null;
  return {
    taskId,
    reasoningSessionId: sessionId,
    status:
      outcome.kind === "waitTool" ? "pending_tool_call" : outcome.kind === "waitUser" ? "pending_user_input" : outcome.kind === "exhausted" ? "max_iterations_reached" : "completed",
    result: {
      reasonedAnswer: outcome.kind === "answered" ? outcome.answer : null,
      reasoningTrace: trace,
      confidenceScore: report?.score ?? null,
      confidenceMethod: report?.method ?? null,
      plan,
      promptsToExecute: prompts ? prompts.map((prompt) => `${prompt.system}\n\n${prompt.user}\n\nAnswer with one JSON object matching this JSON Schema:\n${JSON.stringify(prompt.schema)}`) : null,
      promptDetails: prompts,
    },
    toolCallRequest: outcome.kind === "waitTool" ? { toolName: outcome.toolName, toolArguments: outcome.toolArguments, toolCallId: toolCallId as string } : null,
    userInputRequest: outcome.kind === "waitUser" ? outcome.question : null,
    error: null,
    updatedSessionState: signSessionState({ sessionId, revision: expectedRevision + 1 }, secret),
    sessionExpiresAt: new Date(committedAt.getTime() + options.idleTimeoutMs).toISOString(),
    notices: run.notices,
  };
}

/**
 * A failed task writes nothing: a new session is not created, an existing one
 * stays at its revision (so its state is returned again and the call can be
 * retried). The invocation row records the failure.
 */
async function failedResponse(
  request: ExecuteTaskRequest,
  access: Awaited<ReturnType<typeof accessSession>>,
  outcome: Extract<Outcome, { kind: "failed" }>,
  notices: ExecuteTaskResponse["notices"],
  context: KnowledgeGraphContext,
  options: KnowledgeGraphOptions,
): Promise<ExecuteTaskResponse> {
  if (outcome.error.reason !== "EXTRACTION_EMPTY") context.reportFailure({ code: outcome.error.reason as Parameters<KnowledgeGraphContext["reportFailure"]>[0]["code"], message: outcome.error.message });
  const session = access.kind === "existing" ? access.session : null;
  const secret = session ? await stateSecretFor(context, options) : undefined;
  return {
    taskId: request.taskId,
    reasoningSessionId: session?.sessionId ?? null,
    status: "failed",
    result: null,
    toolCallRequest: null,
    userInputRequest: null,
    error: outcome.error,
    updatedSessionState: session && secret !== undefined ? signSessionState({ sessionId: session.sessionId, revision: session.revision }, secret) : null,
    sessionExpiresAt: session ? expiresAt(session, options) : null,
    notices,
  };
}

/** The part of the graph the answer rests on: what the steps touched and added, bounded. */
function relevantSubgraph(run: ReasoningRun) {
  const { graph } = run;
  const keys = new Set<string>();
  for (const key of run.found.relevantEntities) if (graph.entity(key)) keys.add(key);
  for (const entity of graph.entities()) if (entity.fresh) keys.add(entity.key);
  for (const relation of graph.relations()) {
    if (relation.fresh) {
      keys.add(relation.subject);
      keys.add(relation.object);
    }
  }
  const entities = graph.entities().filter((entity) => keys.has(entity.key)).slice(0, traceSubgraphLimits.entities);
  const shown = new Set(entities.map((entity) => entity.key));
  const relations = graph
    .relations()
    .filter((relation) => shown.has(relation.subject) && shown.has(relation.object))
    .sort((a, b) => Number(b.fresh) - Number(a.fresh))
    .slice(0, traceSubgraphLimits.relations);
  return toWireSubgraph(graph, entities, relations);
}

function overCapError(options: KnowledgeGraphOptions, oldest: Parameters<typeof expiresAt>[0] | undefined): DeliberateError {
  return new DeliberateError({
    code: "LIMIT_EXCEEDED",
    message: `${options.maxActiveSessions} reasoning sessions are active, the most this server keeps; a new session cannot start`,
    issues: [{ field: "reasoningSessionId", message: "no room for a new session" }],
    // When a place frees, but not which session holds it: that may be another caller's.
    hint: `End sessions you no longer need with reasoning/endSession, or continue an existing one${oldest ? `; the next place frees at ${expiresAt(oldest, options)} at the latest, unless the session holding it is used` : ""}.`,
    retryable: true,
  });
}

/** Refuses a new session when the cap is reached (checked again when the session is written). */
async function refuseOverCap(context: KnowledgeGraphContext, options: KnowledgeGraphOptions, idleCutoff: string): Promise<void> {
  const repository = context.store.knowledgeGraph;
  if ((await repository.countLiveSessions({ idleCutoff })) >= options.maxActiveSessions) {
    throw overCapError(options, await repository.leastRecentlyActiveSession({ idleCutoff }));
  }
}
