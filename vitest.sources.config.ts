import { fileURLToPath } from "node:url";
import { forEngineDialect, groupConfig, sourcesGroup } from "./tooling/vitest-config/suites.js";

// `pnpm test:sources`: one run over the test files of every package without a vitest run of its own (`"deliberate":
// { "testRun": "own" }` in its package.json; see tooling/vitest-config/suites.js). One Postgres for the run, from the
// store's global setup (or the one `pnpm test` started): the store's tests run on SQLite and on it, and the engine's
// tests use it under DELIBERATE_TEST_ENGINE_DIALECT=postgres. Every file is wrapped by the left-state guard
// (groupConfig), which fails a file that leaves the environment or a watched global changed.
// Four workers: 3 and 6 measured the same. 60 s a test and hook, twice a package's own: under a second full test run
// the slowest ordinary tests of these packages took 17–27 s.
const root = fileURLToPath(new URL(".", import.meta.url));

export default groupConfig({
  root,
  packages: forEngineDialect(root, sourcesGroup(root)),
  globalSetup: ["packages/store/src/testing/global-setup.ts"],
  maxWorkers: 4,
  testTimeout: 60_000,
  hookTimeout: 60_000,
});
