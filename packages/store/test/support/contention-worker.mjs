// One process hammering a shared SQLite file with read-then-write transactions.
// Usage: node contention-worker.mjs <dialect-module-url|deferred> <database path> <milliseconds> <kysely url> <better-sqlite3 url>
// Prints one JSON line: { committed, locked, otherErrors, firstError }.
import { setTimeout as sleep } from "node:timers/promises";

const [dialectUrl, path, durationText, kyselyUrl, sqliteUrl] = process.argv.slice(2);
const { Kysely, SqliteDialect, sql } = await import(kyselyUrl);
const { default: BetterSqlite3 } = await import(sqliteUrl);

const connection = new BetterSqlite3(path);
connection.pragma("journal_mode = WAL");
connection.pragma("synchronous = NORMAL");
connection.pragma("busy_timeout = 5000");
const dialect =
  dialectUrl === "deferred"
    ? new SqliteDialect({ database: connection })
    : (await import(dialectUrl)).createImmediateSqliteDialect({ database: connection });
const db = new Kysely({ dialect });

const until = Date.now() + Number(durationText);
let committed = 0;
let locked = 0;
let otherErrors = 0;
let firstError;
while (Date.now() < until) {
  try {
    await db.transaction().execute(async (trx) => {
      const row = await sql`select value from counter where id = 1`.execute(trx);
      await sleep(Math.random() < 0.5 ? 0 : 1);
      await sql`update counter set value = ${row.rows[0].value + 1} where id = 1`.execute(trx);
      await sql`insert into events (process, at) values (${process.pid}, ${Date.now()})`.execute(trx);
    });
    committed += 1;
  } catch (error) {
    if (/database is locked|SQLITE_BUSY/i.test(String(error?.message ?? error))) locked += 1;
    else otherErrors += 1;
    firstError ??= String(error?.message ?? error);
  }
  await sleep(Math.random() * 2);
}
await db.destroy();
process.stdout.write(`${JSON.stringify({ committed, locked, otherErrors, firstError })}\n`);
