#!/usr/bin/env node
// @ts-check
// The baseline for the benchmark: a bare MCP SDK v2 server over stdio with one
// trivial tool. Plain JavaScript so that it starts as fast as Node allows (no
// TypeScript loader), like the built Deliberate server it is compared with.
import { McpServer } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { z } from "zod";

serveStdio(() => {
  const server = new McpServer({ name: "baseline", version: "1.0.0" });
  server.registerTool(
    "echo",
    {
      description: "Returns its input.",
      inputSchema: z.object({ text: z.string() }),
      outputSchema: z.object({ text: z.string() }),
    },
    async ({ text }) => ({ content: [{ type: "text", text: JSON.stringify({ text }) }], structuredContent: { text } }),
  );
  return server;
});
