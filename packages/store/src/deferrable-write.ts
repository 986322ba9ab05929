import { type CompiledQuery, createQueryId, type Kysely, RawNode } from "kysely";

/**
 * A write whose result nobody reads (no rows, no count): in a Postgres
 * transaction it may wait and reach the server with the transaction's other
 * writes and its COMMIT, in one round trip (see `postgres-write-batch.ts`).
 * Anywhere else (SQLite, a Postgres handle outside a transaction) it runs when
 * called, like any statement.
 *
 * A repository marks a statement deferrable only when its caller needs nothing
 * back from it: the statement's error (a unique violation...) then surfaces
 * when the transaction's writes are sent — at its commit, or at the next
 * statement that is not deferrable — and fails the transaction as a whole.
 */
export class DeferrableWrite implements CompiledQuery {
  readonly query: RawNode;
  readonly queryId = createQueryId();
  constructor(
    /** Postgres SQL with `$1`... placeholders. */
    readonly sql: string,
    readonly parameters: readonly unknown[],
  ) {
    this.query = rawNodeOf(sql);
  }
}

// One node per SQL text: the texts are a handful of constants.
const rawNodes = new Map<string, RawNode>();
function rawNodeOf(sql: string): RawNode {
  let node = rawNodes.get(sql);
  if (node === undefined) {
    node = RawNode.createWithSql(sql);
    if (rawNodes.size < 64) rawNodes.set(sql, node);
  }
  return node;
}

/** Runs `sql` (Postgres placeholders) on `db` as a {@link DeferrableWrite}. */
// biome-ignore lint/suspicious/noExplicitAny: any table schema
export async function runDeferrableWrite(db: Kysely<any>, sql: string, parameters: readonly unknown[]): Promise<void> {
  await db.executeQuery(new DeferrableWrite(sql, parameters));
}
