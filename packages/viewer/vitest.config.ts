import { fileURLToPath } from "node:url";
import { baseConfig } from "@deliberate/vitest-config";
import { defineConfig, mergeConfig } from "vitest/config";

// The browser files are built before any test, so tests always run the current source.
// The engine's global setup starts one Postgres for runs with DELIBERATE_TEST_ENGINE_DIALECT=postgres (nothing otherwise).
export default mergeConfig(
  baseConfig,
  defineConfig({
    test: {
      globalSetup: [
        "./test/build-assets.global-setup.ts",
        fileURLToPath(import.meta.resolve("@deliberate/engine/testing/global-setup")),
      ],
    },
  }),
);
