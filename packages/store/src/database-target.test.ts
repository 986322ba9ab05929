import { homedir } from "node:os";
import { join } from "node:path";
import { ConfigError, DeliberateError } from "@deliberate/base";
import { describe, expect, it } from "vitest";
import { freePort } from "./testing/embedded-postgres.ts";
import { databaseTargetFromEnvironment, describeDatabaseTarget } from "./index.ts";
import { openPostgresDatabase, redactDatabaseUrl } from "./open-postgres.ts";

describe("database target", () => {
  it("selects Postgres for postgres:// URLs and SQLite otherwise", () => {
    expect(databaseTargetFromEnvironment({})).toEqual({
      dialect: "sqlite",
      path: join(homedir(), ".local", "share", "deliberate", "deliberate.db"),
    });
    expect(databaseTargetFromEnvironment({ XDG_DATA_HOME: "/srv/data" })).toEqual({
      dialect: "sqlite",
      path: "/srv/data/deliberate/deliberate.db",
    });
    expect(databaseTargetFromEnvironment({ DATABASE_PATH: " /var/x.db ", DATABASE_URL: "  " })).toEqual({
      dialect: "sqlite",
      path: "/var/x.db",
    });
    expect(databaseTargetFromEnvironment({ DATABASE_URL: "postgres://u:p@db:5432/d" })).toEqual({
      dialect: "postgres",
      url: "postgres://u:p@db:5432/d",
    });
    expect(
      databaseTargetFromEnvironment({ DATABASE_URL: "postgresql://db/d", DATABASE_PATH: "/ignored.db" }).dialect,
    ).toBe("postgres");
    expect(databaseTargetFromEnvironment({ DATABASE_URL: "sqlite:./data/other.db" })).toEqual({
      dialect: "sqlite",
      path: "./data/other.db",
    });
  });

  it("names DATABASE_URL when it is neither, and never prints a password", () => {
    const error = (() => {
      try {
        databaseTargetFromEnvironment({ DATABASE_URL: "mysql://root:hunter2@db/x" });
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).variables).toEqual(["DATABASE_URL"]);
    expect((error as ConfigError).message).toMatch(/postgres:\/\//);
    expect((error as ConfigError).message).not.toContain("hunter2");
    expect(() => databaseTargetFromEnvironment({ DATABASE_URL: "sqlite:" })).toThrow(/needs a path/);
    expect(redactDatabaseUrl("postgres://u:hunter2@db:5432/d")).toBe("postgres://u:***@db:5432/d");
    expect(describeDatabaseTarget({ dialect: "postgres", url: "postgres://u:hunter2@db/d" })).not.toContain("hunter2");
  });

  it("fails to open an unreachable Postgres with a STORAGE error that says what to check", async () => {
    const port = await freePort();
    const error = await openPostgresDatabase({ url: `postgres://u:hunter2@127.0.0.1:${port}/d` }).catch(
      (caught: unknown) => caught,
    );
    expect(DeliberateError.isInstance(error) && error.code).toBe("STORAGE");
    expect((error as DeliberateError).message).not.toContain("hunter2");
    expect((error as DeliberateError).hint).toMatch(/DATABASE_URL/);
  });
});
