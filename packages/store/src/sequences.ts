import { type Kysely, sql } from "kysely";
import { directSqliteOf } from "./direct-sqlite.ts";

/** Where a sequence's positions are stored, so its first use can start after the rows already there. */
export interface PositionSequence {
  /** Names the sequence, usually the table it numbers (e.g. `thoughts`). */
  readonly scope: string;
  /** The group numbered from 0 (e.g. the session id). */
  readonly key: string;
  /** The table and columns holding the positions already assigned. */
  readonly table: string;
  readonly keyColumn: string;
  readonly positionColumn: string;
}

/**
 * Reserves `count` consecutive positions of a sequence (a session's thoughts,
 * a graph's nodes...) and returns the first. One atomic upsert on a counter
 * row, so concurrent writers never get the same position on any dialect (no
 * `max(position)+1` race); the row stays locked until the caller's transaction
 * ends, so positions follow commit order within one key. A sequence first
 * used on rows written before it existed starts after their highest position.
 * A rolled-back transaction gives its positions back; outside a transaction a
 * failed insert may leave a gap (order is kept, numbers may skip).
 */
// biome-ignore lint/suspicious/noExplicitAny: any table schema
export async function reservePositions(db: Kysely<any>, sequence: PositionSequence, count = 1): Promise<number> {
  if (!Number.isInteger(count) || count < 1)
    throw new Error(`reservePositions: count must be a whole number >= 1 (got ${count})`);
  const direct = directSqliteOf(db);
  if (direct !== undefined) {
    // The same statement, run synchronously on the transaction's connection (no kysely compile per call).
    const row = direct.get<{ next_position: number }>(reserveSql(sequence), [
      sequence.scope,
      sequence.key,
      sequence.key,
      count,
      count,
    ]);
    if (row === undefined)
      throw new Error(`reservePositions: no position returned for ${sequence.scope}/${sequence.key}`);
    return Number(row.next_position) - count;
  }
  const start = sql`(select coalesce(max(${sql.ref(sequence.positionColumn)}) + 1, 0) from ${sql.table(sequence.table)} where ${sql.ref(sequence.keyColumn)} = ${sequence.key})`;
  const result = await sql<{ next_position: number | string }>`
    insert into deliberate_sequences (scope, key, next_position)
    values (${sequence.scope}, ${sequence.key}, ${start} + ${count})
    on conflict (scope, key) do update set next_position = deliberate_sequences.next_position + ${count}
    returning next_position`.execute(db);
  const next = result.rows[0]?.next_position;
  if (next === undefined)
    throw new Error(`reservePositions: no position returned for ${sequence.scope}/${sequence.key}`);
  return Number(next) - count;
}

const quoted = (identifier: string) => `"${identifier.replaceAll('"', '""')}"`;
const reserveSqlByTarget = new Map<string, string>();

/** `reservePositions`' upsert as SQL text with `?` parameters: scope, key, key, count, count (one text per table). */
function reserveSql(sequence: PositionSequence): string {
  const target = `${sequence.table}.${sequence.keyColumn}.${sequence.positionColumn}`;
  let text = reserveSqlByTarget.get(target);
  if (text === undefined) {
    const position = quoted(sequence.positionColumn);
    text =
      "insert into deliberate_sequences (scope, key, next_position) " +
      `values (?, ?, (select coalesce(max(${position}) + 1, 0) from ${quoted(sequence.table)} where ${quoted(sequence.keyColumn)} = ?) + ?) ` +
      "on conflict (scope, key) do update set next_position = deliberate_sequences.next_position + ? returning next_position";
    reserveSqlByTarget.set(target, text);
  }
  return text;
}
