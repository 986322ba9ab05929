import { databaseUnavailable } from "@deliberate/base";
import { type Kysely, sql } from "kysely";

/**
 * Resolves once the database answers a trivial statement (`select 1`) within `timeoutMs`; otherwise
 * rejects with a retryable STORAGE error (`databaseUnavailable`). What a readiness probe (`/readyz`) asks:
 * the process may be alive while its database is away.
 */
// biome-ignore lint/suspicious/noExplicitAny: any table schema
export async function checkDatabase(db: Kysely<any>, timeoutMs = 2000): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`the database did not answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    await Promise.race([sql`select 1`.execute(db), late]);
  } catch (error) {
    throw databaseUnavailable(error);
  } finally {
    clearTimeout(timer);
  }
}
