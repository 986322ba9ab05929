import { fileURLToPath } from "node:url";
import { checkRootTestScripts, forEngineDialect, groupConfig, sourcesGroup } from "./tooling/vitest-config/suites.js";

// `pnpm test:sources`: one run over the test files of every package without a vitest run of its own (see
// tooling/vitest-config/suites.js). One Postgres for the run, from the store's global setup: the store's tests run on
// SQLite and on it, and the engine's tests use it under DELIBERATE_TEST_ENGINE_DIALECT=postgres.
// Four workers: the files that wait on servers and timers overlap; more load the shared sources more often.
const root = fileURLToPath(new URL(".", import.meta.url));
checkRootTestScripts(root);

export default groupConfig({
  root,
  packages: forEngineDialect(sourcesGroup(root)),
  globalSetup: ["packages/store/src/testing/global-setup.ts"],
  maxWorkers: 4,
});
