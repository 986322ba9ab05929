import { mergeConfig } from "vitest/config";
import base from "/work/wt/mcpsuite/services/mcp-server/vitest.config.ts";
export default mergeConfig(base, { test: { execArgv: ["--cpu-prof", "--cpu-prof-dir=/tmp/mcps-wprof"] } });
