import { DeliberateError } from "@deliberate/contracts";
import type { Store } from "@deliberate/store";
import { openTestStore, testDialects } from "@deliberate/store/testing";
import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { DialogRepositories } from "../../dialog-context.ts";
import { dialogModule } from "../../module.ts";
import type { DialogExchangeWrite, DialogSessionRepository, NewDialogSession } from "./dialog-session.repository.ts";
import { dialogTables } from "../migrations/2026-11-23T1000-dialog-tables.ts";

let store: Store<DialogRepositories>;
let repository: DialogSessionRepository;
const now = "2026-11-23T10:00:00.000Z";

function newSession(id: string): NewDialogSession {
  return {
    session_id: id,
    thread_id: `thr-${id}`,
    topic: "Topic",
    context: null,
    mode: "debate",
    plan: [[{ agent: "dialog", act: "produce" }], [{ agent: "critic", act: "review" }]],
    agents: [
      { name: "dialog", role: "r", systemPrompt: "p", temperature: 0.2, maxTokens: 700, model: "small" },
      { name: "critic", role: "r", systemPrompt: "q" },
    ],
    max_iterations: 3,
    quality_threshold: 0.8,
    token_budget: 5000,
    wall_time_budget_seconds: null,
    context_budget_tokens: 32000,
    idle_timeout_seconds: 3600,
    created_at: now,
  };
}

function exchangeWrite(sessionId: string, iteration: number, expected = iteration): DialogExchangeWrite {
  const tokens = { input: 10, output: 5, estimated: false };
  return {
    session_id: sessionId,
    expected_completed_iterations: expected,
    session: { status: "in_progress", stop_reason: null, current_quality: 0.6, tokens_used: 30 * (iteration + 1) },
    exchanges: ["dialog", "critic"].map((agent, position) => ({
      id: `dx-${sessionId}-${iteration}-${position}`,
      session_id: sessionId,
      iteration,
      position,
      step: position,
      agent,
      role: position === 0 ? "initiator" : "responder",
      act: position === 0 ? "produce" : "review",
      content: `${agent} at ${iteration}`,
      answer: { agent },
      tokens,
      model: "m",
      state: "analyzing",
      created_at: now,
    })),
    iteration: {
      session_id: sessionId,
      iteration,
      document: `document ${iteration}`,
      reviewer_score: 0.6,
      self_assessment: 0.9,
      criteria: { evidence: 0.6 },
      reviews: [{ agent: "critic", score: 0.6, criteria: { evidence: 0.6 } }],
      graded_by: "server_model",
      directives: [{ agent: "critic", criterion: "evidence", directive: "cite" }],
      tokens: 30,
      status: "in_progress",
      created_at: now,
    },
    now,
  };
}

async function createBoth(id: string) {
  await store.transaction(async (repositories) => {
    await repositories.sessions.create({ id, mode: "dialog", now });
    await repositories.dialogSessions.createSession(newSession(id));
  });
}

async function countRows(table: string, sessionId: string): Promise<number> {
  const row = await sql<{
    count: number;
  }>`select count(*) as count from ${sql.table(table)} where session_id = ${sessionId}`.execute(store.db);
  return Number(row.rows[0]?.count);
}

describe.each(testDialects)("dialog session repository on %s", (dialect) => {
  beforeEach(async () => {
    store = await openTestStore<DialogRepositories>(dialect, { modules: [dialogModule] });
    repository = store.dialogSessions;
  });
  afterEach(async () => {
    await store.close();
  });

  it("stores a session with its agents in order, overrides included", async () => {
    await createBoth("s1");
    const session = await repository.getSession("s1");
    expect(session).toMatchObject({
      status: "started",
      completed_iterations: 0,
      current_quality: null,
      tokens_used: 0,
      token_budget: 5000,
      error: null,
    });
    expect(session.agents).toEqual(newSession("s1").agents);
    expect(session.plan).toEqual(newSession("s1").plan);
    expect(await repository.findSession("missing")).toBeUndefined();
    const error = await repository.getSession("missing").catch((caught: unknown) => caught);
    expect(DeliberateError.isInstance(error) && error.code).toBe("NOT_FOUND");
    expect((error as DeliberateError).issues).toEqual([
      { field: "session_id", message: "no reasoning session with id 'missing'" },
    ]);
  });

  it("records an exchange (turns, iteration, summary, session state) and keeps sessions apart", async () => {
    await createBoth("s1");
    await createBoth("s2");
    const write = exchangeWrite("s1", 0);
    write.summary = {
      session_id: "s1",
      through_iteration: 0,
      made_in_iteration: 2,
      content: "sum",
      tokens: { input: 3, output: 2, estimated: true },
      model: null,
      created_at: now,
    };
    await store.transaction(async (repositories) => repositories.dialogSessions.recordExchange(write));
    await repository.recordExchange(exchangeWrite("s2", 0));
    expect(await repository.getSession("s1")).toMatchObject({
      status: "in_progress",
      completed_iterations: 1,
      current_quality: 0.6,
      tokens_used: 30,
    });
    expect(
      (await repository.listExchanges("s1")).map((exchange) => [
        exchange.agent,
        exchange.role,
        exchange.act,
        exchange.content,
        exchange.tokens,
      ]),
    ).toEqual([
      ["dialog", "initiator", "produce", "dialog at 0", { input: 10, output: 5, estimated: false }],
      ["critic", "responder", "review", "critic at 0", { input: 10, output: 5, estimated: false }],
    ]);
    expect(await repository.listIterations("s1")).toEqual([write.iteration]);
    expect(await repository.listSummaries("s1")).toEqual([write.summary]);
    expect(await repository.listSummaries("s2")).toEqual([]);
    expect((await repository.listExchanges("s2")).every((exchange) => exchange.session_id === "s2")).toBe(true);
  });

  it("refuses an exchange whose session moved on meanwhile, and the transaction writes nothing", async () => {
    await createBoth("s1");
    await repository.recordExchange(exchangeWrite("s1", 0));
    const stale = exchangeWrite("s1", 1, 0);
    const error = await store
      .transaction(async (repositories) => repositories.dialogSessions.recordExchange(stale))
      .catch((caught: unknown) => caught);
    expect(DeliberateError.isInstance(error) && error.code).toBe("CONFLICT");
    expect(await countRows("dialog_exchanges", "s1")).toBe(2);
    expect(await countRows("dialog_iterations", "s1")).toBe(1);
  });

  it("marks a failed exchange, and the next recorded one clears it", async () => {
    await createBoth("s1");
    await repository.markError({
      sessionId: "s1",
      error: "MODEL_OUTPUT_INVALID: bad",
      now: "2026-11-23T10:05:00.000Z",
    });
    expect(await repository.getSession("s1")).toMatchObject({
      status: "error",
      error: "MODEL_OUTPUT_INVALID: bad",
      updated_at: "2026-11-23T10:05:00.000Z",
    });
    await repository.recordExchange(exchangeWrite("s1", 0));
    expect(await repository.getSession("s1")).toMatchObject({ status: "in_progress", error: null });
  });

  it("a failed exchange's tokens count: error while under the token budget, completed (budget_exhausted) once it is reached", async () => {
    await createBoth("s1");
    await repository.markError({ sessionId: "s1", error: "MODEL_OUTPUT_INVALID: bad", now, tokensSpent: 1200 });
    expect(await repository.getSession("s1")).toMatchObject({ status: "error", tokens_used: 1200, stop_reason: null });
    await repository.addTokens({ sessionId: "s1", tokens: 300 });
    expect(await repository.getSession("s1")).toMatchObject({ status: "error", tokens_used: 1500 });
    await repository.markError({
      sessionId: "s1",
      error: "MODEL_OUTPUT_INVALID: bad again",
      now,
      tokensSpent: 3600,
      budgetExhausted: true,
    });
    expect(await repository.getSession("s1")).toMatchObject({
      status: "completed",
      stop_reason: "budget_exhausted",
      tokens_used: 5100,
      error: "MODEL_OUTPUT_INVALID: bad again",
    });
  });

  it("pages exchanges in iteration and plan order, counts them and names who spoke", async () => {
    await createBoth("s1");
    for (let iteration = 0; iteration < 3; iteration += 1)
      await repository.recordExchange(exchangeWrite("s1", iteration));
    expect(await repository.countExchanges("s1")).toBe(6);
    expect(await repository.countExchanges("s2")).toBe(0);
    expect(
      (await repository.listExchanges("s1", { offset: 1, limit: 3 })).map(
        (exchange) => `${exchange.iteration}:${exchange.position}`,
      ),
    ).toEqual(["0:1", "1:0", "1:1"]);
    expect(await repository.listExchanges("s1", { offset: 6, limit: 3 })).toEqual([]);
    expect((await repository.listSpeakers("s1")).sort()).toEqual(["critic", "dialog"]);
  });

  it("deleting the shared session removes every dialog row (foreign keys cascade)", async () => {
    await createBoth("s1");
    await repository.recordExchange(exchangeWrite("s1", 0));
    await store.db.deleteFrom("sessions").where("id", "=", "s1").execute();
    for (const table of ["dialog_sessions", "dialog_agents", "dialog_exchanges", "dialog_iterations"])
      expect(await countRows(table, "s1")).toBe(0);
  });

  it("lists sessions by last activity", async () => {
    await createBoth("s1");
    await createBoth("s2");
    await repository.markError({ sessionId: "s1", error: "x", now: "2026-11-23T11:00:00.000Z" });
    expect((await repository.listSessions({ limit: 10 })).map((session) => session.session_id)).toEqual(["s1", "s2"]);
  });
});

describe("dialog migration", () => {
  it("compiles to Postgres DDL with portable types and each dialect's own boolean, timestamp and JSON", async () => {
    const statements: string[] = [];
    const postgres = new Kysely<unknown>({
      dialect: {
        createAdapter: () => new PostgresAdapter(),
        createDriver: () => new DummyDriver(),
        createIntrospector: (db) => new PostgresIntrospector(db),
        createQueryCompiler: () => new PostgresQueryCompiler(),
      },
      log: (event) => {
        if (event.level === "query") statements.push(event.query.sql);
      },
    });
    await dialogTables.up(postgres);
    await dialogTables.down?.(postgres);
    expect(statements.filter((statement) => statement.startsWith("create table"))).toHaveLength(5);
    const ddl = statements.join("\n").toLowerCase();
    expect(ddl).not.toMatch(/autoincrement|without rowid|strict|datetime|blob|jsonb/);
    const types = [...ddl.matchAll(/[(,] ?"[a-z_]+" (double precision|[a-z]+)/g)].map((match) => match[1]);
    expect(new Set(types)).toEqual(new Set(["text", "integer", "double precision", "boolean", "timestamptz", "json"]));
    expect(statements.filter((statement) => statement.startsWith("drop table"))).toHaveLength(5);
  });
});
