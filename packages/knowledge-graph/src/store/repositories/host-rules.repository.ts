import { DeliberateError, type HostRule } from "@deliberate/contracts";
import type { Database } from "@deliberate/store";
import type { Kysely } from "kysely";
import type { SessionBindingDatabase } from "../tables.ts";

/** The rules hosts gave a session as data, by name; a rule given again under its name replaces the earlier one. */
export function createHostRulesRepository(database: Kysely<Database>) {
  const db = database as unknown as Kysely<SessionBindingDatabase>;
  return {
    /** Stores rules (inserting new names, replacing known ones). */
    async save(input: { sessionId: string; rules: readonly HostRule[]; now: string }): Promise<void> {
      for (const rule of input.rules) {
        const text = JSON.stringify(rule);
        await db
          .insertInto("knowledge_graph_rules")
          .values({
            session_id: input.sessionId,
            name: rule.name,
            rule: text,
            created_at: input.now,
            updated_at: input.now,
          })
          .onConflict((conflict) =>
            conflict.columns(["session_id", "name"]).doUpdateSet({ rule: text, updated_at: input.now }),
          )
          .execute();
      }
    },

    /** A session's rules, in the order they were first given. */
    async list(sessionId: string): Promise<HostRule[]> {
      const rows = await db
        .selectFrom("knowledge_graph_rules")
        .select(["name", "rule"])
        .where("session_id", "=", sessionId)
        .orderBy("created_at", "asc")
        .orderBy("name", "asc")
        .execute();
      return rows.map((row) => {
        try {
          return JSON.parse(row.rule) as HostRule;
        } catch {
          throw new DeliberateError({
            code: "STORAGE",
            message: `Corrupt JSON in knowledge_graph_rules.rule of session ${sessionId}, rule ${row.name}`,
          });
        }
      });
    },
  };
}

export type HostRulesRepository = ReturnType<typeof createHostRulesRepository>;
