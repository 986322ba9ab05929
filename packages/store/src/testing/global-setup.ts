import type { TestProject } from "vitest/node";
import { startTestPostgres } from "./embedded-postgres.ts";
import { testDialects } from "./dialects.ts";
import "./provided-context.ts";

/**
 * Vitest global setup: starts one Postgres for the whole test run (unless
 * `DELIBERATE_TEST_DIALECTS` leaves Postgres out) and hands its URL to the
 * test files, which each create their own database (`openTestStore`).
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (!testDialects.includes("postgres")) {
    project.provide("deliberatePostgresUrl", "");
    return async () => {};
  }
  const server = await startTestPostgres();
  project.provide("deliberatePostgresUrl", server.adminUrl);
  return () => server.stop();
}
