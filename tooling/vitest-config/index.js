import { defineConfig } from "vitest/config";

// Plain JS: vitest loads config files through Node, which cannot import .ts from node_modules on Node 20.
/** Shared vitest settings: node environment, generous timeouts for tests that spawn processes. */
export const baseConfig = defineConfig({
  test: {
    environment: "node",
    testTimeout: 30_000,
    hookTimeout: 30_000,
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
  },
});
