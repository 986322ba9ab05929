import { fileURLToPath } from "node:url";
import { baseConfig } from "@deliberate/vitest-config";
import { defineConfig, mergeConfig } from "vitest/config";

// The store tests run on SQLite and on one Postgres started for the run (see @deliberate/store/testing).
export default mergeConfig(
  baseConfig,
  defineConfig({
    test: { globalSetup: [fileURLToPath(import.meta.resolve("@deliberate/store/testing/global-setup"))] },
  }),
);
