import type { Kysely, Migration } from "kysely";
import { columnTypes } from "../column-types.ts";

/** A submission claims its suspended call while replaying it, so two submissions cannot both run. */
export const suspendedCallClaims: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable("suspended_calls").addColumn("claimed_until", columnTypes(db).timestamp).execute();
  },
};
