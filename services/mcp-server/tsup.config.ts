import { defineServiceConfig } from "@deliberate/tsup-config";
import { defineConfig } from "tsup";

// The HTTP transport is a separate chunk, loaded only with --http. The libraries
// every stdio start loads are inlined (one file parses faster than hundreds
// resolved one by one) and the whitespace goes (less source to scan at start-up).
export default defineConfig({
  ...defineServiceConfig({
    directory: import.meta.dirname,
    entry: { main: "src/main.ts" },
    splitting: true,
    bundle: ["kysely", "zod", "@modelcontextprotocol/server", "@modelcontextprotocol/core"],
  }),
  minifyWhitespace: true,
});
