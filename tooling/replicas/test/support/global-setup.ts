import { startTestPostgres } from "@deliberate/store/testing/postgres";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    /** Admin URL of the one Postgres of this run: each test file creates its own databases on it. */
    replicasPostgresUrl: string;
  }
}

/** One Postgres for every replica test (initdb and start once, not once per file). */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await startTestPostgres();
  project.provide("replicasPostgresUrl", server.adminUrl);
  return () => server.stop();
}
