import { selectedDialects } from "@deliberate/store/testing/dialects";
import { startEmbeddedPostgres, type TestPostgres } from "@deliberate/store/testing/postgres";

/** Starts the shared Postgres; replaceable in tests. */
export type StartPostgres = () => Promise<Pick<TestPostgres, "adminUrl" | "stop">>;

// Every package's suites at once share it: room for all their pools.
const startShared: StartPostgres = () => startEmbeddedPostgres({ maxConnections: 1000 });

/**
 * Runs `run` with one embedded Postgres for all of it, announced to every task as `DELIBERATE_TEST_DATABASE_URL`
 * in the environment it is given (each package's global setup then starts none; each test file still gets databases
 * of its own). A whole-workspace run would otherwise start a server per package, about a CPU-second each. Nothing is
 * started when that variable is already set or `DELIBERATE_TEST_DIALECTS` leaves Postgres out (it throws for a
 * dialect it does not know). The server is stopped once `run` has settled, whatever its outcome.
 */
export async function withTestPostgres<T>(
  env: NodeJS.ProcessEnv,
  run: (env: NodeJS.ProcessEnv) => Promise<T>,
  start: StartPostgres = startShared,
): Promise<T> {
  const wanted =
    !env["DELIBERATE_TEST_DATABASE_URL"]?.trim() &&
    selectedDialects(env["DELIBERATE_TEST_DIALECTS"]).includes("postgres");
  if (!wanted) return run(env);
  const server = await start();
  try {
    return await run({ ...env, DELIBERATE_TEST_DATABASE_URL: server.adminUrl });
  } finally {
    await server.stop();
  }
}
