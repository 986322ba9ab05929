/**
 * A Postgres transaction's writes in one round trip.
 *
 * `pg` sends one statement per round trip and does not pipeline, so a call that
 * writes a session and a thought paid four: BEGIN, the session, the thought,
 * COMMIT. Here a plain transaction's BEGIN is not sent when it is asked for;
 * statements marked {@link DeferrableWrite} (writes whose result nobody reads)
 * wait on the connection with their parameters inlined as literals; and at
 * COMMIT the waiting writes go as one simple-protocol query. Postgres runs the
 * statements of one such query as one implicit transaction, committed after
 * its last statement and rolled back whole when any of them fails; `pg`
 * resolves the query only after the server says it is done (ReadyForQuery), so
 * nothing is acknowledged before it is committed.
 *
 * Any other statement on the transaction (a read, a write that returns rows)
 * first sends the waiting writes, led by BEGIN, as one query, then runs as
 * usual: reads see the transaction's earlier writes, at the cost of more round
 * trips. A savepoint command (savepoint, release, rollback to) goes at the end
 * of that one query: it returns nothing. A transaction with settings (`snapshot`'s repeatable
 * read, read only) begins when asked, as before.
 *
 * And whatever was batched or not: once a statement of the open transaction
 * failed and nothing since succeeded (in Postgres only a rollback succeeds in
 * an aborted transaction), COMMIT is refused — the transaction is rolled back
 * and the failure thrown — because Postgres would answer that COMMIT with
 * ROLLBACK and no error, and the caller would acknowledge what never landed.
 */
import {
  CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type QueryResult,
  type TransactionSettings,
} from "kysely";
import { DeferrableWrite } from "./deferrable-write.ts";
import { inlineParameters, type PgQuoting } from "./postgres-literal.ts";

const noRows: QueryResult<never> = Object.freeze({ rows: [] as never[] });

/** `savepoint x`, `release [savepoint] x`, `rollback to [savepoint] x` (kysely's and the call scope's spellings). */
const savepointCommand =
  /^\s*(savepoint|release(\s+savepoint)?|rollback\s+to(\s+savepoint)?)\s+("[^"]+"|[A-Za-z_][A-Za-z0-9_]*)\s*;?\s*$/i;

/** A pooled connection that holds back a plain transaction's BEGIN and its deferrable writes. */
class WriteBatchingConnection implements DatabaseConnection {
  /** "idle": no transaction; "held": BEGIN not yet sent; "open": BEGIN sent. */
  #state: "idle" | "held" | "open" = "idle";
  /** Writes waiting to be sent, as statements with their values inlined. */
  #waiting: string[] = [];
  /** The open transaction's last statement failed (and nothing succeeded since): it can only be rolled back. */
  #failure: { error: unknown } | undefined;

  constructor(
    readonly inner: DatabaseConnection,
    private readonly quoting: PgQuoting,
  ) {}

  /** A checkout starts with no transaction (one abandoned by an earlier holder never sent its held writes). */
  checkedOut(): this {
    this.#end();
    return this;
  }

  /** A plain BEGIN: sent with the first statement that cannot wait. */
  holdBegin(): void {
    this.#state = "held";
    this.#waiting = [];
    this.#failure = undefined;
  }

  /** A BEGIN with settings, sent now (by the inner driver, through this connection). */
  beganNow(): void {
    this.#state = "open";
    this.#waiting = [];
    this.#failure = undefined;
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (this.#state === "idle") return this.inner.executeQuery<R>(query);
    if (query instanceof DeferrableWrite) {
      this.#waiting.push(inlineParameters(query.sql, query.parameters, this.quoting));
      return noRows as QueryResult<R>;
    }
    if (query.parameters.length === 0 && savepointCommand.test(query.sql)) {
      // A savepoint, its release or a rollback to it returns nothing: it ends the batch that goes now.
      this.#waiting.push(query.sql);
      await this.#sendWaiting();
      return noRows as QueryResult<R>;
    }
    await this.#sendWaiting();
    return this.#inTransaction(() => this.inner.executeQuery<R>(query));
  }

  async *streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    if (this.#state === "idle") return yield* this.inner.streamQuery<R>(query, chunkSize);
    await this.#sendWaiting();
    try {
      yield* this.inner.streamQuery<R>(query, chunkSize);
      this.#failure = undefined;
    } catch (error) {
      this.#failure = { error };
      throw error;
    }
  }

  /** Sends what waits (BEGIN first, if it was held) as one query; the transaction is open after it. */
  async #sendWaiting(): Promise<void> {
    if (this.#state === "held") this.#waiting.unshift("begin");
    this.#state = "open";
    if (this.#waiting.length === 0) return;
    const batch = this.#waiting.join(";\n");
    this.#waiting = [];
    await this.#inTransaction(() => this.inner.executeQuery(CompiledQuery.raw(batch)));
  }

  async #inTransaction<T>(run: () => Promise<T>): Promise<T> {
    try {
      const result = await run();
      this.#failure = undefined;
      return result;
    } catch (error) {
      this.#failure = { error };
      throw error;
    }
  }

  async commit(): Promise<void> {
    const state = this.#state;
    const waiting = this.#waiting;
    const failure = this.#failure;
    this.#end();
    if (state === "held") {
      // Nothing reached the server: the writes are one implicit transaction (none at all: nothing to send).
      if (waiting.length > 0) await this.inner.executeQuery(CompiledQuery.raw(waiting.join(";\n")));
      return;
    }
    if (failure !== undefined) {
      await this.inner.executeQuery(CompiledQuery.raw("rollback")).catch(() => undefined);
      throw failure.error;
    }
    waiting.push("commit");
    try {
      await this.inner.executeQuery(CompiledQuery.raw(waiting.join(";\n")));
    } catch (error) {
      // A write before the COMMIT failed: the transaction is aborted, and still open on the server.
      if (waiting.length > 1) await this.inner.executeQuery(CompiledQuery.raw("rollback")).catch(() => undefined);
      throw error;
    }
  }

  async rollback(): Promise<void> {
    const state = this.#state;
    this.#end();
    // A held transaction sent nothing, and an ended one (its COMMIT failed) is gone: there is nothing to undo.
    if (state === "open") await this.inner.executeQuery(CompiledQuery.raw("rollback"));
  }

  #end(): void {
    this.#state = "idle";
    this.#waiting = [];
    this.#failure = undefined;
  }
}

function isPlain(settings: TransactionSettings): boolean {
  return settings.isolationLevel === undefined && settings.accessMode === undefined;
}

/** The driver handing out {@link WriteBatchingConnection}s over `inner`'s connections. */
class WriteBatchingDriver implements Driver {
  readonly #wrapped = new WeakMap<DatabaseConnection, WriteBatchingConnection>();
  constructor(
    readonly inner: Driver,
    private readonly quoting: PgQuoting,
  ) {}
  init(): Promise<void> {
    return this.inner.init();
  }
  async acquireConnection(): Promise<DatabaseConnection> {
    const connection = await this.inner.acquireConnection();
    let wrapped = this.#wrapped.get(connection);
    if (wrapped === undefined) {
      wrapped = new WriteBatchingConnection(connection, this.quoting);
      this.#wrapped.set(connection, wrapped);
    }
    return wrapped.checkedOut();
  }
  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const batching = connection as WriteBatchingConnection;
    if (isPlain(settings)) return batching.holdBegin();
    // The inner driver writes the BEGIN with its settings; it runs through this connection.
    await this.inner.beginTransaction(batching, settings);
    batching.beganNow();
  }
  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return (connection as WriteBatchingConnection).commit();
  }
  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return (connection as WriteBatchingConnection).rollback();
  }
  // Savepoints run through this connection (so they send what waits first, and their outcome counts).
  savepoint(
    connection: DatabaseConnection,
    name: string,
    compileQuery: Parameters<NonNullable<Driver["savepoint"]>>[2],
  ): Promise<void> {
    return this.inner.savepoint?.(connection, name, compileQuery) ?? unsupported();
  }
  rollbackToSavepoint(
    connection: DatabaseConnection,
    name: string,
    compileQuery: Parameters<NonNullable<Driver["rollbackToSavepoint"]>>[2],
  ): Promise<void> {
    return this.inner.rollbackToSavepoint?.(connection, name, compileQuery) ?? unsupported();
  }
  releaseSavepoint(
    connection: DatabaseConnection,
    name: string,
    compileQuery: Parameters<NonNullable<Driver["releaseSavepoint"]>>[2],
  ): Promise<void> {
    return this.inner.releaseSavepoint?.(connection, name, compileQuery) ?? unsupported();
  }
  releaseConnection(connection: DatabaseConnection): Promise<void> {
    const batching = connection as WriteBatchingConnection;
    return this.inner.releaseConnection(batching.inner);
  }
  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}

function unsupported(): Promise<never> {
  return Promise.reject(new Error("savepoints are not supported by this driver"));
}

/**
 * `dialect` (Postgres) whose plain transactions send their deferrable writes
 * with their COMMIT, in one round trip (see the top of this file). `quoting`
 * is `pg`'s, so an inlined value is the text `pg` would have bound.
 */
export function withWriteBatches(dialect: Dialect, quoting: PgQuoting): Dialect {
  return {
    createDriver: () => new WriteBatchingDriver(dialect.createDriver(), quoting),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createAdapter: () => dialect.createAdapter(),
    createIntrospector: (db) => dialect.createIntrospector(db),
  };
}
