import { baseConfig } from "@deliberate/vitest-config";
import { defineConfig, mergeConfig } from "vitest/config";

// The global setup packs both services and installs the tarballs once per run (npm, an empty folder);
// the files then run one after another against that one install (installs and compiles are CPU-heavy).
export default mergeConfig(
  baseConfig,
  defineConfig({
    test: {
      globalSetup: ["./test/support/global-setup.ts"],
      fileParallelism: false,
      testTimeout: 180_000,
      hookTimeout: 900_000,
    },
  }),
);
