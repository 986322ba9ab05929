import { defineConfig } from "tsup";

// The published package stands alone: the workspace's contracts (consumed from source) are bundled
// into dist, code and types; zod is a real dependency and the MCP SDK an optional peer, both external.
export default defineConfig({
  entry: { index: "src/index.ts", mcp: "src/mcp.ts" },
  format: ["esm"],
  platform: "neutral",
  target: "es2022",
  outDir: "dist",
  clean: true,
  sourcemap: true,
  splitting: true,
  treeshake: true,
  dts: {
    compilerOptions: {
      // Types too: map the workspace packages to their sources so the declaration bundle inlines them.
      paths: { "@deliberate/contracts": ["../../packages/contracts/src/index.ts"], "@deliberate/base": ["../../packages/base/src/index.ts"] },
    },
  },
  noExternal: [/^@deliberate\//],
  external: ["zod", /^@modelcontextprotocol\//],
});
