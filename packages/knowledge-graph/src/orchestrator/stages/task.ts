import {
  type ConfidenceReport,
  type CoTVariation,
  cotVariationSchema,
  type ExecuteTaskError,
  type ExecuteTaskRequest,
  type ExecuteTaskResponse,
  type OutputFormat,
  type PendingPrompt,
  type ReasoningType,
} from "@deliberate/contracts";
import type { WorkingGraph } from "../../graph/working-graph.ts";
import { hostToolsOf } from "../../modes/schema-parts.ts";
import { loadWorkingGraph } from "../graph-state.ts";
import { rulesInForce } from "../host-knowledge.ts";
import type { KnowledgeGraphOptions } from "../options.ts";
import type { PendingWork, ResumePoint, StoredPlanStep } from "../pending.ts";
import { type KnowledgeGraphContext, ReasoningRun } from "../reasoning-run.ts";
import { accessSession } from "../session-access.ts";
import { refuseOverCap } from "./session-cap.ts";

/** How the reasoning of one call ended, before anything is written. */
export type Outcome =
  | { kind: "answered"; answer: string; report: ConfidenceReport }
  | { kind: "planned"; prompts: Array<PendingPrompt & { step: number }> }
  | { kind: "waitTool"; toolName: string; toolArguments: Record<string, unknown>; resume: ResumePoint }
  | { kind: "waitUser"; question: string; resume: ResumePoint }
  | { kind: "exhausted" }
  | { kind: "failed"; error: ExecuteTaskError };

/** What the commit stage wrote: the session's id and revision, its state secret, and the call id a tool wait issued. */
export interface Committed {
  sessionId: string;
  expectedRevision: number;
  secret: string;
  committedAt: Date;
  toolCallId: string | null;
}

/**
 * Where executeTask stands; `executeTask` loops over the discriminant until `done`:
 * gather (seed, host answer or enrichment) → reason → settled (an outcome) → committed → done.
 */
export type Stage =
  | { stage: "gather" }
  | { stage: "reason" }
  | { stage: "settled"; outcome: Outcome }
  | { stage: "committed"; outcome: Exclude<Outcome, { kind: "failed" }>; committed: Committed }
  | { stage: "done"; response: ExecuteTaskResponse };

/** One executeTask call: the request, the session it reaches, and the in-memory run every stage works on. */
export interface Task {
  readonly request: ExecuteTaskRequest;
  readonly context: KnowledgeGraphContext;
  readonly options: KnowledgeGraphOptions;
  readonly access: Awaited<ReturnType<typeof accessSession>>;
  /** The host's answer this call brings (a tool result or user input), when the session waits for one. */
  readonly pending: PendingWork | null;
  readonly resume: ResumePoint | null;
  readonly run: ReasoningRun;
  readonly graph: WorkingGraph;
  readonly taskId: string;
  readonly goal: string;
  readonly reasoningType: ReasoningType;
  readonly format: OutputFormat;
  readonly cot: { requested: string | null; used: CoTVariation };
  readonly desired: number | null;
  /** What a resume point records besides the stage, findings, trace and relevant entities. */
  readonly base: Omit<ResumePoint, "findings" | "trace" | "stage" | "relevant">;
  readonly hostRules: ReturnType<typeof rulesInForce>;
  /** The plan being carried out (planAndExecuteCoT, or detailedPlanWithPrompts), if any. */
  planSteps: StoredPlanStep[] | null;
}

/** The CoT variation requested, or standardCoT with a notice naming the supported ones. */
function chooseVariation(
  requested: string | null,
  notices: Array<{ field: string | null; message: string }>,
): CoTVariation {
  if (requested === null) return "standardCoT";
  const parsed = cotVariationSchema.safeParse(requested);
  if (parsed.success) return parsed.data;
  notices.push({
    field: "preferredCoTVariation",
    message: `'${requested}' is not supported (supported: ${cotVariationSchema.options.join(", ")}); standardCoT was used.`,
  });
  return "standardCoT";
}

/**
 * Resolves (or admits) the session, loads its graph into memory and sets up the run: a resumed
 * session continues with the goal, reasoning type, variation and format of the task it waits on.
 */
export async function startTask(
  request: ExecuteTaskRequest,
  context: KnowledgeGraphContext,
  options: KnowledgeGraphOptions,
): Promise<Task> {
  const now = context.clock.now();
  const access = await accessSession(request, context, options, now);
  const idleCutoff = new Date(now.getTime() - options.idleTimeoutMs).toISOString();
  if (access.kind === "new") await refuseOverCap(context, options, idleCutoff);

  const pending: PendingWork | null = access.kind === "existing" ? access.pending : null;
  const resume = pending?.resume ?? null;
  const notices: Array<{ field: string | null; message: string }> = [];
  const requested = request.preferredCoTVariation ?? null;
  const variation = chooseVariation(requested, notices);
  const cot = resume?.cotVariation ?? { requested, used: variation };
  const reasoningType: ReasoningType = resume?.reasoningType ?? request.reasoningType;
  const format: OutputFormat = resume?.format ?? request.outputRequirements?.format ?? "finalAnswerWithTrace";
  const goal = resume?.goal ?? request.goalQuery;
  if (resume && (request.reasoningType !== resume.reasoningType || request.goalQuery !== resume.goal)) {
    notices.push({
      field: "goalQuery",
      message: `The session was waiting on task ${resume.taskId}; it continued with that task's goal and reasoning type.`,
    });
  }
  const taskId = request.taskId;
  const sessionId = access.kind === "existing" ? access.session.sessionId : null;
  const hostRules = rulesInForce(
    sessionId !== null ? await context.store.knowledgeGraphRules.list(sessionId) : [],
    request.contextData?.rules,
  );
  const graph = await loadWorkingGraph(context.store.knowledgeGraph, sessionId, request);
  const run = new ReasoningRun(context, graph, {
    taskId,
    goal,
    tools: hostToolsOf(request.contextData?.availableTools),
    premises: [request.contextData?.domainKnowledge ?? "", request.goalQuery]
      .filter((text) => text.length > 0)
      .join("\n"),
    maxSteps: request.outputRequirements?.maxSteps ?? null,
    options,
    priorTrace: resume?.trace ?? [],
    priorFindings: resume?.findings ?? [],
  });
  run.notices.push(...notices);
  for (const key of resume?.relevant ?? []) run.found.relevantEntities.add(key);
  return {
    request,
    context,
    options,
    access,
    pending,
    resume,
    run,
    graph,
    taskId,
    goal,
    reasoningType,
    format,
    cot,
    desired: request.outputRequirements?.desiredConfidenceLevel ?? null,
    base: { taskId: resume?.taskId ?? taskId, goal, reasoningType, cotVariation: cot, format },
    hostRules,
    planSteps: resume?.stage.stage === "plan" ? resume.stage.steps : null,
  };
}
