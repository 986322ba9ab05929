/**
 * The dialect test engines' stores use: SQLite in memory, or with
 * `DELIBERATE_TEST_ENGINE_DIALECT=postgres` a fresh schema on the run's
 * Postgres (the package's vitest config needs the global setup
 * `@deliberate/engine/testing/global-setup`), so a module's whole tool suite
 * and a service's end-to-end tests can run on Postgres too.
 *
 * Kept apart from `./testing.ts` (which imports vitest's runtime) so the
 * global setup can read it.
 */
export function testEngineDialect(): "sqlite" | "postgres" {
  const value = process.env["DELIBERATE_TEST_ENGINE_DIALECT"]?.trim().toLowerCase();
  if (value === undefined || value === "" || value === "sqlite") return "sqlite";
  if (value === "postgres") return "postgres";
  throw new Error(`DELIBERATE_TEST_ENGINE_DIALECT must be sqlite or postgres (got "${value}")`);
}
