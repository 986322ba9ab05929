import { defineConfig } from "tsup";

// The published package stands alone: the workspace's contracts (consumed from source) are bundled
// into dist, code (here) and types (scripts/build-types.mjs); zod is a real dependency and the MCP SDK an optional peer, both external.
export default defineConfig({
  entry: { index: "src/index.ts", mcp: "src/mcp.ts", node: "src/node.ts" },
  format: ["esm"],
  platform: "neutral",
  target: "es2022",
  outDir: "dist",
  clean: true,
  sourcemap: true,
  splitting: true,
  treeshake: true,
  // Declarations: scripts/build-types.mjs (run after tsup by the build script).
  dts: false,
  noExternal: [/^@deliberate\//],
  external: ["zod", /^@modelcontextprotocol\//, /^node:/],
  // Keep `node:` on the built-ins ./node imports, so runtimes and bundlers see them for what they are.
  removeNodeProtocol: false,
});
