import { randomBytes } from "node:crypto";
import { DeliberateError } from "@deliberate/contracts";
import type { GraphEntity } from "../../graph/working-graph.ts";
import { saveGraphState } from "../graph-state.ts";
import type { PendingWork } from "../pending.ts";
import { stateSecretName } from "../session-access.ts";
import { bindToCaller } from "../session-binding.ts";
import { overCapError } from "./session-cap.ts";
import type { Committed, Outcome, Task } from "./task.ts";

type Repositories = Parameters<Parameters<Task["context"]["store"]["transaction"]>[0]>[0];

/** What the session waits for next, if anything. */
function nextPendingOf(outcome: Outcome, toolCallId: string | null): PendingWork | null {
  if (outcome.kind === "waitTool") {
    return {
      kind: "tool",
      toolCallId: toolCallId as string,
      toolName: outcome.toolName,
      toolArguments: outcome.toolArguments,
      resume: outcome.resume,
    };
  }
  return outcome.kind === "waitUser" ? { kind: "user", question: outcome.question, resume: outcome.resume } : null;
}

/** A new session's row, admitted again under the cap inside the transaction, and bound to its caller. */
async function createSession(
  task: Task,
  repositories: Repositories,
  sessionId: string,
  commitCutoff: string,
  nowText: string,
): Promise<void> {
  const kg = repositories.knowledgeGraph;
  if ((await kg.countLiveSessions({ idleCutoff: commitCutoff })) >= task.options.maxActiveSessions) {
    throw overCapError(task.options, await kg.leastRecentlyActiveSession({ idleCutoff: commitCutoff }));
  }
  if (await kg.sessionIdTaken(sessionId)) {
    throw new DeliberateError({
      code: "CONFLICT",
      message: `reasoningSessionId ${sessionId} was taken meanwhile`,
      issues: [{ field: "reasoningSessionId", message: "already used" }],
      hint: "Choose another reasoningSessionId, or omit it.",
    });
  }
  await kg.createSession({ sessionId, taskId: task.taskId, goalQuery: task.request.goalQuery, now: nowText });
  await bindToCaller(task.context, repositories, sessionId, nowText);
}

/** Writes the working graph's new and changed entities and relations (new ones get their ids first). */
async function writeGraphChanges(
  task: Task,
  kg: Repositories["knowledgeGraph"],
  sessionId: string,
  changes: ReturnType<Task["graph"]["diff"]>,
  nowText: string,
): Promise<void> {
  const { graph } = task;
  const idOf = (key: string) => (graph.entity(key) as GraphEntity).id as string;
  await kg.insertEntities(
    sessionId,
    changes.newEntities.map((entity) => ({
      id: entity.id as string,
      sessionId,
      name: entity.name,
      key: entity.key,
      type: entity.type,
      observations: entity.observations,
      confidence: entity.confidence,
      validity: entity.validity,
      provenance: entity.provenance,
    })),
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
    await kg.updateRelation(
      { ...relation, id: relation.id as string, conflictsWith: relation.conflicts.map((fact) => graph.tripleOf(fact)) },
      nowText,
    );
  }
  await saveGraphState(kg, sessionId, graph);
}

/**
 * Stage 3: one transaction — the session, the graph's changes, the next state. Stamped when the work is done:
 * a session is idle from the end of its last call, however long that call's model answers took.
 * CONFLICT (retryable) when another call advanced the session meanwhile; then nothing of this call is kept.
 */
export async function commit(task: Task, outcome: Exclude<Outcome, { kind: "failed" }>): Promise<Committed> {
  const { context, options, access, graph } = task;
  const committedAt = context.clock.now();
  const nowText = committedAt.toISOString();
  const commitCutoff = new Date(committedAt.getTime() - options.idleTimeoutMs).toISOString();
  const toolCallId = outcome.kind === "waitTool" ? context.ids.next("call") : null;
  const nextPending = nextPendingOf(outcome, toolCallId);
  const state =
    outcome.kind === "waitTool" ? "pending_tool_call" : outcome.kind === "waitUser" ? "pending_user_input" : "active";
  const sessionId =
    access.kind === "existing" ? access.session.sessionId : (access.sessionId ?? context.ids.next("kg"));
  const expectedRevision = access.kind === "existing" ? access.session.revision : 0;
  const changes = graph.diff();
  for (const entity of changes.newEntities) entity.id = context.ids.next("ent");
  for (const relation of changes.newRelations) relation.id = context.ids.next("rel");
  const secret = await context.store.transaction(async (repositories) => {
    const kg = repositories.knowledgeGraph;
    await kg.expireIdleSessions({ idleCutoff: commitCutoff, now: nowText });
    if (access.kind === "new") await createSession(task, repositories, sessionId, commitCutoff, nowText);
    const rules = task.request.contextData?.rules;
    if (rules?.length) await repositories.knowledgeGraphRules.save({ sessionId, rules, now: nowText });
    const secretInForce =
      options.stateSecret ??
      (await kg.ensureSecret({ name: stateSecretName, value: randomBytes(32).toString("base64url"), now: nowText }));
    await writeGraphChanges(task, kg, sessionId, changes, nowText);
    const advanced = await kg.advanceSession({
      sessionId,
      expectedRevision,
      state,
      pending: nextPending,
      now: nowText,
    });
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
  return { sessionId, expectedRevision, secret, committedAt, toolCallId };
}
