import { defineServiceConfig } from "@deliberate/tsup-config";
import { defineConfig } from "tsup";

// The HTTP transport is a separate chunk, loaded only with --http.
export default defineConfig(defineServiceConfig({ directory: import.meta.dirname, entry: { main: "src/main.ts" }, splitting: true, bundle: ["kysely"] }));
