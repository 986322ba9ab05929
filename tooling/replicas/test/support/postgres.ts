import { type TestPostgres, testPostgresAt } from "@deliberate/store/testing/postgres";
import { inject } from "vitest";
import "./global-setup.ts";

/** The run's Postgres (started by the global setup); `createDatabase` gives each test a database of its own. */
export function runPostgres(): TestPostgres {
  return testPostgresAt(inject("replicasPostgresUrl"));
}
