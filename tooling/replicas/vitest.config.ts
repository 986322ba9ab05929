import { baseConfig } from "@deliberate/vitest-config";
import { defineConfig, mergeConfig } from "vitest/config";

// Each file starts its own Postgres and processes; run the files one after another (2-core machines).
export default mergeConfig(baseConfig, defineConfig({ test: { fileParallelism: false, testTimeout: 180_000, hookTimeout: 120_000 } }));
