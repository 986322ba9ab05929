import { fileURLToPath } from "node:url";
import { baseConfig } from "@deliberate/vitest-config";
import { defineConfig, mergeConfig } from "vitest/config";

// The CLI test runs the BUILT `deliberate` command (dist/cli.js); the global setup builds it when stale.
// The engine's global setup starts one Postgres for runs with DELIBERATE_TEST_ENGINE_DIALECT=postgres (nothing otherwise).
export default mergeConfig(
  baseConfig,
  defineConfig({
    test: {
      globalSetup: [
        "./test/support/global-setup.ts",
        fileURLToPath(import.meta.resolve("@deliberate/engine/testing/global-setup")),
      ],
    },
  }),
);
