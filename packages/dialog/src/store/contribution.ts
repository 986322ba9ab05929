import type { Database } from "@deliberate/store";
import type { Kysely } from "kysely";
import { dialogMigrations } from "./migrations/index.ts";
import { createDialogSessionRepository } from "./repositories/dialog-session.repository.ts";
import type { DialogDatabase } from "./tables.ts";

/** Binds the dialog module's repositories to a handle (the database or an open transaction). */
export function createDialogRepositories(db: Kysely<Database>) {
  return { dialogSessions: createDialogSessionRepository(db as unknown as Kysely<DialogDatabase>) };
}

/** The dialog module's part of the store, spread into its module: its migrations and its repositories. */
export const dialogStore = { migrations: dialogMigrations, repositories: createDialogRepositories };
