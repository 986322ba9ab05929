/** A package's test settings (`"deliberate": { "testRun", "engineDialect" }` in its package.json). */
export interface TestSettings {
  /**
   * "own": a vitest run of its own, started by the root `pnpm test`; "shared": the root's one run (`pnpm test:sources`);
   * "separate": a run of its own that `pnpm test` leaves out, started by a root script that CI (`.ci/run`) calls.
   */
  testRun: "own" | "shared" | "separate";
  /** Its tests run on the test engine's dialect: `pnpm test:postgres` runs them again on Postgres. */
  engineDialect: boolean;
}
export declare function testSettings(manifest: unknown, where?: string): TestSettings;
