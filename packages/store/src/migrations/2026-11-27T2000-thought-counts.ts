import { type Kysely, type Migration, sql } from "kysely";
import { dialectOf } from "../dialect.ts";

/**
 * `thought_counts`: how many thoughts each session has, kept by triggers on
 * `thoughts` (every insert and delete, whoever writes it), so a page of a
 * large session reads its size in one lookup instead of counting every row.
 * Positions are 0, 1, 2... unless a write outside a transaction failed; with
 * the count, a read knows in O(log n) whether they are (count = max + 1) and
 * then addresses a page by position through the (session_id, position) index.
 */
export const thoughtCounts: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable("thought_counts")
      .addColumn("session_id", "text", (column) => column.primaryKey().references("sessions.id").onDelete("cascade"))
      .addColumn("thought_count", "integer", (column) => column.notNull())
      .execute();
    await sql`insert into thought_counts (session_id, thought_count) select session_id, count(*) from thoughts group by session_id`.execute(
      db,
    );
    if (dialectOf(db) === "postgres") {
      // `set search_path from current`: the function finds the table in the schema it was made in,
      // whichever search path the writing connection has.
      await sql`
        create function deliberate_count_thoughts() returns trigger language plpgsql set search_path from current as $$
        begin
          if tg_op = 'INSERT' then
            insert into thought_counts (session_id, thought_count) values (new.session_id, 1)
            on conflict (session_id) do update set thought_count = thought_counts.thought_count + 1;
            return new;
          end if;
          update thought_counts set thought_count = thought_count - 1 where session_id = old.session_id;
          return old;
        end $$`.execute(db);
      await sql`create trigger thoughts_counted after insert or delete on thoughts for each row execute function deliberate_count_thoughts()`.execute(
        db,
      );
      return;
    }
    await sql`
      create trigger thoughts_counted_insert after insert on thoughts begin
        insert into thought_counts (session_id, thought_count) values (new.session_id, 1)
        on conflict (session_id) do update set thought_count = thought_count + 1;
      end`.execute(db);
    await sql`
      create trigger thoughts_counted_delete after delete on thoughts begin
        update thought_counts set thought_count = thought_count - 1 where session_id = old.session_id;
      end`.execute(db);
  },
  async down(db: Kysely<unknown>): Promise<void> {
    if (dialectOf(db) === "postgres") {
      await sql`drop trigger thoughts_counted on thoughts`.execute(db);
      await sql`drop function deliberate_count_thoughts()`.execute(db);
    } else {
      await sql`drop trigger thoughts_counted_insert`.execute(db);
      await sql`drop trigger thoughts_counted_delete`.execute(db);
    }
    await db.schema.dropTable("thought_counts").execute();
  },
};
