import type BetterSqlite3 from "better-sqlite3";
import type { SqliteDatabase, SqliteStatement } from "kysely";

/** How many distinct SQL texts keep their prepared statement (least recently used first out). */
const defaultCapacity = 512;

/** One cached statement, in the recency list (oldest first). */
interface CachedStatement {
  readonly sql: string;
  readonly statement: BetterSqlite3.Statement;
  older: CachedStatement | undefined;
  newer: CachedStatement | undefined;
}

/**
 * Prepared statements by SQL text, least recently used first out. The order is a linked list through the
 * entries, not the map's insertion order: moving an entry to the newest end on every hit (delete, then set)
 * made the map rebuild its table every few dozen statements, and under load each rebuilt table (about 1 kB for
 * the ~30 hot statements) lived long enough to be promoted to the old generation — about one per request. A hit
 * here moves two pointers and allocates nothing.
 */
class StatementLru {
  private readonly bySql = new Map<string, CachedStatement>();
  private oldest: CachedStatement | undefined;
  private newest: CachedStatement | undefined;

  constructor(private readonly capacity: number) {}

  /** The cached entry of `sql`, if any (its recency unchanged: see `touch`). */
  find(sql: string): CachedStatement | undefined {
    return this.bySql.get(sql);
  }

  /** Marks `entry` the most recently used. */
  touch(entry: CachedStatement): void {
    if (entry === this.newest) return;
    this.unlink(entry);
    this.append(entry);
  }

  /** Caches `statement` for `sql` (not cached yet) as the most recently used; the least recently used goes beyond capacity. */
  add(sql: string, statement: BetterSqlite3.Statement): void {
    const entry: CachedStatement = { sql, statement, older: undefined, newer: undefined };
    this.bySql.set(sql, entry);
    this.append(entry);
    if (this.bySql.size > this.capacity && this.oldest !== undefined) {
      const evicted = this.oldest;
      this.unlink(evicted);
      this.bySql.delete(evicted.sql);
    }
  }

  clear(): void {
    this.bySql.clear();
    this.oldest = undefined;
    this.newest = undefined;
  }

  private unlink(entry: CachedStatement): void {
    if (entry.older !== undefined) entry.older.newer = entry.newer;
    else this.oldest = entry.newer;
    if (entry.newer !== undefined) entry.newer.older = entry.older;
    else this.newest = entry.older;
    entry.older = undefined;
    entry.newer = undefined;
  }

  private append(entry: CachedStatement): void {
    entry.older = this.newest;
    if (this.newest !== undefined) this.newest.newer = entry;
    else this.oldest = entry;
    this.newest = entry;
  }
}

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
  const statements = new StatementLru(capacity);
  return {
    close: () => {
      statements.clear();
      connection.close();
    },
    prepare(sql: string): SqliteStatement {
      const cached = statements.find(sql);
      if (cached !== undefined && !cached.statement.busy) {
        statements.touch(cached);
        return cached.statement as unknown as SqliteStatement;
      }
      const statement = connection.prepare(sql);
      if (cached === undefined) statements.add(sql, statement);
      return statement as unknown as SqliteStatement;
    },
  };
}
