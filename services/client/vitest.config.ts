import { fileURLToPath } from "node:url";
import { baseConfig } from "@deliberate/vitest-config";
import { defineConfig, mergeConfig } from "vitest/config";

// End-to-end tests spawn the BUILT services (deliberate-mcp, deliberate-api) and the packed client;
// the global setup builds what is missing or stale first. The type tests (src/*.test-d.ts) are
// compile-time assertions: the root `pnpm typecheck` (one program, part of `pnpm test`) and this
// package's `typecheck` check them, so vitest does not run tsc over them a second time.
// With DELIBERATE_TEST_ENGINE_DIALECT=postgres the engine's global setup starts one Postgres for the run
// and every spawned server gets its own place on it.
export default mergeConfig(
  baseConfig,
  defineConfig({
    test: {
      globalSetup: [
        "./test/support/global-setup.ts",
        fileURLToPath(import.meta.resolve("@deliberate/engine/testing/global-setup")),
      ],
      testTimeout: 60_000,
      hookTimeout: 120_000,
    },
  }),
);
