import {
  CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  SqliteDialect,
  type SqliteDialectConfig,
  SqliteDriver,
  type TransactionSettings,
} from "kysely";
import { SqliteLimitQueryCompiler } from "./sqlite-query-compiler.ts";

/**
 * The SQLite driver with write transactions: `begin immediate` takes the write
 * lock when the transaction starts. A deferred `begin` takes it at the first
 * write, and when another connection wrote in between, SQLite cannot wait
 * (upgrading a read to a write would deadlock), so it fails at once with
 * SQLITE_BUSY ("database is locked") whatever `busy_timeout` says. Starting as a
 * writer makes the wait happen at `begin`, where `busy_timeout` applies.
 * A `read only` transaction (`Store.snapshot`) starts deferred: it only reads,
 * so it takes no write lock and its snapshot starts at its first read.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  // kysely passes the settings to every driver; SqliteDriver declares the one parameter it uses.
  override async beginTransaction(connection: DatabaseConnection, settings?: TransactionSettings): Promise<void> {
    await connection.executeQuery(
      CompiledQuery.raw(settings?.accessMode === "read only" ? "begin" : "begin immediate"),
    );
  }
}

/**
 * Kysely's SQLite dialect whose transactions start with `begin immediate`
 * (see {@link ImmediateSqliteDriver}) and whose LIMIT is not re-planned on
 * every run (see {@link SqliteLimitQueryCompiler}); everything else is
 * `SqliteDialect`'s. Savepoints inside a transaction are unchanged.
 */
export function createImmediateSqliteDialect(config: SqliteDialectConfig): Dialect {
  const dialect = new SqliteDialect(config);
  return {
    createDriver: () => new ImmediateSqliteDriver(config),
    createQueryCompiler: () => new SqliteLimitQueryCompiler(),
    createAdapter: () => dialect.createAdapter(),
    createIntrospector: (db) => dialect.createIntrospector(db),
  };
}
