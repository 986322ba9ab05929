import type BetterSqlite3 from "better-sqlite3";
import type { SqliteDatabase, SqliteStatement } from "kysely";

/** How many distinct SQL texts keep their prepared statement (least recently used first out). */
const defaultCapacity = 512;

/**
 * The SQLite handle kysely is given: the connection with its prepared
 * statements reused by SQL text. Kysely's SQLite driver calls `prepare` for
 * every query, and compiling a statement costs several times what running a
 * small one does; kysely emits the same text for the same query shape (values
 * are parameters), so the hot queries are compiled once. A statement still
 * iterating (a streamed query) is never handed out twice: a fresh one is
 * prepared instead. SQLite re-prepares cached statements itself after a schema change.
 */
export function withStatementCache(connection: BetterSqlite3.Database, capacity = defaultCapacity): SqliteDatabase {
  const statements = new Map<string, BetterSqlite3.Statement>();
  return {
    close: () => {
      statements.clear();
      connection.close();
    },
    prepare(sql: string): SqliteStatement {
      const cached = statements.get(sql);
      if (cached !== undefined && !cached.busy) {
        // Re-insert so the map's order is least recently used first.
        statements.delete(sql);
        statements.set(sql, cached);
        return cached as unknown as SqliteStatement;
      }
      const statement = connection.prepare(sql);
      if (cached === undefined) {
        statements.set(sql, statement);
        if (statements.size > capacity) statements.delete(statements.keys().next().value as string);
      }
      return statement as unknown as SqliteStatement;
    },
  };
}
