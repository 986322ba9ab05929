import { sql } from "kysely";
import type { Repositories, Store } from "./store.ts";

/**
 * A Store whose writes all land in one open transaction: `repositories` are
 * that transaction's. Its own `transaction(work)` calls join it, one at a time
 * (so read-then-write work such as appending a thought stays atomic when
 * callers run concurrently), each inside a savepoint that is rolled back if
 * `work` throws. Used to make a multi-step call all-or-nothing, e.g. a
 * host-executed preset round that may suspend.
 *
 * Queries issued outside `transaction(work)` share the connection and are not
 * serialised with it; a rolled-back savepoint also undoes such writes made
 * while it was open.
 */
export function joinTransaction<Extra extends object = object>(
  repositories: Repositories<Extra>,
  contributors: ReadonlySet<string> = new Set(),
): Store<Extra> {
  let queue: Promise<unknown> = Promise.resolve();
  let savepoints = 0;

  async function inSavepoint<T>(work: (joined: Repositories<Extra>) => Promise<T>): Promise<T> {
    savepoints += 1;
    const name = sql.raw(`joined_${savepoints}`);
    await sql`savepoint ${name}`.execute(repositories.db);
    try {
      const result = await work(repositories);
      await sql`release savepoint ${name}`.execute(repositories.db);
      return result;
    } catch (error) {
      await sql`rollback to savepoint ${name}`.execute(repositories.db);
      await sql`release savepoint ${name}`.execute(repositories.db);
      throw error;
    }
  }

  function transaction<T>(work: (joined: Repositories<Extra>) => Promise<T>): Promise<T> {
    const run = queue.then(() => inSavepoint(work));
    queue = run.catch(() => undefined);
    return run;
  }

  return {
    ...repositories,
    transaction,
    // Already one transaction: its reads see its own writes (a snapshot elsewhere would not, and on SQLite would wait for it).
    snapshot: transaction,
    close: () => Promise.reject(new Error("A joined transaction is closed by the transaction that owns it.")),
    contributors,
  };
}
