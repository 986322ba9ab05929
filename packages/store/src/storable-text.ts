import type { CompiledQuery, DatabaseConnection, Dialect, Driver, QueryResult, TransactionSettings } from "kysely";

/** What U+0000 becomes in text the store writes: U+FFFD, the replacement character. */
export const nulReplacement = "\uFFFD";

/**
 * The parameters of a query with every U+0000 in a string (or a string in an
 * array) replaced by U+FFFD; the same array when there is none, which is
 * nearly always (one native search per string parameter).
 *
 * Postgres `text` cannot hold U+0000 (the statement fails), SQLite's can:
 * replaced on every dialect, the two store the same thing. Callers' input
 * never gets here with one (`parseInput` refuses it); this is for text from
 * elsewhere — a model's answer, a provider's error message.
 */
export function storableParameters(parameters: ReadonlyArray<unknown>): ReadonlyArray<unknown> {
  let replaced: unknown[] | undefined;
  for (let index = 0; index < parameters.length; index += 1) {
    const value = parameters[index];
    let storable: unknown = value;
    if (typeof value === "string") {
      if (value.includes("\0")) storable = value.replaceAll("\0", nulReplacement);
    } else if (Array.isArray(value) && value.some((item) => typeof item === "string" && item.includes("\0"))) {
      storable = value.map((item: unknown) =>
        typeof item === "string" ? item.replaceAll("\0", nulReplacement) : item,
      );
    }
    if (storable !== value) {
      replaced ??= [...parameters];
      replaced[index] = storable;
    }
  }
  return replaced ?? parameters;
}

function storableQuery(query: CompiledQuery): CompiledQuery {
  const parameters = storableParameters(query.parameters);
  return parameters === query.parameters ? query : { ...query, parameters };
}

/** A connection whose statements' parameters go through `storableParameters`. */
class StorableTextConnection implements DatabaseConnection {
  constructor(readonly inner: DatabaseConnection) {}
  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    return this.inner.executeQuery<R>(storableQuery(query));
  }
  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(storableQuery(query), chunkSize);
  }
}

/** The driver handing out `StorableTextConnection`s and giving its own back their connection. */
class StorableTextDriver implements Driver {
  readonly #wrapped = new WeakMap<DatabaseConnection, StorableTextConnection>();
  constructor(readonly inner: Driver) {}
  #unwrap(connection: DatabaseConnection): DatabaseConnection {
    return connection instanceof StorableTextConnection ? connection.inner : connection;
  }
  init(): Promise<void> {
    return this.inner.init();
  }
  async acquireConnection(): Promise<DatabaseConnection> {
    const connection = await this.inner.acquireConnection();
    let wrapped = this.#wrapped.get(connection);
    if (wrapped === undefined) {
      wrapped = new StorableTextConnection(connection);
      this.#wrapped.set(connection, wrapped);
    }
    return wrapped;
  }
  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    return this.inner.beginTransaction(this.#unwrap(connection), settings);
  }
  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.commitTransaction(this.#unwrap(connection));
  }
  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.rollbackTransaction(this.#unwrap(connection));
  }
  savepoint(
    connection: DatabaseConnection,
    name: string,
    compileQuery: Parameters<NonNullable<Driver["savepoint"]>>[2],
  ): Promise<void> {
    return (
      this.inner.savepoint?.(this.#unwrap(connection), name, compileQuery) ??
      Promise.reject(new Error("savepoints are not supported by this driver"))
    );
  }
  rollbackToSavepoint(
    connection: DatabaseConnection,
    name: string,
    compileQuery: Parameters<NonNullable<Driver["rollbackToSavepoint"]>>[2],
  ): Promise<void> {
    return (
      this.inner.rollbackToSavepoint?.(this.#unwrap(connection), name, compileQuery) ??
      Promise.reject(new Error("savepoints are not supported by this driver"))
    );
  }
  releaseSavepoint(
    connection: DatabaseConnection,
    name: string,
    compileQuery: Parameters<NonNullable<Driver["releaseSavepoint"]>>[2],
  ): Promise<void> {
    return (
      this.inner.releaseSavepoint?.(this.#unwrap(connection), name, compileQuery) ??
      Promise.reject(new Error("savepoints are not supported by this driver"))
    );
  }
  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.inner.releaseConnection(this.#unwrap(connection));
  }
  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}

/**
 * `dialect` with every U+0000 in a statement's string parameters replaced by
 * U+FFFD before the database sees it (see `storableParameters`), on every
 * query path: kysely's builders, `sql` templates, prepared queries and inserts.
 * JSON columns are written as JSON text, where U+0000 is the escape `\u0000`
 * (six characters, valid in Postgres `json` and SQLite text): kept as it is.
 */
export function withStorableText(dialect: Dialect): Dialect {
  return {
    createDriver: () => new StorableTextDriver(dialect.createDriver()),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createAdapter: () => dialect.createAdapter(),
    createIntrospector: (db) => dialect.createIntrospector(db),
  };
}
