import { type CompiledQuery, type Compilable, createQueryId, type Kysely, PostgresAdapter } from "kysely";
import { DeferrableWrite } from "./deferrable-write.ts";
import { type DirectSqlite, directSqliteOf } from "./direct-sqlite.ts";

/** A placeholder standing for one value while a statement is built once. */
interface Placeholder {
  readonly index: number;
}

/**
 * A multi-row INSERT (or upsert) built and compiled once per dialect and row
 * count instead of on every call. Building a many-row insert with kysely and
 * compiling it costs more than SQLite takes to run it (a batch of invocation
 * rows: objects per cell, an operation-node tree, the SQL text); the statement
 * is the same for every batch of the same size, only the values differ.
 *
 * `build` gets `rows` whose cells are placeholders, one per column in
 * `columns`, and must use each exactly once, as a value (e.g. in `values`; an
 * `onConflict` clause may refer to columns, not values). The result runs the
 * compiled SQL with the rows' values (a cell that is `undefined` is sent as
 * null: give defaults yourself), in slices of at most `maxRows` rows, on any
 * database handle or transaction of the same dialect.
 *
 * ```ts
 * const insertLogs = preparedInsert(["id", "event"] as const, (db: Kysely<Database>, rows) => db.insertInto("logs").values(rows), 100);
 * await insertLogs(transaction, [{ id: "l1", event: "started" }]);
 * ```
 */
export function preparedInsert<DB, Column extends string>(
  columns: readonly Column[],
  build: (db: Kysely<DB>, rows: Array<Record<Column, unknown>>) => Compilable<unknown>,
  maxRows: number,
): PreparedInsert<DB, Column> {
  if (!Number.isInteger(maxRows) || maxRows < 1)
    throw new Error(`preparedInsert: maxRows must be a whole number >= 1 (got ${maxRows})`);
  const width = columns.length;
  // Per dialect (the adapter decides placeholders and quoting), per row count: the compiled statement and,
  // for each of its parameters, the index of the value it takes in the rows' values laid out row by row.
  const byAdapter = new WeakMap<object, Map<number, { compiled: CompiledQuery; order: Int32Array }>>();

  function compiledFor(db: Kysely<DB>, adapter: object, count: number) {
    let sizes = byAdapter.get(adapter);
    if (sizes === undefined) {
      sizes = new Map();
      byAdapter.set(adapter, sizes);
    }
    let entry = sizes.get(count);
    if (entry === undefined) {
      const placeholders: Placeholder[] = [];
      const rows = Array.from({ length: count }, (_, row) => {
        const cells = {} as Record<Column, unknown>;
        columns.forEach((column, index) => {
          const placeholder = { index: row * width + index };
          placeholders.push(placeholder);
          cells[column] = placeholder;
        });
        return cells;
      });
      const compiled = build(db, rows).compile();
      const order = Int32Array.from(compiled.parameters, (parameter) => placeholders.indexOf(parameter as Placeholder));
      if (order.includes(-1) || order.length !== placeholders.length || new Set(order).size !== order.length) {
        throw new Error("preparedInsert: every cell must be used exactly once, as a value");
      }
      entry = { compiled, order };
      sizes.set(count, entry);
    }
    return entry;
  }

  /** The slices of `rows`, each as its compiled statement and parameters. */
  function* slices(db: Kysely<DB>, rows: ReadonlyArray<Readonly<Record<Column, unknown>>>) {
    const adapter = db.getExecutor().adapter as object;
    for (let start = 0; start < rows.length; start += maxRows) {
      const count = Math.min(maxRows, rows.length - start);
      const { compiled, order } = compiledFor(db, adapter, count);
      const parameters = new Array<unknown>(order.length);
      for (let position = 0; position < order.length; position += 1) {
        const index = order[position] as number;
        const row = rows[start + Math.floor(index / width)] as Record<Column, unknown>;
        parameters[position] = row[columns[index % width] as Column] ?? null;
      }
      yield { compiled, parameters };
    }
  }

  const insert = async (db: Kysely<DB>, rows: ReadonlyArray<Readonly<Record<Column, unknown>>>) => {
    const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
    // In a SQLite transaction the statement runs directly on its connection (see direct-sqlite.ts).
    const direct = directSqliteOf(db);
    for (const { compiled, parameters } of slices(db, rows)) {
      if (direct !== undefined) direct.run(compiled.sql, parameters);
      // Nothing is read back: in a Postgres transaction it goes with the COMMIT (postgres-write-batch.ts).
      else if (postgres) await db.executeQuery(new DeferrableWrite(compiled.sql, parameters));
      else await db.executeQuery({ ...compiled, queryId: createQueryId(), parameters } as CompiledQuery);
    }
  };
  return Object.assign(insert, {
    now(db: Kysely<DB>, sqlite: DirectSqlite, rows: ReadonlyArray<Readonly<Record<Column, unknown>>>) {
      for (const { compiled, parameters } of slices(db, rows)) sqlite.run(compiled.sql, parameters);
    },
  });
}

/** What {@link preparedInsert} returns: the insert, and the same run synchronously on a SQLite connection. */
export interface PreparedInsert<DB, Column extends string> {
  (db: Kysely<DB>, rows: ReadonlyArray<Readonly<Record<Column, unknown>>>): Promise<void>;
  /**
   * The same statements run at once on `sqlite` (a connection the caller holds, e.g. in
   * `runSqliteTransactionNow`); `db` is a handle of the same dialect, to compile them with.
   */
  now(db: Kysely<DB>, sqlite: DirectSqlite, rows: ReadonlyArray<Readonly<Record<Column, unknown>>>): void;
}
