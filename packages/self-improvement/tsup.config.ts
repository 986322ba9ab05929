import { defineServiceConfig } from "@deliberate/tsup-config";
import { defineConfig } from "tsup";

// The `deliberate` command (src/cli/main.ts); the package itself is consumed from source.
export default defineConfig(
  defineServiceConfig({
    directory: import.meta.dirname,
    entry: { cli: "src/cli/main.ts" },
    splitting: false,
    bundle: ["kysely"],
  }),
);
