import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { baseConfig } from "./index.js";
import { testSettings } from "./test-settings.js";

export { testSettings };

// Plain JS like index.js. The root `pnpm test` runs most packages' tests in one vitest process (`pnpm test:sources`)
// instead of one per package: with `isolate: false` each worker loads the shared sources (contracts, engine, store,
// the SDKs) once for many packages' files, and vite transforms each source file once, not once per package. Each
// package's own vitest.config.ts still runs it alone (`pnpm --filter <package> test`).
//
// Which package runs where is said once, in the package's own package.json (read here and by tooling/tasks):
//   "deliberate": { "testRun": "own", "engineDialect": true }
// `testRun: "own"`: a vitest run of its own, started by the root `pnpm test` after its builds (its tests run built
// outputs, or need settings of their own). `testRun: "separate"`: a vitest run of its own that `pnpm test` leaves out,
// run by a root script and CI step of its own (tooling/packed: `pnpm test:packed`). `engineDialect: true`: its tests run on the test engine's dialect, so
// `pnpm test:postgres` runs them again on Postgres.

function settingsOf(root, pkg) {
  const path = join(root, pkg, "package.json");
  return existsSync(path) ? testSettings(JSON.parse(readFileSync(path, "utf8")), path) : testSettings({}, path);
}

/** Every workspace package with tests (a vitest.config.ts), as `<folder>/<name>` relative to the workspace root. */
export function testedPackages(root) {
  return ["packages", "services", "tooling"].flatMap((folder) =>
    existsSync(join(root, folder))
      ? readdirSync(join(root, folder))
          .filter((name) => existsSync(join(root, folder, name, "vitest.config.ts")))
          .sort()
          .map((name) => `${folder}/${name}`)
      : [],
  );
}

/** The tested packages that keep a vitest run of their own (`"deliberate": { "testRun": "own" }`). */
export function ownRunPackages(root) {
  return testedPackages(root).filter((pkg) => settingsOf(root, pkg).testRun === "own");
}

/** The tested packages whose run `pnpm test` leaves out, for a root script and CI step of their own (`"testRun": "separate"`). */
export function separateRunPackages(root) {
  return testedPackages(root).filter((pkg) => settingsOf(root, pkg).testRun === "separate");
}

/** The packages whose tests run in the root's one run (`pnpm test:sources`): every tested package without a run of its own. */
export function sourcesGroup(root) {
  return testedPackages(root).filter((pkg) => settingsOf(root, pkg).testRun === "shared");
}

/** Only the packages that run on the engine's dialect (`"engineDialect": true`), when a run asks for Postgres (`pnpm test:postgres`). */
export function forEngineDialect(root, packages, dialect = process.env.DELIBERATE_TEST_ENGINE_DIALECT) {
  return dialect === "postgres" ? packages.filter((pkg) => settingsOf(root, pkg).engineDialect) : packages;
}

/**
 * The setup file of the shared run that fails a test file leaving `process.env` or chosen globals changed: with
 * `isolate: false` the next file in the worker would inherit them.
 */
export const leftStateGuard = fileURLToPath(new URL("./left-state-guard.js", import.meta.url));

/** One vitest run over several packages' test files, with the shared settings of `baseConfig` and the left-state guard. */
export function groupConfig({ root, packages, globalSetup, maxWorkers, testTimeout, hookTimeout }) {
  const base = baseConfig.test;
  return {
    root,
    test: {
      ...base,
      include: packages.flatMap((pkg) => base.include.map((pattern) => `${pkg}/${pattern}`)),
      globalSetup,
      setupFiles: [leftStateGuard],
      maxWorkers,
      testTimeout: testTimeout ?? base.testTimeout,
      hookTimeout: hookTimeout ?? base.hookTimeout,
    },
  };
}
