import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { baseConfig } from "./index.js";

// Plain JS like index.js. The root `pnpm test` runs most packages' tests in one vitest process (`pnpm test:sources`)
// instead of one per package: with `isolate: false` each worker loads the shared sources (contracts, engine, store,
// the SDKs) once for many packages' files, and vite transforms each source file once, not once per package. Each
// package's own vitest.config.ts still runs it alone (`pnpm --filter <package> test`).

/**
 * Packages that keep a vitest run of their own, each started by the root `pnpm test` after its builds: their tests
 * run built outputs (the services, the packed client and services, the CLI, Chromium on the built viewer) whose processes are
 * most of their cost, or need settings of their own (the replica tests run one file at a time, with long timeouts).
 */
export const ownRunPackages = ["services/mcp-server", "services/client", "packages/self-improvement", "packages/viewer", "tooling/replicas", "tooling/packed"];

/** Packages whose tests run on the test engine's dialect: `pnpm test:postgres` runs them again on Postgres. */
export const engineDialectPackages = [
  "packages/engine",
  "packages/reasoning",
  "packages/dialog",
  "packages/knowledge-graph",
  "services/http-api",
  "services/mcp-server",
  "services/client",
  "packages/self-improvement",
  "packages/viewer",
];

/** Every workspace package with tests (a vitest.config.ts), as `<folder>/<name>` relative to the workspace root. */
export function testedPackages(root) {
  return ["packages", "services", "tooling"].flatMap((folder) =>
    existsSync(join(root, folder))
      ? readdirSync(join(root, folder))
          .filter((name) => existsSync(join(root, folder, name, "vitest.config.ts")))
          .map((name) => `${folder}/${name}`)
      : [],
  );
}

/** The packages whose tests run in the root's one run (`pnpm test:sources`): every tested package without a run of its own. */
export function sourcesGroup(root) {
  return testedPackages(root).filter((pkg) => !ownRunPackages.includes(pkg));
}

/**
 * Throws unless the root scripts that run the tests (`test`, `test:postgres`) pass `--filter` for exactly the
 * packages with a run of their own (for `test:postgres`, those on the engine's dialect): a package left out of both
 * would go untested, one in both would run twice.
 */
export function checkRootTestScripts(root) {
  const manifest = (directory) => JSON.parse(readFileSync(join(root, directory, "package.json"), "utf8"));
  const nameOf = (pkg) => manifest(pkg).name;
  const scripts = manifest(".").scripts ?? {};
  const expected = {
    test: ownRunPackages.map(nameOf),
    "test:postgres": ownRunPackages.filter((pkg) => engineDialectPackages.includes(pkg)).map(nameOf),
  };
  for (const [script, names] of Object.entries(expected)) {
    const filtered = [...String(scripts[script] ?? "").matchAll(/--filter\s+(\S+)/g)].map((match) => match[1]);
    const missing = names.filter((name) => !filtered.includes(name));
    const extra = filtered.filter((name) => !names.includes(name));
    if (missing.length > 0 || extra.length > 0) {
      throw new Error(
        `the root "${script}" script must --filter exactly the packages with a vitest run of their own (tooling/vitest-config/suites.js)` +
          (missing.length > 0 ? `; missing: ${missing.join(", ")}` : "") +
          (extra.length > 0 ? `; not expected: ${extra.join(", ")}` : ""),
      );
    }
  }
}

/** Only the packages that run on the engine's dialect, when a run asks for Postgres (`pnpm test:postgres`). */
export function forEngineDialect(packages, dialect = process.env.DELIBERATE_TEST_ENGINE_DIALECT) {
  return dialect === "postgres" ? packages.filter((pkg) => engineDialectPackages.includes(pkg)) : packages;
}

/** One vitest run over several packages' test files, with the shared settings of `baseConfig`. */
export function groupConfig({ root, packages, globalSetup, maxWorkers, testTimeout, hookTimeout }) {
  const base = baseConfig.test;
  return {
    root,
    test: {
      ...base,
      include: packages.flatMap((pkg) => base.include.map((pattern) => `${pkg}/${pattern}`)),
      globalSetup,
      maxWorkers,
      testTimeout: testTimeout ?? base.testTimeout,
      hookTimeout: hookTimeout ?? base.hookTimeout,
    },
  };
}
