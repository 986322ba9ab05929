import { ConfigError } from "@deliberate/base";
import { defaultDatabasePath } from "./user-data-path.ts";
import { redactDatabaseUrl } from "./open-postgres.ts";

/** Where the store lives: an SQLite file (the embedded default) or a Postgres database shared by replicas. */
export type DatabaseTarget =
  | { readonly dialect: "sqlite"; readonly path: string }
  | { readonly dialect: "postgres"; readonly url: string };

/**
 * Reads `DATABASE_URL` and `DATABASE_PATH` into a target: a `postgres://` or
 * `postgresql://` URL selects Postgres; `sqlite:<path>` or no URL selects
 * SQLite at `DATABASE_PATH` (default: `deliberate/deliberate.db` under the user's data directory, see
 * `defaultDatabasePath`, e.g. `~/.local/share/deliberate/deliberate.db`).
 *
 * @throws ConfigError naming DATABASE_URL when its scheme is neither.
 */
export function databaseTargetFromEnvironment(env: Record<string, string | undefined>): DatabaseTarget {
  const url = env["DATABASE_URL"]?.trim();
  const path = env["DATABASE_PATH"]?.trim();
  if (url === undefined || url === "")
    return { dialect: "sqlite", path: path === undefined || path === "" ? defaultDatabasePath({ env }) : path };
  if (/^postgres(ql)?:\/\//i.test(url)) {
    try {
      new URL(url);
    } catch {
      throw new ConfigError(
        `DATABASE_URL is not a valid URL (got "${redactDatabaseUrl(url)}"); use postgres://user:password@host:5432/database.`,
        ["DATABASE_URL"],
      );
    }
    return { dialect: "postgres", url };
  }
  if (/^sqlite:/i.test(url)) {
    const sqlitePath = url.replace(/^sqlite:(\/\/)?/i, "");
    if (sqlitePath === "")
      throw new ConfigError("DATABASE_URL=sqlite: needs a path, e.g. sqlite:./data/deliberate.db.", ["DATABASE_URL"]);
    return { dialect: "sqlite", path: sqlitePath };
  }
  throw new ConfigError(
    `DATABASE_URL must start with postgres:// (or postgresql://, or sqlite: for a file); got a URL starting "${url.split(":")[0]}:". Unset it to use SQLite at DATABASE_PATH.`,
    ["DATABASE_URL"],
  );
}

/** The target for logs: the SQLite path, or the Postgres URL without its password. */
export function describeDatabaseTarget(target: DatabaseTarget): string {
  return target.dialect === "sqlite" ? target.path : redactDatabaseUrl(target.url);
}
