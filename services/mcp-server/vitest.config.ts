import { baseConfig } from "@deliberate/vitest-config";
import { defineConfig, mergeConfig } from "vitest/config";

// End-to-end tests spawn the BUILT server (dist/main.js); the global setup
// builds it first when it is missing or older than its sources.
export default mergeConfig(baseConfig, defineConfig({ test: { globalSetup: ["./test/support/global-setup.ts"] } }));
