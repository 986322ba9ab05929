import { baseConfig } from "@deliberate/vitest-config";
import { defineConfig, mergeConfig } from "vitest/config";

// The browser files are built before any test, so tests always run the current source.
export default mergeConfig(baseConfig, defineConfig({ test: { globalSetup: ["./test/build-assets.global-setup.ts"] } }));
