import { baseConfig } from "@deliberate/vitest-config";
import { defineConfig, mergeConfig } from "vitest/config";

// The CLI test runs the BUILT `deliberate` command (dist/cli.js); the global setup builds it when stale.
export default mergeConfig(baseConfig, defineConfig({ test: { globalSetup: ["./test/support/global-setup.ts"] } }));
