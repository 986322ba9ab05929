import { defineConfig } from "vitest/config";

// Plain JS: vitest loads config files through Node, which cannot import .ts from node_modules on Node 20.
/**
 * Shared vitest settings: node environment, generous timeouts for tests that spawn processes.
 *
 * `isolate: false`: the test files of a package run one after another in each worker and share its
 * module cache, so the sources (contracts, engine, store, the SDKs) are loaded once per package run
 * instead of once per file; loading them in a fresh isolate per file was most of the suite's time.
 * Test files therefore must not leave global state behind (no module mocks, no changed globals or
 * environment); each opens its own stores and servers and closes them in its hooks.
 */
export const baseConfig = defineConfig({
  test: {
    environment: "node",
    testTimeout: 30_000,
    hookTimeout: 30_000,
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    pool: "forks",
    isolate: false,
  },
});
