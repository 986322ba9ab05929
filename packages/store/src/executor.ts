import type { Kysely } from "kysely";
import type { Database } from "./database.ts";

/** A database handle or an open transaction; repositories work on either. */
export type DatabaseExecutor = Kysely<Database>;
