import { type Kysely, type RawBuilder, sql } from "kysely";
import { dialectOf } from "./dialect.ts";

/** Column data types and literals that differ between the dialects, for migrations. */
export interface ColumnTypes {
  /** `boolean` on Postgres; `integer` (1 or 0) on SQLite. */
  readonly boolean: "boolean" | "integer";
  /** `timestamptz` on Postgres; ISO-8601 `text` on SQLite. */
  readonly timestamp: "timestamptz" | "text";
  /**
   * `json` on Postgres (validated, and kept byte for byte: `jsonb` would reorder
   * keys, and host replay needs stored arguments exactly as given); `text` on SQLite.
   */
  readonly json: "json" | "text";
  /** The false literal for a boolean column's default. */
  readonly false: RawBuilder<unknown>;
  /** The true literal for a boolean column's default. */
  readonly true: RawBuilder<unknown>;
}

/**
 * The portable column types of the dialect `db` speaks. Whatever the column
 * type, the store hands every dialect's values to the code in one shape:
 * booleans as 1 or 0, timestamps as ISO-8601 strings (`...T...Z`), JSON as its text.
 *
 * ```ts
 * const types = columnTypes(db);
 * db.schema.createTable("notes").addColumn("done", types.boolean, (c) => c.notNull().defaultTo(types.false))
 * ```
 */
// biome-ignore lint/suspicious/noExplicitAny: any table schema
export function columnTypes(db: Kysely<any>): ColumnTypes {
  if (dialectOf(db) === "postgres")
    return { boolean: "boolean", timestamp: "timestamptz", json: "json", false: sql`false`, true: sql`true` };
  return { boolean: "integer", timestamp: "text", json: "text", false: sql`0`, true: sql`1` };
}
