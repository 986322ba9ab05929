import { fileURLToPath } from "node:url";
import { baseConfig } from "@deliberate/vitest-config";
import { defineConfig, mergeConfig } from "vitest/config";

// End-to-end tests spawn the BUILT server (dist/main.js); the global setup
// builds it first when it is missing or older than its sources. With
// DELIBERATE_TEST_ENGINE_DIALECT=postgres the engine's global setup starts one
// Postgres for the run and every spawned server gets its own place on it.
// Two workers (vitest's default here is one): this suite is the run's longest, and it ends alone.
// 90 s a test: its end-to-end tests start servers (a restart test two) and run model exchanges; under a second
// full run (load 30+) one took over the base 30 s.
// fsModuleCache: transformed sources are kept between runs (node_modules/.experimental-vitest-cache), about 4 CPU-s a run once warm.
export default mergeConfig(
  baseConfig,
  defineConfig({
    test: {
      experimental: { fsModuleCache: true },
      maxWorkers: 2,
      testTimeout: 90_000,
      hookTimeout: 90_000,
      globalSetup: [
        "./test/support/global-setup.ts",
        fileURLToPath(import.meta.resolve("@deliberate/engine/testing/global-setup")),
      ],
    },
  }),
);
