import { baseConfig } from "@deliberate/vitest-config";
import { defineConfig, mergeConfig } from "vitest/config";

// Each file starts built service processes: one file at a time (2-core machines), with start-up room.
export default mergeConfig(
  baseConfig,
  defineConfig({ test: { fileParallelism: false, testTimeout: 120_000, hookTimeout: 120_000 } }),
);
