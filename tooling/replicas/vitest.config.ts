import { baseConfig } from "@deliberate/vitest-config";
import { defineConfig, mergeConfig } from "vitest/config";

// One Postgres for the run (global setup); each file starts its own processes on a database of its
// own. The files run one after another (2-core machines).
export default mergeConfig(
  baseConfig,
  defineConfig({
    test: {
      globalSetup: ["./test/support/global-setup.ts"],
      fileParallelism: false,
      testTimeout: 300_000,
      hookTimeout: 240_000,
    },
  }),
);
