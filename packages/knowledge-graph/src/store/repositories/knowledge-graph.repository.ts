import {
  type EpistemicStatus,
  epistemicStatusSchema,
  type KnowledgeGraphSessionState,
  type Provenance,
  type Triple,
  type Validity,
} from "@deliberate/contracts";
import { statusOfValidity } from "../../algorithms/epistemic-status.ts";
import { type Database, parseJsonColumn, reservePositions } from "@deliberate/store";
import type { Kysely } from "kysely";
import type { KnowledgeGraphDatabase } from "../tables.ts";
import type { KnowledgeGraphEntityRow } from "../tables/knowledge-graph-entity.table.ts";
import type { KnowledgeGraphRelationRow } from "../tables/knowledge-graph-relation.table.ts";
import type { KnowledgeGraphSessionRow } from "../tables/knowledge-graph-session.table.ts";

/** A knowledge-graph session as stored. */
export interface StoredSession {
  sessionId: string;
  firstTaskId: string;
  goalQuery: string;
  state: KnowledgeGraphSessionState;
  revision: number;
  /** What a pending session waits for (JSON the orchestrator validates), or null. */
  pending: unknown;
  calls: number;
  createdAt: string;
  updatedAt: string;
  lastActiveAt: string;
  closedAt: string | null;
}

/** An entity as stored. `key` is its normalised name. */
export interface StoredEntity {
  id: string;
  sessionId: string;
  position: number;
  name: string;
  key: string;
  type: string;
  observations: string[];
  confidence: number;
  validity: Validity;
  provenance: Provenance;
}

/** A relation as stored, between entity ids. */
export interface StoredRelation {
  id: string;
  sessionId: string;
  position: number;
  subjectId: string;
  predicate: string;
  objectId: string;
  confidence: number;
  validity: Validity;
  status: EpistemicStatus;
  conflictsWith: Triple[];
  provenance: Provenance;
  derivation: { rule: string; premises: Triple[] } | null;
}

/** The rules (by `ruleKey`) a session's graph is closed under, and how many of its relations (in position order) that covers. */
export interface ClosureRecord {
  rules: string[];
  covered: number;
}

/** What a session keeps for reasoning besides its graph. */
export interface ReasoningState {
  functionalPredicates: string[];
  closure: ClosureRecord | null;
}

export type NewEntity = Omit<StoredEntity, "position">;
export type NewRelation = Omit<StoredRelation, "position">;

/** The states in which a session can still be continued. */
export const liveSessionStates: readonly KnowledgeGraphSessionState[] = [
  "active",
  "pending_tool_call",
  "pending_user_input",
];

/** Rows are inserted this many at a time, under every dialect's bound-parameter limit. */
const insertBatch = 100;

function toSession(row: KnowledgeGraphSessionRow): StoredSession {
  return {
    sessionId: row.session_id,
    firstTaskId: row.first_task_id,
    goalQuery: row.goal_query,
    state: row.state as KnowledgeGraphSessionState,
    revision: Number(row.revision),
    pending:
      row.pending === null
        ? null
        : parseJsonColumn(row.pending, `knowledge_graph_sessions.pending of ${row.session_id}`),
    calls: Number(row.calls),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    lastActiveAt: row.last_active_at,
    closedAt: row.closed_at,
  };
}

function provenanceOf(row: {
  provenance_kind: string;
  provenance_task_id: string;
  provenance_step: string | null;
  provenance_reference: string | null;
}): Provenance {
  return {
    kind: row.provenance_kind as Provenance["kind"],
    taskId: row.provenance_task_id,
    step: row.provenance_step,
    reference: row.provenance_reference,
  };
}

function provenanceColumns(provenance: Provenance) {
  return {
    provenance_kind: provenance.kind,
    provenance_task_id: provenance.taskId,
    provenance_step: provenance.step,
    provenance_reference: provenance.reference,
  };
}

function toEntity(row: KnowledgeGraphEntityRow): StoredEntity {
  const observations = parseJsonColumn(row.observations, `knowledge_graph_entities.observations of ${row.id}`);
  return {
    id: row.id,
    sessionId: row.session_id,
    position: Number(row.position),
    name: row.name,
    key: row.normalized_name,
    type: row.type,
    observations: Array.isArray(observations) ? observations.map(String) : [],
    confidence: Number(row.confidence),
    validity: row.validity as Validity,
    provenance: provenanceOf(row),
  };
}

const statuses = new Set<string>(epistemicStatusSchema.options);

function toRelation(row: KnowledgeGraphRelationRow): StoredRelation {
  return {
    id: row.id,
    sessionId: row.session_id,
    position: Number(row.position),
    subjectId: row.subject_id,
    predicate: row.predicate,
    objectId: row.object_id,
    confidence: Number(row.confidence),
    validity: row.validity as Validity,
    status:
      row.status !== null && statuses.has(row.status)
        ? (row.status as EpistemicStatus)
        : statusOfValidity(row.validity as Validity, row.derivation !== null),
    // Most relations conflict with nothing: skip parsing the common empty list (graphs load whole, every call).
    conflictsWith:
      row.conflicts_with === "[]" || row.conflicts_with == null
        ? []
        : (parseJsonColumn(row.conflicts_with, `knowledge_graph_relations.conflicts_with of ${row.id}`) as Triple[]),
    provenance: provenanceOf(row),
    derivation:
      row.derivation === null
        ? null
        : (parseJsonColumn(
            row.derivation,
            `knowledge_graph_relations.derivation of ${row.id}`,
          ) as StoredRelation["derivation"]),
  };
}

/**
 * The knowledge-graph module's repository: sessions with their lifecycle and
 * revision, and each session's entities and relations. Bound to a database
 * handle or an open transaction; the SQL is portable (SQLite and Postgres).
 */
export function createKnowledgeGraphRepository(database: Kysely<Database>) {
  const db = database as unknown as Kysely<KnowledgeGraphDatabase>;

  /** Reserves `count` positions atomically (no max+1 race between replicas appending to one session). */
  function nextPositions(
    table: "knowledge_graph_entities" | "knowledge_graph_relations",
    sessionId: string,
    count: number,
  ): Promise<number> {
    return reservePositions(
      database,
      { scope: table, key: sessionId, table, keyColumn: "session_id", positionColumn: "position" },
      count,
    );
  }

  return {
    /** A named secret, if it was made. */
    async findSecret(name: string): Promise<string | undefined> {
      const row = await db
        .selectFrom("knowledge_graph_secrets")
        .select("value")
        .where("name", "=", name)
        .executeTakeFirst();
      return row?.value;
    },

    /** Stores `value` under `name` unless a secret of that name exists; returns the secret in force. */
    async ensureSecret(input: { name: string; value: string; now: string }): Promise<string> {
      await db
        .insertInto("knowledge_graph_secrets")
        .values({ name: input.name, value: input.value, created_at: input.now })
        .onConflict((conflict) => conflict.column("name").doNothing())
        .execute();
      const row = await db
        .selectFrom("knowledge_graph_secrets")
        .select("value")
        .where("name", "=", input.name)
        .executeTakeFirstOrThrow();
      return row.value;
    },

    /** Whether any module's session already uses `sessionId` (the shared sessions table). */
    async sessionIdTaken(sessionId: string): Promise<boolean> {
      const row = await db.selectFrom("sessions").select("id").where("id", "=", sessionId).executeTakeFirst();
      return row !== undefined;
    },

    /** Registers a new session (the shared row, mode `knowledge_graph`, and the module's row) at revision 0. */
    async createSession(input: {
      sessionId: string;
      taskId: string;
      goalQuery: string;
      now: string;
    }): Promise<StoredSession> {
      await db
        .insertInto("sessions")
        .values({
          id: input.sessionId,
          mode: "knowledge_graph",
          active_branch_id: null,
          created_at: input.now,
          updated_at: input.now,
        })
        .execute();
      const row: KnowledgeGraphSessionRow = {
        session_id: input.sessionId,
        first_task_id: input.taskId,
        goal_query: input.goalQuery,
        state: "active",
        revision: 0,
        pending: null,
        calls: 0,
        created_at: input.now,
        updated_at: input.now,
        last_active_at: input.now,
        closed_at: null,
        functional_predicates: null,
        closure: null,
      };
      await db.insertInto("knowledge_graph_sessions").values(row).execute();
      return toSession(row);
    },

    async findSession(sessionId: string): Promise<StoredSession | undefined> {
      const row = await db
        .selectFrom("knowledge_graph_sessions")
        .selectAll()
        .where("session_id", "=", sessionId)
        .executeTakeFirst();
      return row ? toSession(row) : undefined;
    },

    /**
     * Moves a session to its next revision if it is still at `expectedRevision`
     * (optimistic concurrency); false when another call changed it first.
     */
    async advanceSession(input: {
      sessionId: string;
      expectedRevision: number;
      state: KnowledgeGraphSessionState;
      pending: unknown;
      now: string;
    }): Promise<boolean> {
      const result = await db
        .updateTable("knowledge_graph_sessions")
        .set((eb) => ({
          state: input.state,
          pending: input.pending === null ? null : JSON.stringify(input.pending),
          revision: input.expectedRevision + 1,
          calls: eb("calls", "+", 1),
          updated_at: input.now,
          last_active_at: input.now,
        }))
        .where("session_id", "=", input.sessionId)
        .where("revision", "=", input.expectedRevision)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) === 0) return false;
      await db.updateTable("sessions").set({ updated_at: input.now }).where("id", "=", input.sessionId).execute();
      return true;
    },

    /** Live sessions (not ended, not idle past the cutoff). */
    async countLiveSessions(input: { idleCutoff: string }): Promise<number> {
      const row = await db
        .selectFrom("knowledge_graph_sessions")
        .select((eb) => eb.fn.countAll<number>().as("count"))
        .where("state", "in", [...liveSessionStates])
        .where("last_active_at", ">=", input.idleCutoff)
        .executeTakeFirst();
      return Number(row?.count ?? 0);
    },

    /** The live session idle the longest (it frees first), if any. */
    async leastRecentlyActiveSession(input: { idleCutoff: string }): Promise<StoredSession | undefined> {
      const row = await db
        .selectFrom("knowledge_graph_sessions")
        .selectAll()
        .where("state", "in", [...liveSessionStates])
        .where("last_active_at", ">=", input.idleCutoff)
        .orderBy("last_active_at", "asc")
        .orderBy("session_id", "asc")
        .limit(1)
        .executeTakeFirst();
      return row ? toSession(row) : undefined;
    },

    /** Marks live sessions idle since before the cutoff as expired; returns how many. */
    async expireIdleSessions(input: { idleCutoff: string; now: string }): Promise<number> {
      const result = await db
        .updateTable("knowledge_graph_sessions")
        .set({ state: "expired", pending: null, closed_at: input.now, updated_at: input.now })
        .where("state", "in", [...liveSessionStates])
        .where("last_active_at", "<", input.idleCutoff)
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },

    /** Ends or expires a session (it keeps its graph, read-only). */
    async closeSession(input: {
      sessionId: string;
      state: "ended" | "expired";
      closedAt: string;
      now: string;
    }): Promise<void> {
      await db
        .updateTable("knowledge_graph_sessions")
        .set((eb) => ({
          state: input.state,
          pending: null,
          closed_at: input.closedAt,
          updated_at: input.now,
          revision: eb("revision", "+", 1),
        }))
        .where("session_id", "=", input.sessionId)
        .execute();
      await db.updateTable("sessions").set({ updated_at: input.now }).where("id", "=", input.sessionId).execute();
    },

    /** The most recently updated sessions, newest first. */
    async listSessions(input: { limit: number }): Promise<StoredSession[]> {
      const rows = await db
        .selectFrom("knowledge_graph_sessions")
        .selectAll()
        .orderBy("updated_at", "desc")
        .orderBy("session_id", "asc")
        .limit(input.limit)
        .execute();
      return rows.map(toSession);
    },

    /** A session's whole graph, in insertion order. */
    async loadGraph(sessionId: string): Promise<{ entities: StoredEntity[]; relations: StoredRelation[] }> {
      const entities = await db
        .selectFrom("knowledge_graph_entities")
        .selectAll()
        .where("session_id", "=", sessionId)
        .orderBy("position", "asc")
        .execute();
      const relations = await db
        .selectFrom("knowledge_graph_relations")
        .selectAll()
        .where("session_id", "=", sessionId)
        .orderBy("position", "asc")
        .execute();
      return { entities: entities.map(toEntity), relations: relations.map(toRelation) };
    },

    /** The session's functional predicates and closure record (empty for an unknown session). */
    async loadReasoningState(sessionId: string): Promise<ReasoningState> {
      const row = await db
        .selectFrom("knowledge_graph_sessions")
        .select(["functional_predicates", "closure"])
        .where("session_id", "=", sessionId)
        .executeTakeFirst();
      const functional = row?.functional_predicates
        ? parseJsonColumn(row.functional_predicates, `knowledge_graph_sessions.functional_predicates of ${sessionId}`)
        : [];
      const closure = row?.closure
        ? (parseJsonColumn(row.closure, `knowledge_graph_sessions.closure of ${sessionId}`) as ClosureRecord)
        : null;
      return { functionalPredicates: Array.isArray(functional) ? functional.map(String) : [], closure };
    },

    /** Keeps the session's functional predicates and closure record (in the call's transaction). */
    async saveReasoningState(sessionId: string, state: ReasoningState): Promise<void> {
      await db
        .updateTable("knowledge_graph_sessions")
        .set({
          functional_predicates: JSON.stringify(state.functionalPredicates),
          closure: state.closure === null ? null : JSON.stringify(state.closure),
        })
        .where("session_id", "=", sessionId)
        .execute();
    },

    async countGraph(sessionId: string): Promise<{ entities: number; relations: number }> {
      const entities = await db
        .selectFrom("knowledge_graph_entities")
        .select((eb) => eb.fn.countAll<number>().as("count"))
        .where("session_id", "=", sessionId)
        .executeTakeFirst();
      const relations = await db
        .selectFrom("knowledge_graph_relations")
        .select((eb) => eb.fn.countAll<number>().as("count"))
        .where("session_id", "=", sessionId)
        .executeTakeFirst();
      return { entities: Number(entities?.count ?? 0), relations: Number(relations?.count ?? 0) };
    },

    /** Appends entities to a session's graph, after those it has. */
    async insertEntities(sessionId: string, entities: readonly NewEntity[], now: string): Promise<void> {
      if (entities.length === 0) return;
      let position = await nextPositions("knowledge_graph_entities", sessionId, entities.length);
      for (let start = 0; start < entities.length; start += insertBatch) {
        const rows = entities.slice(start, start + insertBatch).map((entity) => ({
          id: entity.id,
          session_id: sessionId,
          position: position++,
          name: entity.name,
          normalized_name: entity.key,
          type: entity.type,
          observations: JSON.stringify(entity.observations),
          confidence: entity.confidence,
          validity: entity.validity,
          ...provenanceColumns(entity.provenance),
          created_at: now,
          updated_at: now,
        }));
        await db.insertInto("knowledge_graph_entities").values(rows).execute();
      }
    },

    /** Rewrites what a merge or a confirmation changes on a stored entity. */
    async updateEntity(
      entity: Pick<StoredEntity, "id" | "type" | "observations" | "confidence" | "validity" | "provenance">,
      now: string,
    ): Promise<void> {
      await db
        .updateTable("knowledge_graph_entities")
        .set({
          type: entity.type,
          observations: JSON.stringify(entity.observations),
          confidence: entity.confidence,
          validity: entity.validity,
          ...provenanceColumns(entity.provenance),
          updated_at: now,
        })
        .where("id", "=", entity.id)
        .execute();
    },

    /** Appends relations; a second relation with the same (subject, predicate, object) is a STORAGE error (the unique key). */
    async insertRelations(sessionId: string, relations: readonly NewRelation[], now: string): Promise<void> {
      if (relations.length === 0) return;
      let position = await nextPositions("knowledge_graph_relations", sessionId, relations.length);
      for (let start = 0; start < relations.length; start += insertBatch) {
        const rows = relations.slice(start, start + insertBatch).map((relation) => ({
          id: relation.id,
          session_id: sessionId,
          position: position++,
          subject_id: relation.subjectId,
          predicate: relation.predicate,
          object_id: relation.objectId,
          confidence: relation.confidence,
          validity: relation.validity,
          status: relation.status,
          conflicts_with: JSON.stringify(relation.conflictsWith),
          ...provenanceColumns(relation.provenance),
          derivation: relation.derivation === null ? null : JSON.stringify(relation.derivation),
          created_at: now,
          updated_at: now,
        }));
        await db.insertInto("knowledge_graph_relations").values(rows).execute();
      }
    },

    /** Rewrites what a confirmation or retraction changes on a stored relation. */
    async updateRelation(
      relation: Pick<
        StoredRelation,
        "id" | "confidence" | "validity" | "status" | "conflictsWith" | "provenance" | "derivation"
      >,
      now: string,
    ): Promise<void> {
      await db
        .updateTable("knowledge_graph_relations")
        .set({
          confidence: relation.confidence,
          validity: relation.validity,
          status: relation.status,
          conflicts_with: JSON.stringify(relation.conflictsWith),
          ...provenanceColumns(relation.provenance),
          derivation: relation.derivation === null ? null : JSON.stringify(relation.derivation),
          updated_at: now,
        })
        .where("id", "=", relation.id)
        .execute();
    },
  };
}

export type KnowledgeGraphRepository = ReturnType<typeof createKnowledgeGraphRepository>;
