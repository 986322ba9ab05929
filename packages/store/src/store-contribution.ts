import type { Kysely, Migration } from "kysely";
import type { Database } from "./database.ts";

/**
 * What a module adds to the store: its own migrations (applied in timestamp
 * order, tracked per owner so services composing different modules can share
 * one database) and its repositories, bound to the database or a transaction.
 */
export interface StoreContribution<Extra extends object = object> {
  /** The owner of the migrations; unique among the contributions of one store. */
  readonly name: string;
  /** Timestamp-prefixed name -> migration. Shipped migrations are never edited. */
  readonly migrations?: Readonly<Record<string, Migration>>;
  /** Binds the module's repositories to a handle (the database or an open transaction). */
  readonly repositories?: (db: Kysely<Database>) => Extra;
}
