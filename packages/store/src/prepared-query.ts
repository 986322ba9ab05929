import { type CompiledQuery, type Compilable, createQueryId, type Kysely, type QueryResult } from "kysely";
import { idleSqliteOf, isConnectionBusy } from "./direct-sqlite.ts";

/** A placeholder standing for one parameter while a query is built once. */
interface Placeholder {
  readonly index: number;
}

interface Compiled {
  compiled: CompiledQuery;
  /** For each parameter of the compiled SQL: the placeholder's index, or the value built in. */
  parameters: Array<{ placeholder: number } | { value: unknown }>;
}

/**
 * A query built and compiled once per dialect instead of on every call.
 * Building a query with kysely and compiling it to SQL costs more than running
 * a small one on SQLite; hot reads (a session by id, a session's checkpoints)
 * are the same query every time with other values. `build` gets placeholders
 * for the values (use them only as values, e.g. in `where`); the result runs
 * the compiled SQL with the call's values on any database handle or
 * transaction of the same dialect. On a store's own SQLite handle, when no
 * transaction holds the connection, it runs at once as a prepared statement
 * (no executor, no connection lock: `idleSqliteOf`); otherwise through kysely.
 *
 * ```ts
 * const sessionById = preparedQuery((db: Kysely<Database>, id) => db.selectFrom("sessions").selectAll().where("id", "=", id));
 * const rows = await sessionById(db, "ses_1");
 * ```
 */
export function preparedQuery<DB, Row, Values extends unknown[]>(
  build: (db: Kysely<DB>, ...values: { [K in keyof Values]: Values[K] }) => Compilable<Row>,
): (db: Kysely<DB>, ...values: Values) => Promise<Row[]> {
  // Compiled per dialect: the adapter decides placeholders and quoting.
  const byAdapter = new WeakMap<object, Compiled>();
  return async (db, ...values) => {
    const executor = db.getExecutor();
    const adapter = executor.adapter as object;
    let entry = byAdapter.get(adapter);
    if (entry === undefined) {
      const placeholders: Placeholder[] = values.map((_, index) => ({ index }));
      const compiled = build(db, ...(placeholders as unknown as { [K in keyof Values]: Values[K] })).compile();
      const parameters = compiled.parameters.map((parameter) => {
        const placeholder = placeholders.indexOf(parameter as Placeholder);
        return placeholder >= 0 ? { placeholder } : { value: parameter };
      });
      if (parameters.filter((parameter) => "placeholder" in parameter).length !== values.length) {
        throw new Error("preparedQuery: every placeholder must be used exactly once, as a value");
      }
      entry = { compiled, parameters };
      byAdapter.set(adapter, entry);
    }
    const { compiled, parameters } = entry;
    const bound = parameters.map((parameter) =>
      "placeholder" in parameter ? values[parameter.placeholder] : parameter.value,
    );
    // A store's SQLite handle with no transaction holding the connection: the statement runs at once.
    const idle = idleSqliteOf(db);
    if (idle !== undefined) {
      try {
        return idle.all<Row>(compiled.sql, bound);
      } catch (error) {
        // A streamed query is still iterating on the connection: wait for it through kysely.
        if (!isConnectionBusy(error)) throw error;
      }
    }
    const result: QueryResult<Row> = await db.executeQuery<Row>({
      ...compiled,
      queryId: createQueryId(),
      parameters: bound,
    } as CompiledQuery<Row>);
    return result.rows;
  };
}
