import { defineServiceConfig } from "@deliberate/tsup-config";
import { defineConfig } from "tsup";

export default defineConfig(
  defineServiceConfig({
    directory: import.meta.dirname,
    entry: { main: "src/main.ts" },
    splitting: false,
    bundle: ["kysely"],
    viewerAssets: true,
  }),
);
