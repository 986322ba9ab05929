import { isTransientDatabaseFault, toDeliberateError } from "@deliberate/base";
import { sql } from "kysely";
import pg from "pg";
import { afterEach, describe, expect, it, vi } from "vitest";
import { runDeferrableWrite } from "../src/deferrable-write.ts";
import { createCallScope, openStore, type Store } from "../src/index.ts";
import { freshTestDatabase, testDialects } from "../src/testing/index.ts";

// A call's writes on Postgres: one round trip for the whole call (session, thought, COMMIT), all or nothing,
// and nothing acknowledged that did not commit. Round trips are counted as `pg` queries: `pg` sends one
// query per round trip (it does not pipeline), and a multi-statement simple query is one.

const now = "2026-11-27T10:00:00.000Z";
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A store on a fresh schema, its connections named `application` (so a test can find and end them). */
async function openNamed(application: string): Promise<{ store: Store; url: string }> {
  const where = await freshTestDatabase("postgres");
  if (!("url" in where)) throw new Error("expected Postgres");
  const url = new URL(where.url);
  url.searchParams.set("application_name", application);
  const store = await openStore({ url: url.toString(), poolSize: 2 });
  cleanups.push(() => store.close());
  return { store, url: url.toString() };
}

/** A client of its own on the store's database, for what the test does beside the store. */
async function sideClient(url: string): Promise<pg.Client> {
  const plain = new URL(url);
  plain.searchParams.set("application_name", "side");
  const client = new pg.Client({ connectionString: plain.toString() });
  await client.connect();
  cleanups.push(() => client.end());
  return client;
}

/** Counts what `pg` sends (each `query` is one round trip) while `work` runs. */
async function countQueries<T>(work: () => Promise<T>): Promise<{ result: T; queries: string[] }> {
  const queries: string[] = [];
  const original = pg.Client.prototype.query;
  const spy = vi.spyOn(pg.Client.prototype, "query").mockImplementation(function (this: pg.Client, ...args: unknown[]) {
    const first = args[0];
    queries.push(typeof first === "string" ? first : String((first as { text?: unknown })?.text ?? first));
    return (original as (...inner: unknown[]) => unknown).apply(this, args) as never;
  });
  try {
    return { result: await work(), queries };
  } finally {
    spy.mockRestore();
  }
}

/** The writes of `reasoning_decision` with scores: a new session and its thought, in one call. */
async function decisionCall(store: Store, session: string, thoughtId: string, content = `in ${session}`) {
  const scope = createCallScope(store);
  try {
    await scope.store.transaction(async (repositories) => {
      await repositories.sessions.create({ id: session, mode: "decision", now });
      await repositories.thoughts.append({
        id: thoughtId,
        session_id: session,
        mode: "decision",
        content,
        confidence: 0.75,
        metadata: { scores: [[1, 5, 9]], note: "it's \\ a 'quote' and $1" },
        created_at: now,
      });
    });
    await scope.commit();
  } catch (error) {
    await scope.rollback();
    throw error;
  }
}

async function sessionsOf(client: pg.Client): Promise<string[]> {
  const result = await client.query<{ id: string }>("select id from sessions order by id");
  return result.rows.map((row) => row.id);
}

describe.skipIf(!testDialects.includes("postgres"))("a call's writes on Postgres", () => {
  it("reach the server in one round trip (session, thought with its position, COMMIT) and land as written", async () => {
    const { store } = await openNamed("one_trip");
    const { queries } = await countQueries(() => decisionCall(store, "ses_one", "th_one"));
    expect(queries).toHaveLength(1);
    const [thought] = await store.thoughts.listBySession("ses_one");
    expect(thought).toMatchObject({
      id: "th_one",
      session_id: "ses_one",
      mode: "decision",
      content: "in ses_one",
      confidence: 0.75,
      status: "active",
      created_at: now,
      metadata: { scores: [[1, 5, 9]], note: "it's \\ a 'quote' and $1" },
    });
    expect(await store.sessions.get("ses_one")).toMatchObject({ mode: "decision", created_at: now });
    // A second call appending to the session is one round trip too, and numbers its thought after the first.
    const scope = createCallScope(store);
    const { queries: appendQueries } = await countQueries(async () => {
      await scope.store.transaction(async (repositories) => {
        await repositories.sessions.touch({ id: "ses_one", now });
        await repositories.thoughts.append({
          id: "th_two",
          session_id: "ses_one",
          mode: "m",
          content: "2",
          created_at: now,
        });
      });
      await scope.commit();
    });
    expect(appendQueries).toHaveLength(1);
    const positions = await store.db.selectFrom("thoughts").select(["id", "position"]).orderBy("position").execute();
    expect(positions).toEqual([
      { id: "th_one", position: 0 },
      { id: "th_two", position: 1 },
    ]);
  });

  it("send nothing before the commit, and nothing at all when the call rolls back", async () => {
    const { store, url } = await openNamed("held");
    const side = await sideClient(url);
    const scope = createCallScope(store);
    const { queries } = await countQueries(() =>
      scope.store.transaction(async (repositories) => {
        await repositories.sessions.create({ id: "ses_held", mode: "m", now });
        await repositories.thoughts.append({
          id: "th_held",
          session_id: "ses_held",
          mode: "m",
          content: "x",
          created_at: now,
        });
      }),
    );
    expect(queries).toEqual([]);
    expect(await sessionsOf(side)).toEqual([]);
    const { queries: rollbackQueries } = await countQueries(() => scope.rollback());
    expect(rollbackQueries).toEqual([]);
    expect(await sessionsOf(side)).toEqual([]);
    // The connection is back in the pool in a clean state: the next call lands.
    await decisionCall(store, "ses_after", "th_after");
    expect(await sessionsOf(side)).toEqual(["ses_after"]);
  });

  it("roll back as a whole when one statement fails, with the statement's own error (a unique violation)", async () => {
    const { store } = await openNamed("failing");
    await decisionCall(store, "ses_first", "th_same");
    const failure = await decisionCall(store, "ses_second", "th_same").catch((error: unknown) => error);
    expect((failure as { code?: string }).code).toBe("23505");
    expect((failure as Error).message).toMatch(/duplicate key value violates unique constraint/);
    // Mapped as the same error raised by the statement itself is: not a retryable storage fault.
    expect(toDeliberateError(failure)).toMatchObject({ code: "INTERNAL", retryable: false });
    expect((await store.sessions.find("ses_second")) === undefined).toBe(true);
    // The failed call's position was given back; the pool's connections are clean (two, both used again).
    await decisionCall(store, "ses_third", "th_third");
    await decisionCall(store, "ses_fourth", "th_fourth");
    const sessions = await store.db.selectFrom("sessions").select("id").orderBy("id").execute();
    expect(sessions.map((row) => row.id)).toEqual(["ses_first", "ses_fourth", "ses_third"]);
    const counters = await sql<{ key: string; next_position: number }>`
      select key, next_position from deliberate_sequences order by key`.execute(store.db);
    expect(counters.rows).toEqual([
      { key: "ses_first", next_position: 1 },
      { key: "ses_fourth", next_position: 1 },
      { key: "ses_third", next_position: 1 },
    ]);
  });

  it("let a read inside the call see the call's earlier writes (sent first, with BEGIN), and still commit all or nothing", async () => {
    const { store, url } = await openNamed("read_own");
    const side = await sideClient(url);
    const scope = createCallScope(store);
    const { result, queries } = await countQueries(async () => {
      const seen = await scope.store.transaction(async (repositories) => {
        await repositories.sessions.create({ id: "ses_read", mode: "m", now });
        await repositories.thoughts.append({
          id: "th_r1",
          session_id: "ses_read",
          mode: "m",
          content: "1",
          created_at: now,
        });
        const session = await repositories.sessions.find("ses_read");
        const count = await repositories.thoughts.count("ses_read");
        await repositories.thoughts.append({
          id: "th_r2",
          session_id: "ses_read",
          mode: "m",
          content: "2",
          created_at: now,
        });
        return { session, count };
      });
      // Outside the call nothing is visible yet: its transaction is open, not committed.
      expect(await sessionsOf(side)).toEqual([]);
      await scope.commit();
      return seen;
    });
    expect(result.session?.id).toBe("ses_read");
    expect(result.count).toBe(1);
    // BEGIN with the first two writes; the two reads; the last write with COMMIT (and the side client's one read).
    const ours = queries.filter((text) => !text.startsWith("select id from sessions"));
    expect(ours).toHaveLength(4);
    expect(ours[0]).toMatch(/^begin;\n/);
    expect(ours[3]).toMatch(/;\ncommit$/);
    expect((await store.thoughts.listBySession("ses_read")).map((thought) => thought.id)).toEqual(["th_r1", "th_r2"]);

    // The same shape rolled back leaves nothing, though its first writes had reached the server.
    const undone = createCallScope(store);
    await undone.store.transaction(async (repositories) => {
      await repositories.sessions.create({ id: "ses_undone", mode: "m", now });
      expect(await repositories.sessions.find("ses_undone")).toBeDefined();
    });
    await undone.rollback();
    expect(await sessionsOf(side)).toEqual(["ses_read"]);
  });

  it("send a later work's savepoint with the writes before it, and roll back to it when a write of that work fails", async () => {
    const { store, url } = await openNamed("two_works");
    const side = await sideClient(url);
    await decisionCall(store, "ses_taken", "th_taken");
    const scope = createCallScope(store);
    const { queries } = await countQueries(async () => {
      await scope.store.transaction((repositories) => repositories.sessions.create({ id: "ses_w1", mode: "m", now }));
      await scope.store.transaction((repositories) => repositories.sessions.create({ id: "ses_w2", mode: "m", now }));
      // This work's write collides; it fails when its release sends it, and only it is undone.
      const failed = scope.store.transaction((repositories) =>
        repositories.sessions.create({ id: "ses_taken", mode: "m", now }),
      );
      await expect(failed).rejects.toMatchObject({ code: "23505" });
      await scope.commit();
    });
    // begin + w1 + savepoint; w2 + release; savepoint; w3 + release (fails); rollback to; release; commit.
    expect(queries).toHaveLength(7);
    expect(queries[0]).toMatch(/^begin;\n.*;\nsavepoint call_1$/s);
    expect(await sessionsOf(side)).toEqual(["ses_taken", "ses_w1", "ses_w2"]);
  });

  it("refuse to commit a transaction whose statement failed though the failure was caught (Postgres would answer ROLLBACK)", async () => {
    const { store, url } = await openNamed("caught");
    const side = await sideClient(url);
    await decisionCall(store, "ses_taken", "th_taken");
    const scope = createCallScope(store);
    const caught = await scope.store.transaction(async (repositories) => {
      await repositories.sessions.create({ id: "ses_caught", mode: "m", now });
      await repositories.thoughts.append({
        id: "th_taken",
        session_id: "ses_caught",
        mode: "m",
        content: "x",
        created_at: now,
      });
      // The read sends the waiting writes; the duplicate id fails there, and this work swallows the error.
      return repositories.sessions.find("ses_caught").then(
        () => undefined,
        (error: unknown) => error,
      );
    });
    expect(caught).toBeInstanceOf(Error);
    const refused = await scope.commit().catch((error: unknown) => error);
    expect((refused as { code?: string }).code).toBe("23505");
    await scope.rollback();
    expect(await sessionsOf(side)).toEqual(["ses_taken"]);
    await decisionCall(store, "ses_next", "th_next");
    expect(await sessionsOf(side)).toEqual(["ses_next", "ses_taken"]);
  });

  it("refuse to commit after any failed statement the handler caught, not only a deferred one", async () => {
    const { store, url } = await openNamed("caught_direct");
    const side = await sideClient(url);
    await decisionCall(store, "ses_taken", "th_taken");
    const scope = createCallScope(store);
    await scope.store.transaction(async (repositories) => {
      await repositories.sessions.create({ id: "ses_kept", mode: "m", now });
      // A statement run at once (not deferrable) fails, and the work goes on as if nothing happened.
      const failure =
        await sql`insert into sessions (id, mode, created_at, updated_at) values (${"ses_taken"}, 'm', ${now}, ${now})`
          .execute(repositories.db)
          .catch((error: unknown) => error);
      expect((failure as { code?: string }).code).toBe("23505");
    });
    // Postgres would answer this COMMIT with ROLLBACK and no error: the call must not be acknowledged.
    await expect(scope.commit()).rejects.toMatchObject({ code: "23505" });
    await scope.rollback();
    expect(await sessionsOf(side)).toEqual(["ses_taken"]);
  });

  it("fail as a transient fault, leaving nothing, when the connection is killed during the commit", async () => {
    const { store, url } = await openNamed("killed_commit");
    const side = await sideClient(url);
    const scope = createCallScope(store);
    await scope.store.transaction(async (repositories) => {
      await repositories.sessions.create({ id: "ses_killed", mode: "m", now });
      // A write that takes its time, so the commit is in flight when the connection is killed.
      await runDeferrableWrite(repositories.db, "select pg_sleep($1)", [30]);
      await repositories.thoughts.append({
        id: "th_killed",
        session_id: "ses_killed",
        mode: "m",
        content: "x",
        created_at: now,
      });
    });
    const committing = scope.commit().catch((error: unknown) => error);
    let pid: number | undefined;
    await until(async () => {
      const active = await side.query<{ pid: number }>(
        "select pid from pg_stat_activity where application_name = 'killed_commit' and query like '%pg_sleep%' and state = 'active'",
      );
      pid = active.rows[0]?.pid;
      return pid !== undefined;
    });
    // Only the committing connection: the pool's idle one stays (killing it too would race the next call).
    await side.query("select pg_terminate_backend($1)", [pid]);
    const failure = await committing;
    expect(failure).toBeInstanceOf(Error);
    expect(isTransientDatabaseFault(failure)).toBe(true);
    expect(toDeliberateError(failure)).toMatchObject({ code: "STORAGE", retryable: true });
    await scope.rollback();
    expect(await sessionsOf(side)).toEqual([]);
    // The pool opens a new connection: the store serves the next call.
    await decisionCall(store, "ses_after", "th_after");
    expect(await sessionsOf(side)).toEqual(["ses_after"]);
  });

  it("fail as a transient fault, leaving nothing, when the connection is killed between a read and the commit", async () => {
    const { store, url } = await openNamed("killed_open");
    const side = await sideClient(url);
    const scope = createCallScope(store);
    await scope.store.transaction(async (repositories) => {
      await repositories.sessions.create({ id: "ses_open", mode: "m", now });
      expect(await repositories.sessions.find("ses_open")).toBeDefined();
      await repositories.thoughts.append({
        id: "th_open",
        session_id: "ses_open",
        mode: "m",
        content: "x",
        created_at: now,
      });
    });
    const ended = await side.query(
      "select pg_terminate_backend(pid) as ended from pg_stat_activity where application_name = 'killed_open' and state like 'idle in transaction%'",
    );
    expect(ended.rows).toEqual([{ ended: true }]);
    const failure = await scope.commit().catch((error: unknown) => error);
    expect(isTransientDatabaseFault(failure)).toBe(true);
    await scope.rollback();
    expect(await sessionsOf(side)).toEqual([]);
    await decisionCall(store, "ses_later", "th_later");
    expect(await sessionsOf(side)).toEqual(["ses_later"]);
  });
});

/** Polls `check` until it holds (a minute at most, for a loaded machine). */
async function until(check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("the condition did not hold within a minute");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
