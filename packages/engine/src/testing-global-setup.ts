import storeGlobalSetup from "@deliberate/store/testing/global-setup";
import type { TestProject } from "vitest/node";
import { testEngineDialect } from "./test-engine-dialect.ts";

/**
 * Vitest global setup for packages whose tests use a store only through test
 * engines, `testStorePlace` or `testServerEnvironment`: with
 * `DELIBERATE_TEST_ENGINE_DIALECT=postgres` it starts the run's one Postgres
 * (the store's global setup: each test file then gets its own database); on
 * SQLite it starts nothing.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (testEngineDialect() === "postgres") return storeGlobalSetup(project);
  project.provide("deliberatePostgresUrl", "");
  return async () => {};
}
