import {
  type AgentConfig,
  DeliberateError,
  type DialogAct,
  type DialogConsciousnessState,
  type DialogGradedBy,
  type DialogPlan,
  type DialogPresetName,
  type DialogSessionStatus,
  type DialogStopReason,
} from "@deliberate/contracts";
import { parseJsonColumn } from "@deliberate/store";
import { type Kysely, sql } from "kysely";
import { roundScore } from "../../score.ts";
import type { DialogDatabase } from "../tables.ts";
import type { DialogAgentRow } from "../tables/dialog-agent.table.ts";
import type { DialogExchangeRow } from "../tables/dialog-exchange.table.ts";
import type { DialogIterationRow } from "../tables/dialog-iteration.table.ts";
import type { DialogSessionRow } from "../tables/dialog-session.table.ts";
import type { DialogSummaryRow } from "../tables/dialog-summary.table.ts";

/** A dialog session with its agents. */
export interface DialogSession {
  session_id: string;
  thread_id: string;
  topic: string;
  context: string | null;
  mode: DialogPresetName;
  plan: DialogPlan;
  agents: AgentConfig[];
  max_iterations: number;
  quality_threshold: number;
  token_budget: number | null;
  wall_time_budget_seconds: number | null;
  context_budget_tokens: number;
  idle_timeout_seconds: number;
  status: DialogSessionStatus;
  stop_reason: DialogStopReason | null;
  completed_iterations: number;
  current_quality: number | null;
  tokens_used: number;
  error: string | null;
  created_at: string;
  updated_at: string;
}

/** Token figures of one model call. */
export interface DialogTokens {
  input: number;
  output: number;
  /** True when the provider reported no usage and these are characters / 4. */
  estimated: boolean;
}

/** One stored agent turn. */
export interface DialogExchangeRecord {
  id: string;
  session_id: string;
  iteration: number;
  position: number;
  step: number;
  agent: string;
  role: "initiator" | "responder";
  act: DialogAct;
  content: string;
  answer: Record<string, unknown>;
  tokens: DialogTokens;
  model: string | null;
  state: DialogConsciousnessState | null;
  created_at: string;
}

export interface DialogDirective {
  agent: string;
  criterion: string;
  directive: string;
}

export interface DialogReviewScore {
  agent: string;
  score: number;
  criteria: Record<string, number>;
}

/** One stored iteration: its reviewed document and quality. */
export interface DialogIterationRecord {
  session_id: string;
  iteration: number;
  document: string;
  reviewer_score: number;
  self_assessment: number;
  criteria: Record<string, number>;
  reviews: DialogReviewScore[];
  directives: DialogDirective[];
  tokens: number;
  status: string;
  /** Who gave the reviewer scores; null on rows recorded before it was kept. */
  graded_by: DialogGradedBy | null;
  created_at: string;
}

/** A stored summary of early iterations. */
export interface DialogSummaryRecord {
  session_id: string;
  through_iteration: number;
  made_in_iteration: number;
  content: string;
  tokens: DialogTokens;
  model: string | null;
  created_at: string;
}

export type NewDialogSession = Omit<
  DialogSession,
  "status" | "stop_reason" | "completed_iterations" | "current_quality" | "tokens_used" | "error" | "updated_at"
>;

/** What one finished exchange writes, in one transaction. */
export interface DialogExchangeWrite {
  session_id: string;
  /** The session's completed_iterations when the exchange started; another writer in between is a CONFLICT. */
  expected_completed_iterations: number;
  session: {
    status: DialogSessionStatus;
    stop_reason: DialogStopReason | null;
    current_quality: number;
    tokens_used: number;
  };
  exchanges: DialogExchangeRecord[];
  iteration: DialogIterationRecord;
  summary?: DialogSummaryRecord;
  now: string;
}

function toAgent(row: DialogAgentRow): AgentConfig {
  return {
    name: row.name,
    role: row.role,
    systemPrompt: row.system_prompt,
    ...(row.model !== null ? { model: row.model } : {}),
    ...(row.temperature !== null ? { temperature: row.temperature } : {}),
    ...(row.max_tokens !== null ? { maxTokens: row.max_tokens } : {}),
  };
}

function toSession(row: DialogSessionRow, agents: AgentConfig[]): DialogSession {
  return {
    ...row,
    current_quality: row.current_quality === null ? null : roundScore(row.current_quality),
    mode: row.mode as DialogPresetName,
    plan: parseJsonColumn<DialogPlan>(row.plan, `dialog session ${row.session_id} plan`),
    agents,
    status: row.status as DialogSessionStatus,
    stop_reason: row.stop_reason as DialogStopReason | null,
  };
}

function toExchange(row: DialogExchangeRow): DialogExchangeRecord {
  return {
    id: row.id,
    session_id: row.session_id,
    iteration: row.iteration,
    position: row.position,
    step: row.step,
    agent: row.agent,
    role: row.role === "initiator" ? "initiator" : "responder",
    act: row.act as DialogAct,
    content: row.content,
    answer: parseJsonColumn<Record<string, unknown>>(row.answer, `dialog exchange ${row.id}`),
    tokens: { input: row.input_tokens, output: row.output_tokens, estimated: row.tokens_estimated === 1 },
    model: row.model,
    state: row.state as DialogConsciousnessState | null,
    created_at: row.created_at,
  };
}

const roundedScores = (scores: Record<string, number>) =>
  Object.fromEntries(Object.entries(scores).map(([name, score]) => [name, roundScore(score)]));

// Scores are rounded on read too: rows written before scores were rounded read the same as new ones.
function toIteration(row: DialogIterationRow): DialogIterationRecord {
  const where = `dialog iteration ${row.session_id}/${row.iteration}`;
  return {
    ...row,
    reviewer_score: roundScore(row.reviewer_score),
    self_assessment: roundScore(row.self_assessment),
    criteria: roundedScores(parseJsonColumn<Record<string, number>>(row.criteria, where)),
    reviews: parseJsonColumn<DialogReviewScore[]>(row.reviews, where).map((review) => ({
      ...review,
      score: roundScore(review.score),
      criteria: roundedScores(review.criteria),
    })),
    directives: parseJsonColumn<DialogDirective[]>(row.directives, where),
    graded_by: row.graded_by as DialogGradedBy | null,
  };
}

function toSummary(row: DialogSummaryRow): DialogSummaryRecord {
  return {
    session_id: row.session_id,
    through_iteration: row.through_iteration,
    made_in_iteration: row.made_in_iteration,
    content: row.content,
    tokens: { input: row.input_tokens, output: row.output_tokens, estimated: row.tokens_estimated === 1 },
    model: row.model,
    created_at: row.created_at,
  };
}

/**
 * Dialog sessions and everything recorded in them: agents, exchanges, the
 * quality of each iteration, summaries. Bound to a database or a transaction.
 */
export function createDialogSessionRepository(db: Kysely<DialogDatabase>) {
  async function findSession(sessionId: string): Promise<DialogSession | undefined> {
    const row = await db
      .selectFrom("dialog_sessions")
      .selectAll()
      .where("session_id", "=", sessionId)
      .executeTakeFirst();
    if (!row) return undefined;
    const agents = await db
      .selectFrom("dialog_agents")
      .selectAll()
      .where("session_id", "=", sessionId)
      .orderBy("position", "asc")
      .execute();
    return toSession(row, agents.map(toAgent));
  }

  return {
    /** Inserts the session and its agents (the shared sessions row must exist). */
    async createSession(session: NewDialogSession): Promise<DialogSession> {
      const row: DialogSessionRow = {
        session_id: session.session_id,
        thread_id: session.thread_id,
        topic: session.topic,
        context: session.context,
        mode: session.mode,
        plan: JSON.stringify(session.plan),
        max_iterations: session.max_iterations,
        quality_threshold: session.quality_threshold,
        token_budget: session.token_budget,
        wall_time_budget_seconds: session.wall_time_budget_seconds,
        context_budget_tokens: session.context_budget_tokens,
        idle_timeout_seconds: session.idle_timeout_seconds,
        status: "started",
        stop_reason: null,
        completed_iterations: 0,
        current_quality: null,
        tokens_used: 0,
        error: null,
        created_at: session.created_at,
        updated_at: session.created_at,
      };
      await db.insertInto("dialog_sessions").values(row).execute();
      await db
        .insertInto("dialog_agents")
        .values(
          session.agents.map((agent, position) => ({
            session_id: session.session_id,
            position,
            name: agent.name,
            role: agent.role,
            system_prompt: agent.systemPrompt,
            model: agent.model ?? null,
            temperature: agent.temperature ?? null,
            max_tokens: agent.maxTokens ?? null,
          })),
        )
        .execute();
      return toSession(row, session.agents);
    },

    findSession,

    /** The session, or NOT_FOUND naming session_id. */
    async getSession(sessionId: string): Promise<DialogSession> {
      const session = await findSession(sessionId);
      if (!session) {
        throw new DeliberateError({
          code: "NOT_FOUND",
          message: `Reasoning session not found: ${sessionId}`,
          issues: [{ field: "session_id", message: `no reasoning session with id '${sessionId}'` }],
          hint: "Pass a session_id returned by start_reasoning_session, or start a new session.",
        });
      }
      return session;
    },

    /** The session's exchanges in iteration and plan order: all of them, or the window `[offset, offset + limit)`. */
    async listExchanges(
      sessionId: string,
      window?: { offset: number; limit: number },
    ): Promise<DialogExchangeRecord[]> {
      let query = db
        .selectFrom("dialog_exchanges")
        .selectAll()
        .where("session_id", "=", sessionId)
        .orderBy("iteration", "asc")
        .orderBy("position", "asc");
      if (window) query = query.limit(window.limit).offset(window.offset);
      return (await query.execute()).map(toExchange);
    },

    /** The agents that took a turn in the session (any order). */
    async listSpeakers(sessionId: string): Promise<string[]> {
      const rows = await db
        .selectFrom("dialog_exchanges")
        .select("agent")
        .distinct()
        .where("session_id", "=", sessionId)
        .execute();
      return rows.map((row) => row.agent);
    },

    /** How many exchanges the session has recorded. */
    async countExchanges(sessionId: string): Promise<number> {
      const row = await db
        .selectFrom("dialog_exchanges")
        .select((expression) => expression.fn.countAll<number | string | bigint>().as("count"))
        .where("session_id", "=", sessionId)
        .executeTakeFirst();
      return Number(row?.count ?? 0);
    },

    /** Every iteration's outcome, in order. */
    async listIterations(sessionId: string): Promise<DialogIterationRecord[]> {
      const rows = await db
        .selectFrom("dialog_iterations")
        .selectAll()
        .where("session_id", "=", sessionId)
        .orderBy("iteration", "asc")
        .execute();
      return rows.map(toIteration);
    },

    /** Every summary made, oldest first. */
    async listSummaries(sessionId: string): Promise<DialogSummaryRecord[]> {
      const rows = await db
        .selectFrom("dialog_summaries")
        .selectAll()
        .where("session_id", "=", sessionId)
        .orderBy("through_iteration", "asc")
        .execute();
      return rows.map(toSummary);
    },

    /**
     * Writes one finished exchange: the session's new state (only if no other exchange
     * finished since this one started, else CONFLICT), its turns, its iteration, its summary.
     * Call inside a transaction.
     */
    async recordExchange(write: DialogExchangeWrite): Promise<void> {
      const updated = await db
        .updateTable("dialog_sessions")
        .set({
          status: write.session.status,
          stop_reason: write.session.stop_reason,
          current_quality: write.session.current_quality,
          tokens_used: write.session.tokens_used,
          completed_iterations: write.expected_completed_iterations + 1,
          error: null,
          updated_at: write.now,
        })
        .where("session_id", "=", write.session_id)
        .where("completed_iterations", "=", write.expected_completed_iterations)
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) !== 1) {
        throw new DeliberateError({
          code: "CONFLICT",
          message: `Another exchange of session ${write.session_id} finished while this one ran; iteration ${write.iteration.iteration} is already recorded.`,
          issues: [{ field: "session_id", message: "an exchange of this session ran concurrently" }],
          hint: "Run one exchange at a time per session; call get_session_status to see where it stands.",
        });
      }
      if (write.summary) {
        const summary = write.summary;
        await db
          .insertInto("dialog_summaries")
          .values({
            session_id: summary.session_id,
            through_iteration: summary.through_iteration,
            made_in_iteration: summary.made_in_iteration,
            content: summary.content,
            input_tokens: summary.tokens.input,
            output_tokens: summary.tokens.output,
            tokens_estimated: summary.tokens.estimated ? 1 : 0,
            model: summary.model,
            created_at: summary.created_at,
          })
          .execute();
      }
      await db
        .insertInto("dialog_exchanges")
        .values(
          write.exchanges.map((exchange) => ({
            id: exchange.id,
            session_id: exchange.session_id,
            iteration: exchange.iteration,
            position: exchange.position,
            step: exchange.step,
            agent: exchange.agent,
            role: exchange.role,
            act: exchange.act,
            content: exchange.content,
            answer: JSON.stringify(exchange.answer),
            input_tokens: exchange.tokens.input,
            output_tokens: exchange.tokens.output,
            tokens_estimated: exchange.tokens.estimated ? 1 : 0,
            model: exchange.model,
            state: exchange.state,
            created_at: exchange.created_at,
          })),
        )
        .execute();
      const iteration = write.iteration;
      await db
        .insertInto("dialog_iterations")
        .values({
          session_id: iteration.session_id,
          iteration: iteration.iteration,
          document: iteration.document,
          reviewer_score: iteration.reviewer_score,
          self_assessment: iteration.self_assessment,
          criteria: JSON.stringify(iteration.criteria),
          reviews: JSON.stringify(iteration.reviews),
          directives: JSON.stringify(iteration.directives),
          tokens: iteration.tokens,
          status: iteration.status,
          graded_by: iteration.graded_by,
          created_at: iteration.created_at,
        })
        .execute();
    },

    /**
     * Records that the last exchange failed, with the tokens it spent (they count against the
     * budget): status error, so the next exchange retries it; or, when `budgetExhausted`,
     * completed with stop_reason budget_exhausted.
     */
    async markError(input: {
      sessionId: string;
      error: string;
      now: string;
      tokensSpent?: number;
      budgetExhausted?: boolean;
    }): Promise<void> {
      await db
        .updateTable("dialog_sessions")
        .set({
          status: input.budgetExhausted ? "completed" : "error",
          ...(input.budgetExhausted ? { stop_reason: "budget_exhausted" } : {}),
          error: input.error,
          tokens_used: sql<number>`tokens_used + ${input.tokensSpent ?? 0}`,
          updated_at: input.now,
        })
        .where("session_id", "=", input.sessionId)
        .execute();
    },

    /** Adds tokens a refused or cancelled exchange spent, leaving the session's status as it was. */
    async addTokens(input: { sessionId: string; tokens: number }): Promise<void> {
      await db
        .updateTable("dialog_sessions")
        .set({ tokens_used: sql<number>`tokens_used + ${input.tokens}` })
        .where("session_id", "=", input.sessionId)
        .execute();
    },

    /** The most recently active sessions, newest first. */
    async listSessions(input: { limit: number }): Promise<DialogSession[]> {
      const rows = await db
        .selectFrom("dialog_sessions")
        .select("session_id")
        .orderBy("updated_at", "desc")
        .limit(input.limit)
        .execute();
      const sessions = await Promise.all(rows.map((row) => findSession(row.session_id)));
      return sessions.filter((session): session is DialogSession => session !== undefined);
    },
  };
}
export type DialogSessionRepository = ReturnType<typeof createDialogSessionRepository>;
