export { connectMcp } from "./mcp/connect.ts";
export type { McpConnectOptions, McpHttpConnectOptions, McpStdioConnectOptions } from "./mcp/connect.ts";
export { createMcpTransport, mcpToolTimeoutMs } from "./mcp/mcp-transport.ts";
export type { McpTransportOptions } from "./mcp/mcp-transport.ts";
